"""Source sets and their classes (seed 002, Definition 1, Theorem 2(a) eq. (9))."""

import numpy as np
import pytest

from leakage.source_sets import (
    check_source_set,
    common_order,
    contains_uniform,
    distortion_threshold,
    distortion_thresholds,
    source_class,
    uniform_point,
)

# the M = 3 example sets of specs/robust-dp-hamming.md (fig1)
TRIANGLE = [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]]
ORDERED = [[0.6, 0.3, 0.1], [0.5, 0.35, 0.15]]
CROSSING = [[0.6, 0.3, 0.1], [0.3, 0.6, 0.1]]


def test_classes_of_the_m3_examples():
    assert source_class(TRIANGLE) == "I"
    assert source_class(ORDERED) == "II"
    assert source_class(CROSSING) == "III"
    assert source_class(uniform_point(6)) == "I"


def test_contains_uniform_is_the_hull_not_the_points():
    # the uniform point is the mean of the triangle's vertices but none of them
    assert contains_uniform(TRIANGLE)
    # a segment through the uniform point in its interior
    assert contains_uniform([[0.5, 0.25, 0.25], [1 / 6, 5 / 12, 5 / 12]])
    assert not contains_uniform(CROSSING)


def test_common_order():
    assert list(common_order(ORDERED)) == [0, 1, 2]
    assert list(common_order([[0.1, 0.3, 0.6]])) == [2, 1, 0]
    assert common_order(CROSSING) is None


def test_thresholds_equal_eq9_for_class_ii():
    rng = np.random.default_rng(1)
    for _ in range(5):
        pts = np.sort(rng.dirichlet(np.ones(5), size=3), axis=1)[:, ::-1]  # all decreasing
        perm = rng.permutation(5)
        pts = pts[:, perm]  # a common order that is not the identity
        order = np.argsort(perm)
        for k in range(1, 5):
            ordered = pts[:, order]  # decreasing again
            eq9 = ordered[:, 5 - k :].sum(axis=1).max()  # max_P sum of the k last
            assert distortion_threshold(pts, k) == pytest.approx(eq9, abs=1e-15)
    assert distortion_threshold(ORDERED, 0) == 0.0
    assert distortion_thresholds(ORDERED) == pytest.approx([0.15, 0.5])


@pytest.mark.parametrize(
    "points, match",
    [
        ([[0.5, 0.6]], r"points\[0\] must sum to 1"),
        ([[1.2, -0.2]], r"points\[0\] must have entries in \[0, 1\]"),
        ([[0.5, 0.5], [0.2, 0.3, 0.5]], "same alphabet size M"),
        ([[1.0]], "M >= 2"),
        ([], "at least one distribution"),
    ],
)
def test_bad_source_sets(points, match):
    with pytest.raises(ValueError, match=match):
        check_source_set(points)


def test_threshold_k_range():
    with pytest.raises(ValueError, match=r"k must be in \[0, M-1\]"):
        distortion_threshold(ORDERED, 3)
