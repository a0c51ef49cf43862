"""leakage.design.optimal: optimal mechanisms by LP over the extreme rays of the privacy cone.

Expected values come from independent computations: Theorem 5 / Remark 3 closed forms, the
k-singular mechanism, randomized response, the compact LP of design_mechanism, an LP per column for
the sup of PML over the ball (ball_min_output_lp), and brute-force vertex enumeration.
"""

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leakage.design import (
    design_epsilon,
    design_mechanism,
    k_singular_mechanism,
    optimal_binary_mechanism,
    optimal_mechanism,
    optimal_mechanism_for_estimate,
)
from leakage.design.cone import Cone
from leakage.measures.dp import ldp_epsilon, randomized_response
from leakage.measures.information import entropy, mutual_information
from leakage.estimation.uncertainty import ball_min_output_lp


def sup_pml_lp(channel, prior, beta):
    """sup over the closed ball of PML, every row counted: an LP per column (independent of the closed form)."""
    low = ball_min_output_lp(channel, prior, beta)
    top = channel.max(axis=0)
    used = top > 0
    if np.any(low[used] <= 0):
        return math.inf
    return float(np.max(np.log(top[used] / low[used])))


def check_design(d, prior, eps, beta, privacy="pml"):
    ch = d.channel
    assert np.all(ch >= 0)
    assert ch.sum(axis=1) == pytest.approx(np.ones(len(prior)), abs=1e-12)
    assert d.value <= d.bound
    leak = ldp_epsilon(ch) if privacy == "ldp" else sup_pml_lp(ch, prior, beta)
    assert leak <= eps + 1e-8


# ----------------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("seed", range(3))
def test_theorem_5_binary(seed):
    rng = np.random.default_rng(seed)
    p1 = rng.uniform(0.5, 0.9)
    p = np.array([p1, 1 - p1])
    for beta in (0.0, 0.5 * p[1], 1.5 * p[1]):
        eps = rng.uniform(0.05, -np.log(p1 - beta / 2))
        expected = mutual_information(optimal_binary_mechanism(p, eps, beta), p)
        for method in ("enumerate", "colgen"):
            d = optimal_mechanism(p, eps, beta=beta, method=method, max_iterations=20)
            assert d.value == pytest.approx(expected, abs=1e-9)
            check_design(d, p, eps, beta)
            assert d.certified or method == "colgen"  # colgen bounds for beta > 0 may stay loose


def test_remark_3_randomized_response():
    for eps in (0.2, 1.0, 2.5):
        d = optimal_mechanism([0.5, 0.5], eps, beta=1.0)
        assert d.value == pytest.approx(mutual_information(randomized_response(2, eps), [0.5, 0.5]), abs=1e-10)


@pytest.mark.parametrize(("n", "k"), [(4, 2), (6, 2), (6, 3), (5, 1)])
def test_k_singular_optimal_for_uniform(n, k):
    p = np.full(n, 1.0 / n)
    d = optimal_mechanism(p, math.log(n / k), method="colgen")
    assert d.value == pytest.approx(mutual_information(k_singular_mechanism(n, k), p), abs=1e-9)
    assert d.certified


def test_ldp_binary_randomized_response_any_prior_and_eps():
    rng = np.random.default_rng(7)
    for _ in range(4):
        q = rng.uniform(0.05, 0.95)
        eps = rng.uniform(0.01, 4.0)
        d = optimal_mechanism([q, 1 - q], eps, privacy="ldp")
        assert d.value == pytest.approx(mutual_information(randomized_response(2, eps), [q, 1 - q]), abs=1e-10)


def test_ldp_uniform_large_eps_randomized_response():
    # [kairouz2016]: in the low-privacy regime randomized response is optimal for a uniform prior
    for n in (3, 4):
        p = np.full(n, 1.0 / n)
        d = optimal_mechanism(p, 6.0, privacy="ldp")
        assert d.value == pytest.approx(mutual_information(randomized_response(n, 6.0), p), abs=1e-9)


# ----------------------------------------------------------------------------- independent checks


@pytest.mark.parametrize("seed", range(2))
def test_enumeration_equals_column_generation(seed):
    rng = np.random.default_rng(seed)
    for n in (4, 6):
        p = rng.dirichlet(np.ones(n) * 2)
        for kw in ({"beta": 0.0}, {"beta": 0.8 * p.min()}, {"privacy": "ldp"}):
            a = optimal_mechanism(p, 1.0, method="enumerate", **kw)
            b = optimal_mechanism(p, 1.0, method="colgen", max_iterations=20, **kw)
            assert a.certified
            # the enumerated optimum lies between colgen's value and its certified bound
            assert b.value <= a.value + 1e-9 and a.value <= b.bound + 1e-9
            if "beta" in kw and kw["beta"] == 0.0:  # exact chord pricing: same optimum
                assert b.value == pytest.approx(a.value, abs=1e-7) and b.certified
            check_design(a, p, 1.0, kw.get("beta", 0.0), kw.get("privacy", "pml"))
            check_design(b, p, 1.0, kw.get("beta", 0.0), kw.get("privacy", "pml"))


@pytest.mark.parametrize("seed", range(3))
def test_linear_utility_matches_compact_lp(seed):
    rng = np.random.default_rng(10 + seed)
    n = 5
    p = rng.dirichlet(np.ones(n) * 4)
    idx = np.arange(n)
    for u in (np.eye(n), -np.abs(np.subtract.outer(idx, idx)).astype(float), rng.random((n, n))):
        for beta in (0.0, 1.5 * p.min()):
            ref = design_mechanism(p, 1.0, beta, u).expected_utility
            for method in ("enumerate", "colgen", "labels", "auto"):
                d = optimal_mechanism(p, 1.0, beta=beta, utility=u, method=method)
                assert d.value == pytest.approx(ref, abs=1e-7)
                assert d.channel.shape == (n, n)
                check_design(d, p, 1.0, beta)
                if method in ("labels", "auto"):
                    assert d.method == "labels" and d.certified


@pytest.mark.parametrize("seed", range(2))
def test_linear_labels_ldp_and_known_prior_equal_enumeration(seed):
    rng = np.random.default_rng(30 + seed)
    n = 6
    p = rng.dirichlet(np.ones(n) * 2)
    u = rng.normal(size=(n, n))
    for kw in ({"privacy": "ldp"}, {"beta": 0.0}, {"beta": 2.0 * p.min()}):
        for eps in (0.3, 1.5):
            a = optimal_mechanism(p, eps, utility=u, method="enumerate", **kw)
            b = optimal_mechanism(p, eps, utility=u, method="labels", **kw)
            assert a.certified and b.certified
            assert b.value == pytest.approx(a.value, abs=1e-9)
            check_design(b, p, eps, kw.get("beta", 0.0), kw.get("privacy", "pml"))


@pytest.mark.parametrize("name", ["identity", "abs"])
def test_linear_labels_n60_matches_compact_lp_certified_same_bytes(name):
    # the benchmark's small ball (beta = 1.5 min P) at a size where the compact LP is quick
    n = 60
    p = np.random.default_rng(n).dirichlet(np.ones(n) * 5)
    beta = 1.5 * p.min()
    idx = np.arange(n)
    u = np.eye(n) if name == "identity" else -np.abs(np.subtract.outer(idx, idx)).astype(float)
    ref = design_mechanism(p, 1.0, beta, u).expected_utility
    d = optimal_mechanism(p, 1.0, beta=beta, utility=u)
    assert d.method == "labels" and d.certified
    assert d.value == pytest.approx(ref, abs=1e-9 * (1 + abs(ref)))
    assert d.bound >= ref - 1e-9 * (1 + abs(ref))
    assert d.stats["labels"] < n  # few outputs are used, so the restricted LPs stay small
    check_design(d, p, 1.0, beta)
    again = optimal_mechanism(p, 1.0, beta=beta, utility=u)
    assert again.channel.tobytes() == d.channel.tobytes() and again.bound == d.bound


def test_linear_labels_budget_and_fallback(monkeypatch):
    import leakage.design.labels as labels

    n = 30
    p = np.random.default_rng(3).dirichlet(np.ones(n) * 5)
    beta = 1.5 * p.min()
    idx = np.arange(n)
    u = -np.abs(np.subtract.outer(idx, idx)).astype(float)
    full = optimal_mechanism(p, 1.0, beta=beta, utility=u)
    # one iteration: one label, the best constant channel; still private with a valid bound
    d = optimal_mechanism(p, 1.0, beta=beta, utility=u, max_iterations=1)
    assert d.value == pytest.approx(np.max(p @ u), abs=1e-12) and not d.certified
    assert d.value <= full.value + 1e-12 and full.value <= d.bound + 1e-9
    check_design(d, p, 1.0, beta)
    # HiGHS failing on the restricted LP: column generation takes over, still private and bounded
    monkeypatch.setattr(labels.LabelLP, "solve", lambda self: None)
    f = optimal_mechanism(p, 1.0, beta=beta, utility=u, max_iterations=30)
    assert f.method == "colgen" and f.value <= f.bound and full.value <= f.bound + 1e-9
    check_design(f, p, 1.0, beta)


def test_labels_method_needs_linear_utility_and_compact_cone():
    p = np.array([0.5, 0.3, 0.2])
    with pytest.raises(ValueError, match="labels"):
        optimal_mechanism(p, 1.0, method="labels")  # mutual information
    with pytest.raises(ValueError, match="labels"):
        optimal_mechanism(p, 1.0, beta=0.9, utility=np.eye(3), method="labels")  # beta > 2 min P
    d = optimal_mechanism(p, 1.0, beta=0.9, utility=np.eye(3))  # auto: the ray methods
    assert d.method in ("enumerate", "colgen") and d.certified


def test_large_beta_small_n_brute_force_vertices():
    # beta > 2 min P: worst priors run out of mass; enumeration over extreme priors (N <= 4)
    p = np.array([0.5, 0.3, 0.2])
    for beta in (0.5, 1.2):
        d = optimal_mechanism(p, 1.0, beta=beta)
        assert d.certified
        check_design(d, p, 1.0, beta)


# ----------------------------------------------------------------------------- structure


def test_monotone_in_eps_and_beta_and_orderings():
    p = np.array([0.45, 0.3, 0.15, 0.1])
    vals = [optimal_mechanism(p, e, beta=0.1, method="enumerate").value for e in (0.2, 0.5, 1.0, 2.0)]
    assert all(a <= b + 1e-12 for a, b in zip(vals, vals[1:]))
    vb = [optimal_mechanism(p, 1.0, beta=b, method="enumerate").value for b in (0.0, 0.1, 0.2)]
    assert all(a >= b - 1e-12 for a, b in zip(vb, vb[1:]))
    ldp = optimal_mechanism(p, 1.0, privacy="ldp").value
    assert vb[-1] >= ldp - 1e-12
    p3 = np.array([0.5, 0.3, 0.2])
    assert optimal_mechanism(p3, 1.0, beta=2.0).value == pytest.approx(
        optimal_mechanism(p3, 1.0, privacy="ldp").value, abs=1e-10)


def test_route_44_below_exact():
    p = np.array([0.45, 0.3, 0.15, 0.1])
    for beta in (0.05, 0.15):
        r = optimal_mechanism_for_estimate(p, 1.0, beta)
        exact = optimal_mechanism(p, 1.0, beta=beta, method="enumerate")
        assert r.value <= exact.value + 1e-12
        assert r.eps == pytest.approx(design_epsilon(1.0, beta))
        assert sup_pml_lp(r.channel, p, beta) <= 1.0 + 1e-8
    with pytest.raises(ValueError, match="eps'"):
        optimal_mechanism_for_estimate(p, 0.1, 1.5)


def test_identity_regime():
    p = np.array([0.5, 0.3, 0.2])
    for eps in (math.inf, -math.log(0.2) + 0.1):
        d = optimal_mechanism(p, eps)
        assert d.value == pytest.approx(entropy(p))
        assert d.certified
    d = optimal_mechanism(p, math.inf, utility=np.eye(3))
    assert d.value == pytest.approx(1.0)


@settings(max_examples=15, deadline=None)
@given(
    w=st.lists(st.floats(0.1, 1.0), min_size=2, max_size=4),
    eps=st.floats(0.0, 3.0),
    frac=st.floats(0.0, 1.0),
    ldp=st.booleans(),
)
def test_property_random_small(w, eps, frac, ldp):
    p = np.array(w) / np.sum(w)
    beta = 0.0 if ldp else 2.0 * frac
    priv = "ldp" if ldp else "pml"
    d = optimal_mechanism(p, eps, beta=beta, privacy=priv)
    check_design(d, p, eps, beta, priv)
    assert -1e-12 <= d.value <= entropy(p) + 1e-12


# ----------------------------------------------------------------------------- LDP: exact staircase pricing


@pytest.mark.parametrize("n", [8, 10])
def test_ldp_colgen_equals_enumeration_certified(n):
    p = np.random.default_rng(n).dirichlet(np.ones(n))
    for eps in (0.5, 2.0):
        a = optimal_mechanism(p, eps, privacy="ldp", method="enumerate")
        b = optimal_mechanism(p, eps, privacy="ldp", method="colgen")
        assert a.certified and b.certified
        assert b.value == pytest.approx(a.value, abs=1e-8)
        check_design(b, p, eps, 0.0, "ldp")


def test_ldp_certified_heavy_tail_n40():
    p = np.arange(1, 41, dtype=float) ** -2.5
    p /= p.sum()
    d = optimal_mechanism(p, 1.0, privacy="ldp")
    assert d.certified and d.method == "colgen"
    check_design(d, p, 1.0, 0.0, "ldp")


def _staircase_flat_bound(eps):
    """max over s in [0, 1] of the utility sum_x P_x v_x log v_x of a staircase column with high set of
    mass s (v = e^eps / D on it, 1 / D elsewhere, D = 1 + (e^eps - 1) s): every eps-LDP channel's MI is
    a mixture of such utilities, whatever the prior [kairouz2016]; maximised here by a bounded scalar search."""
    from scipy.optimize import minimize_scalar

    def u(s):
        d = 1 + math.expm1(eps) * s
        return s * math.exp(eps) / d * (eps - math.log(d)) - (1 - s) / d * math.log(d)

    res = minimize_scalar(lambda s: -u(s), bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12})
    return max(-res.fun, u(0.0), u(1.0))


@pytest.mark.parametrize("n", [42, 74])
def test_ldp_certified_on_the_heavy_tailed_family_with_default_budgets(n):
    """Dirichlet(alpha) priors (alpha in [0.2, 1], clipped at 2e-5) at eps drawn in [0.1, 4], default
    budgets: certified at tol 1e-6, exactly eps-LDP, between randomized response and the staircase
    bound, and the bound itself no larger than that bound (both independent of the engine)."""
    rng = np.random.default_rng([2026, n])
    for _ in range(3):
        p = np.maximum(rng.dirichlet(np.full(n, rng.uniform(0.2, 1.0))), 2e-5)
        p /= p.sum()
        eps = float(rng.uniform(0.1, 4.0))
        d = optimal_mechanism(p, eps, privacy="ldp", tol=1e-6)
        assert d.certified, (n, eps, d.gap, d.stats.get("limited_by"))
        check_design(d, p, eps, 0.0, "ldp")
        top = _staircase_flat_bound(eps)  # the bound may carry the engine's safety margin, nothing more
        assert mutual_information(randomized_response(n, eps), p) <= d.value <= top + 1e-12
        assert d.value <= d.bound <= top + 1e-9


def test_ldp_certified_on_a_large_grid_prior():
    """N = 64 letters of counts out of m = 48,842 records, far past enumeration, priced exactly by
    the count programmes (their exactness is tests/design/pricing/test_counts.py's): certified with
    default budgets. (The default iteration budget at the largest sizes is the N = 74 family's test
    above; Adult's 104-letter joint attribute is measured on the benchmarks page, design-stretch.)"""
    n = 64
    rng = np.random.default_rng(n)
    counts = rng.multinomial(48842 - n, rng.dirichlet(np.full(n, 0.4))) + 1
    p = counts / counts.sum()
    assert Cone.of(p, 1.0, 0.0, "ldp").grid is not None  # the count programmes price it
    d = optimal_mechanism(p, 1.0, privacy="ldp", tol=1e-6)
    assert d.certified, (d.gap, d.stats.get("limited_by"))
    check_design(d, p, 1.0, 0.0, "ldp")
    top = _staircase_flat_bound(1.0)
    assert mutual_information(randomized_response(n, 1.0), p) <= d.value <= top + 1e-12
    assert d.value <= d.bound <= top + 1e-9


# ----------------------------------------------------------------------------- guarantees by construction


def _route_and_ldp(p, eps, beta):
    vals = [optimal_mechanism(p, eps, privacy="ldp").value]
    if design_epsilon(eps, beta) >= 0:
        vals.append(optimal_mechanism_for_estimate(p, eps, beta).value)
    return vals


@settings(max_examples=8, deadline=None)
@given(
    w=st.lists(st.floats(0.02, 1.0), min_size=2, max_size=6),
    eps=st.floats(0.05, 3.0),
    frac=st.floats(0.01, 1.0),
)
def test_property_ball_at_least_route_44_and_ldp(w, eps, frac):
    p = np.array(w) / np.sum(w)
    beta = 2.0 * frac
    d = optimal_mechanism(p, eps, beta=beta, method="colgen", max_iterations=20)
    check_design(d, p, eps, beta)
    for v in _route_and_ldp(p, eps, beta):
        assert d.value >= v - 1e-9
        assert d.bound >= v - 1e-9


@pytest.mark.parametrize("n", [8, 12])
def test_ball_at_least_route_44_and_ldp_heavy_tail(n):
    p = np.arange(1, n + 1, dtype=float) ** -2.0
    p /= p.sum()
    beta = 4.0 * p.min()  # beyond 2 min P: no closed-form vertex family, heuristic pricing
    d = optimal_mechanism(p, 1.0, beta=beta, max_iterations=30)
    for v in _route_and_ldp(p, 1.0, beta):
        assert d.value >= v - 1e-9
    assert d.stats["ldp_value"] <= d.value + 1e-9 and d.stats["route44_value"] <= d.value + 1e-9
    check_design(d, p, 1.0, beta)


def test_beta_2_equals_ldp_colgen():
    p = np.random.default_rng(5).dirichlet(np.ones(7))
    ldp = optimal_mechanism(p, 1.0, privacy="ldp")
    d = optimal_mechanism(p, 1.0, beta=2.0, method="colgen", max_iterations=30)
    assert ldp.certified
    assert d.value == pytest.approx(ldp.value, abs=1e-8)


def test_warm_start_monotone_in_eps_and_beta():
    p = np.arange(1, 11, dtype=float) ** -1.5
    p /= p.sum()
    lo = optimal_mechanism(p, 0.5, beta=0.2, max_iterations=10)
    hi = optimal_mechanism(p, 1.0, beta=0.2, max_iterations=10, warm_start=[lo.channel])
    assert hi.value >= lo.value - 1e-9
    wide = optimal_mechanism(p, 1.0, beta=0.4, max_iterations=10)
    narrow = optimal_mechanism(p, 1.0, beta=0.2, max_iterations=10, warm_start=[wide.channel])
    assert narrow.value >= wide.value - 1e-9
    with pytest.raises(ValueError, match="warm_start"):
        optimal_mechanism(p, 0.5, beta=0.2, warm_start=[hi.channel])


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prior": [0.5, 0.6], "eps": 1.0}, "prior"),
        ({"prior": [1.0, 0.0], "eps": 1.0}, "prior"),
        ({"prior": [0.5, 0.5], "eps": -0.1}, "eps"),
        ({"prior": [0.5, 0.5], "eps": float("nan")}, "eps"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "beta": 2.5}, "beta"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "beta": -0.1}, "beta"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "beta": 0.1, "privacy": "ldp"}, "beta"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "utility": np.ones((2, 3))}, "utility"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "utility": np.array([[1.0, np.inf], [0, 1]])}, "utility"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "utility": "entropy"}, "utility"),
        ({"prior": [0.5, 0.5], "eps": 1.0, "privacy": "dp"}, "privacy"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        optimal_mechanism(kwargs.pop("prior"), kwargs.pop("eps"), **kwargs)


# ----------------------------------------------------------------------------- benchmarks


def test_bench_known_prior_n10(benchmark):
    """Column generation for N = 10 (known prior, MI); cheap when benchmarks are disabled."""
    p = np.random.default_rng(0).dirichlet(np.ones(10))
    d = benchmark(optimal_mechanism, p, 1.0, method="colgen")
    assert d.certified


def test_bench_ldp_heavy_tail_n42(benchmark):
    """Exact LDP column generation at N = 42 (staircase branch and bound); certified."""
    p = np.arange(1, 43, dtype=float) ** -2.5
    p /= p.sum()
    d = benchmark(optimal_mechanism, p, 1.0, privacy="ldp")
    assert d.certified


@pytest.mark.parametrize("seed", range(2))
def test_ball_colgen_certified_equals_enumeration_heavy_tail(seed):
    """beta > 2 min P at N = 9: exact pricing certifies column generation, same optimum as one LP over
    the enumerated vertex family."""
    p = np.arange(1, 10, dtype=float) ** -(1.5 + seed)
    p /= p.sum()
    beta = 8 * p.min()
    e = optimal_mechanism(p, 1.0, beta=beta, method="enumerate")
    c = optimal_mechanism(p, 1.0, beta=beta, method="colgen")
    assert c.certified and e.certified
    assert c.value == pytest.approx(e.value, abs=2e-9)


# ----------------------------------------------------------------------------- determinism, budgets, master LP


def test_same_ball_design_twice_same_bytes():
    # beta > 2 min P and N = 12 > the enumeration limit: column generation, heuristic pricing, B&B
    p = np.arange(1, 13, dtype=float) ** -1.5
    p /= p.sum()
    kw = dict(prior=p, eps=1.0, beta=6.0 * p.min(), tol=1e-6, max_iterations=15)
    a, b = optimal_mechanism(**kw), optimal_mechanism(**kw)
    assert a.method == "colgen"
    assert a.channel.tobytes() == b.channel.tobytes()
    assert (a.value, a.bound, a.iterations, a.columns_generated) == (b.value, b.bound, b.iterations, b.columns_generated)
    # the seeds passed explicitly (as the study does): the same bytes again, no internal seed solve
    seeds = [optimal_mechanism_for_estimate(p, 1.0, kw["beta"], tol=1e-6, max_iterations=15),
             optimal_mechanism(p, 1.0, privacy="ldp", tol=1e-6, max_iterations=15)]
    c = optimal_mechanism(**kw, warm_start=seeds)
    assert c.channel.tobytes() == a.channel.tobytes()


def test_tiny_budget_still_private_bounded_and_above_the_seeds():
    p = np.arange(1, 13, dtype=float) ** -1.5
    p /= p.sum()
    beta = 6.0 * p.min()
    d = optimal_mechanism(p, 1.0, beta=beta, max_iterations=1, max_nodes=1)
    check_design(d, p, 1.0, beta)  # exactly private (LP per column), value <= bound
    assert d.iterations == 1 and not d.certified
    # the seeds were solved with the same tiny budget; the result is at least each of them
    assert d.value >= d.stats["route44_value"] and d.value >= d.stats["ldp_value"]
    for seed in (optimal_mechanism(p, design_epsilon(1.0, beta), max_iterations=1, max_nodes=1),
                 optimal_mechanism(p, 1.0, privacy="ldp", max_iterations=1, max_nodes=1)):
        assert sup_pml_lp(seed.channel, p, beta) <= 1.0 + 1e-8  # a feasible seed for the ball
        assert d.value >= mutual_information(seed.channel, p)
    with pytest.raises(ValueError, match="max_iterations"):
        optimal_mechanism(p, 1.0, beta=beta, max_iterations=0)
    with pytest.raises(ValueError, match="max_nodes"):
        optimal_mechanism(p, 1.0, beta=beta, max_nodes=0)


@pytest.mark.parametrize("seed", range(3))
def test_default_budget_escalates_until_certified_explicit_budget_is_a_cap(monkeypatch, seed):
    """A pricing that runs out of nodes with nothing found gets the default budget times
    colgen.ESCALATION before the design stops; a caller's max_nodes is a hard cap. Shrunk default
    (4 nodes), LDP at N = 12: the escalated design certifies at the enumerated optimum, the capped
    one stops short, limited by the staircase search."""
    import leakage.design.colgen as colgen

    monkeypatch.setattr(colgen, "DEFAULT_NODES", 4)
    rng = np.random.default_rng([7, seed])
    p = np.maximum(rng.dirichlet(np.full(12, 0.5)), 1e-3)
    p /= p.sum()
    eps = float(rng.uniform(0.5, 3.0))
    exact = optimal_mechanism(p, eps, privacy="ldp", method="enumerate")
    capped = optimal_mechanism(p, eps, privacy="ldp", method="colgen", tol=1e-7, max_nodes=4)
    grown = optimal_mechanism(p, eps, privacy="ldp", method="colgen", tol=1e-7)
    assert not capped.certified and capped.stats["limited_by"] == "staircase"
    assert capped.value <= exact.value + 1e-12 <= capped.bound + 2e-12
    assert grown.certified and "limited_by" not in grown.stats
    assert grown.value == pytest.approx(exact.value, abs=1e-9) and grown.bound >= exact.value - 1e-12
    check_design(grown, p, eps, 0.0, "ldp")


def test_a_seed_is_returned_when_the_master_falls_short(monkeypatch):
    from leakage.design import colgen, optimal

    p = np.array([0.5, 0.3, 0.15, 0.05])
    beta = 0.2
    real = optimal.solve_mi

    def ones(cone, method, tol, budget, start):  # the ball's master returns the worst channel (MI 0)
        if cone.kind != "ball":
            return real(cone, method, tol, budget, start)
        return colgen.Solution(np.ones((4, 1)), 10.0, np.ones((4, 1)), 1, 0, {})

    monkeypatch.setattr(optimal, "solve_mi", ones)
    d = optimal_mechanism(p, 1.0, beta=beta)
    assert d.stats["seed_returned"]
    assert d.value == pytest.approx(max(d.stats["route44_value"], d.stats["ldp_value"]), abs=1e-12)
    check_design(d, p, 1.0, beta)


def test_a_seed_gets_a_share_of_the_deadline_never_all_of_it(monkeypatch):
    """Under max_seconds each seed design (LDP, route (44)) is given at most optimal.SEED_SHARE of the
    time left, so the ball's own column generation keeps the rest; without a deadline the seeds get
    the design's counted budgets, never escalated. The budgets are read where the seeds are solved
    (no clock is asserted)."""
    from leakage.design import optimal

    p = np.arange(1, 13, dtype=float) ** -1.5
    p /= p.sum()
    beta = 6.0 * p.min()
    real = optimal._design
    seen = []

    def spy(p_, e, b, priv, u, method, budget, tol, warm, t0):
        if b == 0.0:  # a seed (the ball's own design has beta > 0)
            seen.append((priv, budget, time.perf_counter()))
        return real(p_, e, b, priv, u, method, budget, tol, warm, t0)

    monkeypatch.setattr(optimal, "_design", spy)
    start = time.perf_counter()
    d = optimal_mechanism(p, 1.0, beta=beta, max_seconds=1000.0, max_iterations=3)
    assert [s_[0] for s_ in seen] == ["ldp", "pml"]
    for _, budget, when in seen:
        assert not budget.escalate and budget.max_iterations == 3 and budget.max_nodes is None
        # at most the share of what was left when the seed started (the design's deadline: start + 1000)
        assert budget.deadline <= when + optimal.SEED_SHARE * (start + 1000.0 - when) + 1e-6
        assert budget.deadline < start + 1000.0
    check_design(d, p, 1.0, beta)
    seen.clear()
    optimal_mechanism(p, 1.0, beta=beta, max_iterations=3)
    assert [(b_.deadline, b_.escalate) for _, b_, _ in seen] == [(None, False), (None, False)]


# education and occupation of UCI Adult (48842 records, '?' its own category): the category counts
# of the adult-design study's priors.csv (leakage.experiments.adult_design.stages.estimate_priors)
ADULT_COUNTS = {
    "education": [15784, 10878, 8025, 2657, 2061, 1812, 1601, 1389, 955, 834, 756, 657, 594, 509, 247, 83],
    "occupation": [6172, 6112, 6086, 5611, 5504, 4923, 3022, 2809, 2355, 2072, 1490, 1446, 983, 242, 15],
}


@pytest.mark.parametrize(
    "attribute, eps, beta",
    [("education", 0.13984334944969826, 0.03193514047569529),  # fig2's second eps, beta*(1e-6)
     ("occupation", 0.38244349, 0.03148759603982046),
     ("occupation", 0.27347992503440083, 0.03148759603982046)],
)
def test_route_44_small_eps_master_lp_does_not_fail(attribute, eps, beta):
    # the warm-started HiGHS master returned Unknown / Infeasible here (a feasible LP: the
    # all-ones column is in it); now a cold solve / scipy's simplex takes over
    p = np.array(ADULT_COUNTS[attribute], dtype=float)
    p /= p.sum()
    d = optimal_mechanism_for_estimate(p, eps, beta, tol=1e-6, max_iterations=100)
    check_design(d, p, design_epsilon(eps, beta), 0.0)
    assert sup_pml_lp(d.channel, p, beta) <= eps + 1e-8
    assert d.value > 0 and d.bound - d.value <= 1e-3


