"""Source sets and their classes [robust-dp-hamming, Definition 1, Theorem 2(a) eq. (9)], and the pieces,
folding and P^LB / P^UB of Class III sets (eqs. (13)-(15))."""

from itertools import permutations

import numpy as np
import pytest
from scipy.optimize import linprog

from leakage.experiments.robust_dp_hamming.source_sets import (
    chamber_halfspaces,
    check_source_set,
    class_iii_folding,
    common_order,
    contains_uniform,
    distortion_threshold,
    distortion_thresholds,
    fold,
    folding,
    hull_halfspaces,
    polytope_vertices,
    source_class,
    unfold,
    uniform_point,
)

# the M = 3 example sets of docs/figures.md (robust-dp-hamming, fig1)
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


# ------------------------------------------------- Class III: pieces, folding, P^LB, P^UB (Thm 3)

def in_hull(x, points, tol=1e-7):
    """LP membership: x = sum_k lam_k points_k, lam >= 0, sum lam = 1 (written out here)."""
    pts = np.asarray(points, float)
    a_eq = np.vstack([pts.T, np.ones(len(pts))])
    res = linprog(np.zeros(len(pts)), A_eq=a_eq, b_eq=np.append(x, 1.0), bounds=(0, None), method="highs")
    if res.status == 0:
        return True
    # allow round-off: least total violation
    n, m = pts.shape
    a = np.hstack([a_eq, np.eye(m + 1), -np.eye(m + 1)])
    res = linprog(np.r_[np.zeros(n), np.ones(2 * m + 2)], A_eq=a, b_eq=np.append(x, 1.0), bounds=(0, None), method="highs")
    return res.fun <= tol


def random_class_iii(rng, M, n_points):
    """A random segment/triangle/... through random permutations of one distribution, perturbed."""
    while True:
        base = np.sort(rng.dirichlet(np.ones(M)))[::-1]
        pts = [base]
        for _ in range(n_points - 1):
            q = base[rng.permutation(M)] + 0.05 * rng.dirichlet(np.ones(M))
            pts.append(q / q.sum())
        pts = np.array(pts)
        if source_class(pts) == "III":
            return pts


def test_simplex_chamber_vertices_are_the_uniforms_on_prefixes():
    # S_P ∩ simplex = conv{(1/k, ..., 1/k, 0, ..., 0): k = 1..M} (a known fact, not from the code)
    for M in (3, 4, 5):
        a, b = chamber_halfspaces(np.arange(M))
        verts = polytope_vertices(np.ones((1, M)), [1.0], np.vstack([a, -np.eye(M)]), np.r_[b, np.zeros(M)])
        want = np.array([[1 / k] * k + [0] * (M - k) for k in range(1, M + 1)])
        assert sorted(map(tuple, np.round(verts, 9))) == sorted(map(tuple, np.round(want, 9)))


def test_polytope_vertices_finds_a_piece_on_a_wall_and_empty_sets():
    # segment lying in the wall P1 = P2, cut by the chamber P1 >= P2 (implicit equality)
    seg = np.array([[0.4, 0.4, 0.2], [0.3, 0.3, 0.4]])
    a_eq, b_eq, a_ub, b_ub = hull_halfspaces(seg)
    ca, cb = chamber_halfspaces([0, 1, 2])
    v = polytope_vertices(a_eq, b_eq, np.vstack([a_ub, ca]), np.r_[b_ub, cb])
    # (1 - s) (0.4, 0.4, 0.2) + s (0.3, 0.3, 0.4) has P2 = 0.4 - 0.1 s >= P3 = 0.2 + 0.2 s iff s <= 2/3,
    # whose end is the uniform point
    want = np.array([[0.4, 0.4, 0.2], [1 / 3, 1 / 3, 1 / 3]])
    assert sorted(map(tuple, np.round(v, 9))) == sorted(map(tuple, np.round(want, 9)))
    # disjoint: the same segment and P3 >= 0.5
    assert polytope_vertices(a_eq, b_eq, np.vstack([a_ub, [[0, 0, -1.0]]]), np.r_[b_ub, -0.5]).shape == (0, 3)


def test_fold_unfold_are_inverse_and_fold_sorts_its_chamber():
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(5), size=4)
    for t in permutations(range(5)):
        assert np.allclose(unfold(fold(p, t), t), p)
    t = np.argsort(-p[0])
    assert np.all(np.diff(fold(p[0], t)[0]) <= 0)


def test_crossing_segment_pieces_by_hand():
    # CROSSING meets the wall P1 = P2 at (0.45, 0.45, 0.1): two pieces, both folding to [mid, p]
    f = class_iii_folding(CROSSING)
    mid = np.array([0.45, 0.45, 0.1])
    assert sorted(f.orders) == [(0, 1, 2), (1, 0, 2)]
    want = sorted(map(tuple, np.round([CROSSING[0], mid], 9)))
    for piece in f.folded:
        assert sorted(map(tuple, np.round(piece, 9))) == want
    assert sorted(map(tuple, np.round(f.lower, 9))) == want  # P^LB = P^UB (Remark 6)
    assert sorted(map(tuple, np.round(f.upper, 9))) == want


def _distinct(vertex_sets):
    """The rows of several vertex arrays, each distinct row once: neighbouring pieces share
    vertices, and the LP of a repeated row decides as the first one did."""
    return np.unique(np.vstack(vertex_sets), axis=0)


def _check_folding(pts):
    f = folding(pts)
    m = pts.shape[1]
    chambers = [chamber_halfspaces(t)[0] for t in f.orders]
    for a, piece, folded in zip(chambers, f.pieces, f.folded):
        assert np.all(piece @ a.T <= 1e-8)  # P|_T ⊂ C_T
        assert np.all(np.diff(folded, axis=1) <= 1e-8)  # T(P|_T) ⊂ S_P
    assert all(in_hull(v, pts) for v in _distinct(f.pieces))  # every P|_T ⊂ P
    # the pieces cover P: random members of conv(P) lie in some piece (tried from the pieces whose
    # chamber x is nearest to: the same any() over every piece, with fewer LPs before the one found)
    rng = np.random.default_rng(0)
    for w in rng.dirichlet(np.ones(len(pts)), size=20):
        x = w @ pts
        nearest = sorted(range(len(f.pieces)), key=lambda k: np.max(chambers[k] @ x))
        assert any(in_hull(x, f.pieces[k]) for k in nearest)
    # P_LB ⊂ conv(P) ⊂ P_UB (vertex membership by LP)
    assert all(in_hull(v, pts) for v in f.lower_set())
    up = f.upper_set()
    assert all(in_hull(v, up) for v in pts)
    # P^LB ⊂ every folded piece ⊂ P^UB
    for folded in f.folded:
        assert all(in_hull(v, folded) for v in f.lower)
    assert all(in_hull(v, f.upper) for v in _distinct(f.folded))
    assert f.upper.shape[1] == m


@pytest.mark.parametrize("M,n_points", [(3, 2), (3, 3), (4, 2), (4, 3), (4, 5), (5, 3), (5, 6)])
def test_folding_of_random_class_iii_sets(M, n_points):
    rng = np.random.default_rng(100 * M + n_points)
    for _ in range(3 if n_points <= 3 else 1):  # full-dimensional polytopes: one each
        _check_folding(random_class_iii(rng, M, n_points))


def test_folding_of_the_paper_sets(repo_root):
    from leakage.experiments.robust_dp_hamming.figures import load_source_sets

    data = load_source_sets(repo_root / "workflow/data/robust-dp-hamming/source_sets.yaml")
    for name, n_pieces in (("class_III_a", 2), ("class_III_b", None), ("class_III_c", None)):
        f = folding(data["tables"][6][name])
        if n_pieces:
            assert len(f.pieces) == n_pieces
        _check_folding(data["tables"][6][name])


def test_folding_needs_class_iii():
    for pts in (TRIANGLE, ORDERED):
        with pytest.raises(ValueError, match="points must be a Class III source set"):
            class_iii_folding(pts)
