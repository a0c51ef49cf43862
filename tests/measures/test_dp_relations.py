"""leakage.measures.dp_relations: measures of a mechanism (eps-DP, KL-DP, MI-DP, (0, delta)-DP), the
bounds relating them, and input validation. Expected values come from closed forms written out
here or from brute force over neighbouring databases, never from the module itself."""

import itertools
import math

import numpy as np
import pytest

from leakage.measures.dp import randomized_response
from leakage.measures.information import total_variation
from leakage.measures.dp_relations import (
    check_mechanism,
    delta_dp_level,
    delta_from_mi_dp,
    delta_from_mi_dp_relaxed,
    dp_epsilon,
    dp_sandwich,
    erasure_channel,
    erasure_channel_capacity,
    kl_dp_bound,
    kl_dp_bound_relaxed,
    kl_dp_level,
    mi_dp_level,
    neighbour_channels,
)

LOG2 = math.log(2)


def h_nats(q):
    """Binary entropy written out here (independent of leakage.measures.information)."""
    return -sum(t * math.log(t) for t in (q, 1 - q) if t > 0)


def random_mechanism(rng, shape, out):
    """A random mechanism with full-support rows (finite eps-DP)."""
    m = rng.gamma(0.7, size=(*shape, out)) + 1e-3
    return m / m.sum(axis=-1, keepdims=True)


def neighbour_pairs(shape):
    """All ordered pairs of databases at Hamming distance one (Definition 3), by enumeration."""
    dbs = list(itertools.product(*(range(s) for s in shape)))
    for a in dbs:
        for b in dbs:
            if sum(u != v for u, v in zip(a, b)) == 1:
                yield a, b


# ----------------------------------------------------------------------------- channels


@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0, 3.0])
def test_randomized_response_is_exactly_eps_dp(eps):
    w = randomized_response(2, eps)
    keep = math.exp(eps) / (1 + math.exp(eps))
    np.testing.assert_allclose(w, [[keep, 1 - keep], [1 - keep, keep]], rtol=0, atol=1e-15)
    assert dp_epsilon(w) == pytest.approx(eps, abs=1e-12)


def test_randomized_response_infinite_eps_is_identity():
    np.testing.assert_array_equal(randomized_response(2, math.inf), np.eye(2))


@pytest.mark.parametrize("k,e", [(2, 0.0), (2, 0.3), (3, 0.5), (5, 0.9), (4, 1.0)])
def test_erasure_channel_capacity_example_3_3(k, e):
    # Example 3.3: C = (1 - e) log |X|, checked on the matrix built here against Blahut-Arimoto.
    w = np.zeros((k, k + 1))
    w[np.arange(k), np.arange(k)] = 1 - e
    w[:, -1] = e
    np.testing.assert_allclose(erasure_channel(k, e), w)
    assert mi_dp_level(w) == pytest.approx((1 - e) * math.log(k), abs=1e-9)
    assert erasure_channel_capacity(k, e) == pytest.approx((1 - e) * math.log(k), abs=1e-15)
    # (0, delta)-DP level of the erasure channel: any two rows differ in 2 (1 - e) mass, TV = 1 - e.
    assert delta_dp_level(w) == pytest.approx(1 - e, abs=1e-15)
    # Not eps-DP for any finite eps unless everything is erased.
    assert dp_epsilon(w) == (0.0 if e == 1.0 else math.inf)


def test_total_variation_is_max_over_events():
    rng = np.random.default_rng(1)
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        best = max(
            abs(p[list(s)].sum() - q[list(s)].sum())
            for r in range(5)
            for s in itertools.combinations(range(4), r)
        )
        assert total_variation(p, q) == pytest.approx(best, abs=1e-14)


# ----------------------------------------------------------------------------- measures, n >= 1


def test_single_entry_mi_dp_is_bsc_capacity():
    for q in (0.01, 0.2, 0.45):
        w = np.array([[1 - q, q], [q, 1 - q]])
        assert mi_dp_level(w) == pytest.approx(LOG2 - h_nats(q), abs=1e-10)


def test_measures_over_neighbours_match_brute_force():
    rng = np.random.default_rng(7)
    for shape in [(3,), (2, 2), (2, 3), (2, 2, 2)]:
        m = random_mechanism(rng, shape, 3)
        pairs = list(neighbour_pairs(shape))
        eps = max(np.max(np.log(m[a] / m[b])) for a, b in pairs)
        kl = max(np.sum(m[a] * np.log(m[a] / m[b])) for a, b in pairs)
        tv = max(0.5 * np.abs(m[a] - m[b]).sum() for a, b in pairs)
        assert dp_epsilon(m) == pytest.approx(eps, rel=1e-12)
        assert kl_dp_level(m) == pytest.approx(kl, rel=1e-12)
        assert delta_dp_level(m) == pytest.approx(tv, rel=1e-12)


def test_neighbour_channels_cover_every_entry_and_context():
    m = random_mechanism(np.random.default_rng(0), (2, 3), 2)
    got = list(neighbour_channels(m))
    # entry 0 varies with 3 contexts of entry 1; entry 1 varies with 2 contexts of entry 0
    assert [(i, x) for i, x, _ in got] == [(0, (0,)), (0, (1,)), (0, (2,)), (1, (0,)), (1, (1,))]
    np.testing.assert_array_equal(got[1][2], m[:, 1, :])
    np.testing.assert_array_equal(got[4][2], m[1, :, :])


def conditional_mi(joint_x, mech, i):
    """I(X_i; Y | X^{-i}) of a two-entry database with joint P(x_1, x_2), written out directly."""
    joint = joint_x[..., None] * mech  # P(x1, x2, y)
    if i == 1:
        joint = joint.transpose(1, 0, 2)  # make the conditioning entry the second axis
    # now joint[a, c, y] with a = X_i, c = X^{-i}
    p_c = joint.sum(axis=(0, 2))
    p_ac = joint.sum(axis=2)
    p_cy = joint.sum(axis=0)
    total = 0.0
    for a, c, y in itertools.product(*(range(s) for s in joint.shape)):
        if joint[a, c, y] > 0:
            total += joint[a, c, y] * math.log(joint[a, c, y] * p_c[c] / (p_ac[a, c] * p_cy[c, y]))
    return total


def test_definition_2_supremum_over_database_distributions():
    """Definition 2 on a two-entry binary database: numerically maximising max_i I(X_i; Y | X^{-i})
    over all (correlated) database distributions reaches, and never exceeds, mi_dp_level."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(3)
    m = random_mechanism(rng, (2, 2), 3)
    level = mi_dp_level(m)
    best = 0.0
    for i in (0, 1):
        for _ in range(6):
            def neg(z):
                p = np.exp(z - z.max())
                return -conditional_mi((p / p.sum()).reshape(2, 2), m, i)

            res = minimize(neg, rng.normal(size=4) * 2, method="Nelder-Mead",
                           options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 4000})
            best = max(best, -res.fun)
            assert -res.fun <= level + 1e-9
    assert best == pytest.approx(level, abs=1e-5)


def test_xor_mechanism_conditioning_matters():
    """Y = X_1 xor X_2: independent uniform entries give I(X_1; Y) = 0, but the strong adversary who
    knows X_2 learns X_1 fully, so the MI-DP level is log 2 (the point of Definition 2)."""
    m = np.zeros((2, 2, 2))
    for a, b in itertools.product(range(2), range(2)):
        m[a, b, a ^ b] = 1.0
    assert mi_dp_level(m) == pytest.approx(LOG2, abs=1e-10)
    assert conditional_mi(np.full((2, 2), 0.25), m, 0) == pytest.approx(LOG2)


def test_mechanism_ignoring_an_entry():
    """If Y depends only on entry 2 through a BSC, the MI-DP level is that BSC's capacity."""
    q = 0.1
    m = np.empty((3, 2, 2))
    m[:, 0, :] = [1 - q, q]
    m[:, 1, :] = [q, 1 - q]
    assert mi_dp_level(m) == pytest.approx(LOG2 - h_nats(q), abs=1e-10)


# ----------------------------------------------------------------------------- Property 1, Lemma 1


@pytest.mark.parametrize("eps", [0.0, 1e-4, 0.3, 1.0, 2.5, 10.0])
def test_property_1_bound_closed_forms(eps):
    x = math.expm1(eps)  # e^eps - 1 without cancellation
    assert kl_dp_bound(eps) == pytest.approx(eps * x / (x + 2), rel=1e-13, abs=1e-300)
    assert kl_dp_bound(eps) <= kl_dp_bound_relaxed(eps) + 1e-15
    assert kl_dp_bound_relaxed(eps) == pytest.approx(eps**2 / 2, rel=1e-15)
    assert kl_dp_bound(eps) <= eps


def test_property_1_tight_on_randomized_response():
    # KL between the two rows of RR, written out: (2p - 1) eps with p = e^eps / (1 + e^eps).
    for eps in np.linspace(0.05, 5, 40):
        p = math.exp(eps) / (1 + math.exp(eps))
        assert kl_dp_level(randomized_response(2, eps)) == pytest.approx((2 * p - 1) * eps, rel=1e-12)


@pytest.mark.parametrize("shape,out", [((2,), 2), ((3,), 4), ((5,), 3), ((2, 2), 3), ((3, 2), 2)])
def test_lemma_1_on_random_eps_dp_mechanisms(shape, out):
    """Lemma 1 (eqs. 21-23): every eps-DP mechanism has max KL over neighbours <= eps tanh(eps/2)
    and MI-DP level (capacity) <= that."""
    rng = np.random.default_rng(hash((shape, out)) % 2**32)
    for _ in range(15):
        m = random_mechanism(rng, shape, out)
        pairs = list(neighbour_pairs(shape))
        eps = max(np.max(np.log(m[a] / m[b])) for a, b in pairs)
        bound = eps * math.tanh(eps / 2)
        kl = max(np.sum(m[a] * np.log(m[a] / m[b])) for a, b in pairs)
        assert kl <= bound + 1e-12
        # Blahut-Arimoto stops when its upper and lower bounds on the capacity are within tol, so
        # capacity <= returned value + tol: check that upper bound.
        tol = 1e-9
        assert mi_dp_level(m, tol=tol) + tol <= kl + 1e-12
        s = dp_sandwich(m)
        assert s.holds()
        assert s.eps_dp == pytest.approx(eps) and s.kl_bound == pytest.approx(bound)


def test_sandwich_reports_a_violation():
    from leakage.measures.dp_relations import DPSandwich

    assert not DPSandwich(eps_dp=1.0, kl_bound=0.46, kl_dp=0.5, mi_dp=0.1).holds()


# ----------------------------------------------------------------------------- Lemma 2


def h_inverse_bisection(target):
    lo, hi = 0.0, 0.5
    for _ in range(200):
        mid = (lo + hi) / 2
        if h_nats(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@pytest.mark.parametrize("eps_mi", [1e-6, 0.01, 0.1, 0.3, 0.5, 0.69, LOG2])
def test_lemma_2_tight_curve_against_bisection(eps_mi):
    expected = 1 - 2 * h_inverse_bisection(LOG2 - eps_mi)
    assert delta_from_mi_dp(eps_mi) == pytest.approx(expected, abs=1e-12)
    assert delta_from_mi_dp(eps_mi) <= delta_from_mi_dp_relaxed(eps_mi) + 1e-12
    assert delta_from_mi_dp_relaxed(eps_mi) == pytest.approx(math.sqrt(2 * eps_mi), rel=1e-15)


def test_lemma_2_end_points():
    assert delta_from_mi_dp(LOG2) == pytest.approx(1.0, abs=1e-12)
    # small eps_mi: capacity of a BSC with TV d is ~ d^2 / 2, so delta ~ sqrt(2 eps_mi)
    assert delta_from_mi_dp(1e-8) == pytest.approx(math.sqrt(2e-8), rel=1e-3)


def test_lemma_2_holds_on_random_channels_and_is_achieved_by_the_bsc():
    """Appendix C: for every binary-input channel, TV(rows) <= 1 - 2 h^{-1}(log 2 - C); equality for
    the BSC. Random channels, capacity by Blahut-Arimoto."""
    rng = np.random.default_rng(11)
    for out in (2, 3, 5):
        for _ in range(40):
            w = rng.dirichlet(np.full(out, 0.5), size=2)
            tol = 1e-10
            c = mi_dp_level(w, tol=tol) + tol  # an upper bound on the capacity; delta increases in it
            if c > LOG2:
                continue
            tv = 0.5 * np.abs(w[0] - w[1]).sum()
            assert tv <= delta_from_mi_dp(c) + 1e-7
            assert tv <= math.sqrt(2 * c) + 1e-7
    for q in (0.01, 0.1, 0.3, 0.49):
        bsc = np.array([[1 - q, q], [q, 1 - q]])
        assert delta_from_mi_dp(mi_dp_level(bsc)) == pytest.approx(1 - 2 * q, abs=1e-8)


def test_lemma_2_on_erasure_channels():
    for e in (0.2, 0.5, 0.9):
        c = erasure_channel_capacity(2, e)
        assert delta_dp_level(erasure_channel(2, e)) <= delta_from_mi_dp(c)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("fn", [kl_dp_bound, kl_dp_bound_relaxed, lambda eps: randomized_response(2, eps)])
def test_negative_eps_rejected(fn):
    with pytest.raises(ValueError, match=r"eps(_ldp)? must be in \[0"):
        fn(-0.1)


@pytest.mark.parametrize("bad", [0.0, -0.2, 0.7, 5.0, math.nan])
def test_eps_mi_outside_range_rejected_for_tight_form(bad):
    with pytest.raises(ValueError, match=r"eps_mi must be .*(0, 0.693147\]|NaN)"):
        delta_from_mi_dp(bad)


def test_eps_mi_negative_rejected_for_relaxed_form():
    with pytest.raises(ValueError, match=r"eps_mi must be in \[0"):
        delta_from_mi_dp_relaxed(-1e-3)


@pytest.mark.parametrize("fn", [mi_dp_level, kl_dp_level, dp_epsilon, delta_dp_level, dp_sandwich])
def test_non_stochastic_mechanism_rejected(fn):
    with pytest.raises(ValueError, match="channel must be row-stochastic"):
        fn([[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(ValueError, match="channel must be row-stochastic"):
        fn(np.full((2, 2, 2), 0.25))
    with pytest.raises(ValueError, match="channel must be row-stochastic: entries in"):
        fn([[1.5, -0.5], [0.5, 0.5]])


def test_mechanism_shape_rejected():
    with pytest.raises(ValueError, match="channel must have at least 2 dimensions"):
        check_mechanism([0.5, 0.5])


def test_erasure_parameters_rejected():
    with pytest.raises(ValueError, match=r"erasure_prob must be in \[0, 1\]"):
        erasure_channel(2, 1.5)
    with pytest.raises(ValueError, match="alphabet_size must be an integer >= 2"):
        erasure_channel_capacity(1, 0.5)


def test_ragged_mechanism_rejected():
    with pytest.raises(TypeError, match="channel must be an array of real numbers"):
        check_mechanism([[0.5, 0.5], [1.0]])
