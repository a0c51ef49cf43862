import numpy as np
import pytest

from leakage.validation import (
    check_channel,
    check_channel_prior,
    check_count,
    check_distribution,
    check_epsilon,
    check_labels,
    check_positive,
    check_probability,
)


def test_distribution_must_sum_to_one_and_names_parameter():
    with pytest.raises(ValueError, match=r"prior must sum to 1.*0\.9"):
        check_distribution([0.5, 0.4])


def test_distribution_negative_entry():
    with pytest.raises(ValueError, match=r"prior must have entries in \[0, 1\]"):
        check_distribution([1.5, -0.5])


def test_full_support_required():
    with pytest.raises(ValueError, match="full support"):
        check_distribution([1.0, 0.0], full_support=True)
    assert check_distribution([1.0, 0.0]).tolist() == [1.0, 0.0]


def test_non_finite_and_wrong_shape():
    with pytest.raises(ValueError, match="finite"):
        check_distribution([np.nan, 1.0])
    with pytest.raises(ValueError, match="1-dimensional"):
        check_distribution([[1.0]])


def test_channel_row_stochastic():
    with pytest.raises(ValueError, match=r"row 1 sums to 0\.9"):
        check_channel([[1.0, 0.0], [0.5, 0.4]])
    with pytest.raises(ValueError, match="row-stochastic"):
        check_channel([[1.2, -0.2], [0.5, 0.5]])


def test_channel_prior_shape_mismatch():
    with pytest.raises(ValueError, match="3 rows .* 2 entries"):
        check_channel_prior(np.eye(3), [0.5, 0.5])


@pytest.mark.parametrize("bad", [-0.1, float("nan")])
def test_epsilon_negative(bad):
    with pytest.raises(ValueError, match="eps must be"):
        check_epsilon(bad)


def test_ranges():
    assert check_epsilon(float("inf")) == float("inf")
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\]"):
        check_probability(0.0, "delta")
    assert check_probability(1.0, "delta") == 1.0
    with pytest.raises(ValueError, match=r"sigma must be in \(0, inf\)"):
        check_positive(0, "sigma")
    with pytest.raises(ValueError, match="m must be an integer >= 1"):
        check_count(0, "m")
    with pytest.raises(TypeError, match="m must be an integer"):
        check_count(2.5, "m")
    with pytest.raises(TypeError, match="eps must be a real number"):
        check_epsilon("abc")


def test_indices_and_counts():
    from leakage.validation import check_counts, check_indices

    assert check_indices([0, 2, 1], "reports", 3).dtype == np.int64
    assert check_indices(np.array([1.0, 2.0]), "reports", 3).tolist() == [1, 2]
    assert check_indices(np.array([1], dtype=np.uint8), "reports", 3).tolist() == [1]
    for bad, err in (([3], ValueError), ([-1], ValueError), ([0.5], TypeError), ([np.nan], ValueError),
                     ([], ValueError), ([[0]], ValueError), ("0", TypeError), ([True], TypeError),
                     ([None], TypeError), ([1e300], ValueError), (np.array([2**63], dtype=np.uint64), ValueError)):
        with pytest.raises(err, match="reports"):
            check_indices(bad, "reports", 3)
    assert check_counts([0, 3], "counts", 2).tolist() == [0, 3]
    assert check_counts([0, 0], "counts", positive_total=False).tolist() == [0, 0]
    for bad in ([0, 0], [-1, 2], [1, 2, 3], [2.0**61, 2.0**61, 2.0**61]):
        with pytest.raises(ValueError, match="counts"):
            check_counts(bad, "counts", None if len(bad) == 3 and bad[0] > 1 else 2)


def test_labels_are_finite_numbers_or_strings_of_one_kind():
    np.testing.assert_array_equal(check_labels(["a", "b", "a"], "x"), np.array(["a", "b", "a"]))
    np.testing.assert_array_equal(check_labels(np.array([1, 2.5], dtype=object), "x"), [1.0, 2.5])
    for bad, kind in (([1.0, np.nan], ValueError), ([1.0, np.inf], ValueError), (np.array([1, "a"], dtype=object), TypeError),
                      (np.array([True, 1], dtype=object), TypeError), ([], ValueError), ([[1, 2]], ValueError),
                      ("ab", TypeError), (3, TypeError)):
        with pytest.raises(kind, match="samples"):
            check_labels(bad, "samples")
