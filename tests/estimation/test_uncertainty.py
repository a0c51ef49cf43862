"""leakage.estimation.uncertainty (and the Weissman pieces of leakage.estimation.concentration): [empirical-pml], Sections II-IV."""

import itertools

import numpy as np
import pytest
from paper_values import EXAMPLE1_MECHANISM, EXAMPLE1_PRIOR

from leakage.estimation.concentration import (
    beta_star,
    delta_for_beta,
    weissman_kappa,
    weissman_phi,
    weissman_radius,
    weissman_tail_bound,
)
from leakage.measures.pml import epsilon_min
from leakage.estimation.uncertainty import (
    ball_min_output,
    ball_min_output_lp,
    delta_min,
    epsilon_prime,
    is_private_for_set,
    is_private_on_ball,
    leakage_capacity_bound,
    leakage_sensitivity_bound,
    leakage_sensitivity_on_ball,
    lipschitz_bound,
    local_leakage_capacity,
    local_leakage_capacity_on_ball,
    output_divergence_sup_on_ball,
    privacy_region,
    privacy_region_thresholds,
    radius_for_leakage,
)

EXAMPLE1 = EXAMPLE1_MECHANISM
PRIOR1 = EXAMPLE1_PRIOR


def random_in_ball(prior, beta, count, rng, *, extreme=True):
    """Priors Q with ||Q - P||_1 <= beta in the open simplex: random directions plus, with
    ``extreme``, the two-point moves of Appendix B (beta/2 from one row to another)."""
    n = prior.size
    w = rng.standard_normal((count, n))
    w -= w.mean(axis=1, keepdims=True)
    w /= np.abs(w).sum(axis=1, keepdims=True)
    qs = [prior + rng.uniform(0, beta, (count, 1)) * w]
    if extreme:
        for a, b in itertools.permutations(range(n), 2):
            q = prior.copy()
            t = min(beta / 2, prior[a] * (1 - 1e-12))
            q[a] -= t
            q[b] += t
            qs.append(q[None, :])
    q = np.vstack(qs)
    return q[np.all(q > 0, axis=1)]


def random_channel(rng, n, k, zeros=0):
    c = rng.dirichlet(np.ones(k), size=n)
    for j in range(k):
        rows = rng.choice(n, size=zeros, replace=False)
        c[rows, j] = 0.0
    bad = c.sum(axis=1) == 0
    c[bad] = 1.0 / k
    return c / c.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------ Example 1, privacy regions


def test_example_1_mechanism_is_log_9_8_pml_and_in_region_1():
    # Example 1 / (34): every column has max_x P(y|x) / P_Y(y) = 9/8 (by hand: 0.45/0.4, 0.225/0.2)
    p_y = PRIOR1 @ EXAMPLE1
    assert p_y == pytest.approx([0.4, 0.2, 0.2, 0.2])
    assert np.log(EXAMPLE1.max(axis=0) / p_y) == pytest.approx([np.log(9 / 8)] * 4)
    assert is_private_for_set(EXAMPLE1, [PRIOR1], np.log(9 / 8))
    assert not is_private_for_set(EXAMPLE1, [PRIOR1], np.log(9 / 8) - 1e-6)
    assert privacy_region(PRIOR1, np.log(9 / 8)) == 1


def test_privacy_region_thresholds_by_hand():
    # Definition 4 with P sorted decreasingly: eps_k = -log(sum of the N-k largest)
    t = privacy_region_thresholds([0.2, 0.4, 0.2, 0.2])
    assert t[:4] == pytest.approx([0.0, -np.log(0.8), -np.log(0.6), -np.log(0.4)])
    assert t[4] == np.inf
    assert privacy_region(PRIOR1, 0.0) == 1
    assert privacy_region(PRIOR1, -np.log(0.8)) == 2
    assert privacy_region(PRIOR1, 5.0) == 4


def test_lemma_2_zeros_per_column_bounded_by_region():
    # [15, Lemma 2]: an eps-PML mechanism with eps in region k has at most k-1 zeros per column
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = rng.integers(2, 6)
        c = random_channel(rng, n, n, zeros=rng.integers(0, n))
        p = rng.dirichlet(np.ones(n))
        k = privacy_region(p, epsilon_min(c, p))
        zeros = (c == 0).sum(axis=0)[c.max(axis=0) > 0]
        assert zeros.max() <= k - 1


# ------------------------------------------------------------------ exact sup on l1-balls


@pytest.mark.parametrize("seed", range(6))
def test_ball_minimum_closed_form_lp_and_sampling_agree(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(2, 7), rng.integers(2, 6)
    c = random_channel(rng, n, k, zeros=int(rng.integers(0, 2)))
    p = rng.dirichlet(np.ones(n) * 2)
    for beta in (0.5 * p.min(), 1.9 * p.min(), rng.uniform(0, 2)):  # also beyond 2 p_min
        closed = ball_min_output(c, p, beta)
        lp = ball_min_output_lp(c, p, beta)
        assert closed == pytest.approx(lp, abs=1e-9)
        qs = random_in_ball(p, beta, 400, rng)
        assert np.all(qs @ c >= closed[None, :] - 1e-12)  # sampling never below the minimum
        sup = output_divergence_sup_on_ball(c, p, beta)
        assert sup == pytest.approx(output_divergence_sup_on_ball(c, p, beta, method="lp"), abs=1e-7)
        p_y = p @ c
        sampled = np.log(np.max(p_y[None, :] / (qs @ c), axis=1))
        assert sampled.max() <= sup + 1e-9  # sampling never above the exact supremum


@pytest.mark.parametrize("beta", [1e-9, 2e-8, 3e-7])
def test_ball_minimum_lp_exact_at_tiny_radii(beta):
    # A constant column keeps Q_Y(y) = 1 on every ball; the LP once returned 1 - beta there, because
    # HiGHS's default feasibility tolerance (1e-7) let sum Q drift by more than beta (found by CI's
    # Hypothesis run: a constant design at eps = 0 read as leaking 2e-8). Mixed columns agree too.
    rng = np.random.default_rng(11)
    for n in (2, 3, 6):
        c = np.column_stack([np.ones(n), np.zeros(n)])
        p = rng.dirichlet(np.ones(n))
        assert ball_min_output_lp(c, p, beta)[0] == pytest.approx(1.0, abs=1e-12)
        c = random_channel(rng, n, 3)
        assert ball_min_output_lp(c, p, beta) == pytest.approx(ball_min_output(c, p, beta), abs=1e-12)


def test_ball_minimum_below_two_p_min_is_appendix_b_formula():
    # beta < 2 p_min: min Q_Y(y) = P_Y(y) - beta/2 (max_x c - min_x c)  (eq. (85) with equality)
    rng = np.random.default_rng(7)
    c = random_channel(rng, 5, 4)
    p = rng.dirichlet(np.ones(5) * 3)
    beta = 1.5 * p.min()
    expected = p @ c - beta / 2 * (c.max(axis=0) - c.min(axis=0))
    assert ball_min_output(c, p, beta) == pytest.approx(expected, abs=1e-15)


# ------------------------------------------------------------------ Theorems 3, 4, Corollary 2


@pytest.mark.parametrize("seed", range(5))
def test_theorem_4_never_violated(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        n = rng.integers(2, 7)
        c = random_channel(rng, n, rng.integers(2, 7), zeros=int(rng.integers(0, n)))
        p = rng.dirichlet(np.ones(n) * rng.uniform(0.5, 5))
        eps = epsilon_min(c, p)
        beta = rng.uniform(0, 2 * p.min())
        bound = leakage_sensitivity_bound(p, eps, beta)
        assert output_divergence_sup_on_ball(c, p, beta) <= bound + 1e-9
        assert leakage_sensitivity_on_ball(c, p, beta) <= bound + 1e-9
        # Remark 2: S <= sup D_inf(P_Y || Q_Y)
        assert leakage_sensitivity_on_ball(c, p, beta) <= output_divergence_sup_on_ball(c, p, beta) + 1e-12


def test_theorem_4_equality_first_region_extremal_example_1():
    # k = 1 and P_{Y|X} extremal (Example 1): equality; by hand -log(1 - beta/2 (9/8 - 1)/0.2)
    for beta in np.linspace(0.01, 0.39, 9):
        by_hand = -np.log(1 - beta / 2 * (1 / 8) / 0.2)
        assert leakage_sensitivity_bound(PRIOR1, np.log(9 / 8), beta) == pytest.approx(by_hand)
        assert output_divergence_sup_on_ball(EXAMPLE1, PRIOR1, beta, method="lp") == pytest.approx(by_hand)
        # extremal: every column attains eps, so the sensitivity (26) equals the sup of D_inf
        assert leakage_sensitivity_on_ball(EXAMPLE1, PRIOR1, beta) == pytest.approx(by_hand)


def test_theorem_4_equality_when_every_column_has_a_zero():
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(100):
        n = rng.integers(3, 7)
        c = rng.dirichlet(np.ones(n), size=n)
        c[rng.permutation(n), np.arange(n)] = 0.0  # one zero per column, in distinct rows
        c /= c.sum(axis=1, keepdims=True)
        p = rng.dirichlet(np.ones(n) * 3)
        eps = epsilon_min(c, p)
        assert privacy_region(p, eps) > 1  # zeros are impossible in region 1
        beta = rng.uniform(0, 2 * p.min())
        exact = output_divergence_sup_on_ball(c, p, beta)
        assert exact == pytest.approx(-np.log(1 - beta * np.exp(eps) / 2), rel=1e-9, abs=1e-12)
        assert exact == pytest.approx(leakage_sensitivity_bound(p, eps, beta), rel=1e-9, abs=1e-12)
        hits += 1
    assert hits == 100


def test_theorem_3_lipschitz_bound():
    rng = np.random.default_rng(5)
    for _ in range(100):
        n = rng.integers(2, 6)
        c = random_channel(rng, n, rng.integers(2, 6))
        p = rng.dirichlet(np.ones(n) * 2)
        beta = rng.uniform(0, 2 * p.min())
        cap = local_leakage_capacity_on_ball(c, p, beta)
        for q in random_in_ball(p, beta, 20, rng, extreme=False):
            d = np.abs(p - q).sum()
            assert abs(epsilon_min(c, p) - epsilon_min(c, q)) <= lipschitz_bound(cap, d) + 1e-12


def test_capacity_on_ball_matches_finite_set_of_extreme_points_and_corollary_2():
    rng = np.random.default_rng(9)
    for _ in range(50):
        n = rng.integers(2, 6)
        c = random_channel(rng, n, rng.integers(2, 6))
        p = rng.dirichlet(np.ones(n) * 2)
        eps = epsilon_min(c, p)
        beta = rng.uniform(0, 2 * np.exp(-eps)) * 0.999
        beta = min(beta, 2 * p.min() * 0.999)
        # Corollary 1: the vertices of B_beta(P) (two-point moves) give the capacity
        verts = random_in_ball(p, beta, 0, rng)
        assert local_leakage_capacity(c, verts) == pytest.approx(local_leakage_capacity_on_ball(c, p, beta), abs=1e-12)
        # Corollary 2 (33)
        assert local_leakage_capacity_on_ball(c, p, beta) <= leakage_capacity_bound(eps, beta) + 1e-9
        assert is_private_on_ball(c, p, beta, leakage_capacity_bound(eps, beta))


# ------------------------------------------------------------------ estimation trade-off


def test_epsilon_prime_and_delta_min_are_eq_38_and_39():
    n, m, delta, eps = 20, 10_000, 1e-5, np.log(5)
    b = np.sqrt(2 / m * (np.log(2.0**n - 2) - np.log(delta)))  # (37) by hand
    assert epsilon_prime(eps, delta, m, n) == pytest.approx(eps + np.log(1 / (1 - b * np.exp(eps) / 2)))
    for e2 in (eps + 0.05, eps + 0.2, eps + 1.0):
        by_hand = (2.0**n - 2) * np.exp(-2 * m * (np.exp(-eps) - np.exp(-e2)) ** 2)
        assert delta_min(eps, e2, m, n) == pytest.approx(min(1.0, by_hand), rel=1e-9)
    # Corollary 3 inverts (38): delta_min(eps'(delta)) = delta
    assert delta_min(eps, epsilon_prime(eps, delta, m, n), m, n) == pytest.approx(delta, rel=1e-8)
    assert radius_for_leakage(eps, leakage_capacity_bound(eps, 0.1)) == pytest.approx(0.1)


def test_weissman_phi_kappa_and_radius():
    assert weissman_phi(0.5) == 2.0
    assert weissman_phi(0.5 - 1e-7) == pytest.approx(2.0, abs=1e-10)
    assert weissman_phi(0.0) == np.inf
    ps = np.linspace(0.01, 0.5, 200)
    phis = [weissman_phi(q) for q in ps]
    assert np.all(np.diff(phis) < 0)  # decreasing on (0, 1/2)
    assert weissman_phi(0.2) == pytest.approx(np.log(4) / 0.6)
    rng = np.random.default_rng(2)
    for n in (2, 3, 5, 9, 12):
        p = rng.dirichlet(np.ones(n))
        brute = max(
            min(p[list(a)].sum(), 1 - p[list(a)].sum())
            for r in range(n + 1)
            for a in itertools.combinations(range(n), r)
        )
        assert weissman_kappa(p) == pytest.approx(brute, abs=1e-12)
    # (20) inverts (17); phi = 2 gives (21) = beta* and delta_for_beta
    for phi in (2.0, 2.5, 7.0):
        b = weissman_radius(1e-4, 500, 6, phi=phi)
        assert weissman_tail_bound(b, 500, 6, phi=phi) == pytest.approx(1e-4)
    assert weissman_radius(1e-4, 500, 6) == pytest.approx(beta_star(1e-4, 500, 6))
    assert min(1.0, weissman_tail_bound(0.3, 100, 4)) == pytest.approx(delta_for_beta(0.3, 100, 4))


def test_weissman_bound_holds_in_simulation():
    rng = np.random.default_rng(4)
    p = np.array([0.5, 0.3, 0.2])
    m, beta = 200, 0.2
    counts = rng.multinomial(m, p, size=20_000)
    freq = np.mean(np.abs(counts / m - p).sum(axis=1) >= beta)
    phi = weissman_phi(weissman_kappa(p))
    assert freq <= weissman_tail_bound(beta, m, 3, phi=phi)


# ------------------------------------------------------------------ bad input


def test_bad_input_names_parameter_and_range():
    with pytest.raises(ValueError, match="full support"):
        leakage_sensitivity_bound([0.5, 0.5, 0.0], 0.1, 0.1)
    with pytest.raises(ValueError, match="full support"):
        output_divergence_sup_on_ball(EXAMPLE1, [0.5, 0.5, 0.0, 0.0], 0.1)
    with pytest.raises(ValueError, match=r"eps must be in \[0"):
        leakage_sensitivity_bound(PRIOR1, -0.1, 0.1)
    with pytest.raises(ValueError, match=r"beta must be in \[0, 0.4\)"):
        leakage_sensitivity_bound(PRIOR1, 0.1, 0.4)
    with pytest.raises(ValueError, match="eps_max"):
        leakage_sensitivity_bound(PRIOR1, 2.0, 0.1)
    with pytest.raises(ValueError, match="beta must be in"):
        leakage_capacity_bound(np.log(5), 0.4)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\]"):
        epsilon_prime(1.0, 0.0, 100, 2)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\]"):
        weissman_radius(1.5, 100, 2)
    with pytest.raises(ValueError, match="m must be an integer >= 1"):
        delta_min(1.0, 1.5, 0, 2)
    with pytest.raises(ValueError, match="row-stochastic"):
        local_leakage_capacity_on_ball([[0.5, 0.6], [0.5, 0.5]], [0.5, 0.5], 0.1)
    with pytest.raises(ValueError, match="beta\\*\\(delta\\) e\\^eps < 2"):
        epsilon_prime(np.log(10), 1e-5, 100, 20)
    with pytest.raises(ValueError, match="eps_prime must be in"):
        radius_for_leakage(1.0, 0.5)
    with pytest.raises(ValueError, match="method"):
        output_divergence_sup_on_ball(EXAMPLE1, PRIOR1, 0.1, method="grid")
