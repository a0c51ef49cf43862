"""leakage.design.frequency_master: the SOCP master of the estimation design against cvxpy's
tr_inv over the same columns, and the exact row sums of the assembled channel."""

import cvxpy as cp
import numpy as np
import pytest

from leakage.design.cone import Cone
from leakage.design.frequency_master import assemble, channel_of, solve_master
from leakage.design.vertices import enumerate_vertices
from leakage.estimation.frequency import frequency_mse


@pytest.mark.parametrize("seed", range(8))
def test_master_matches_cvxpy_and_weak_duality(seed):
    rng = np.random.default_rng(seed)
    n = 2 + seed % 4
    p = rng.dirichlet(np.ones(n))
    cone = Cone.of(p, float(rng.uniform(0.3, 2.5)), 0.0, "ldp" if seed % 2 else "pml")
    cols = cone.polish(enumerate_vertices(cone))
    theta = cp.Variable(cols.shape[1], nonneg=True)
    j = sum(theta[k] * np.outer(cols[:, k], cols[:, k]) for k in range(cols.shape[1]))
    prob = cp.Problem(cp.Minimize(cp.tr_inv(j)), [cols @ theta == 1])
    prob.solve(solver="SCS", eps=1e-9)  # a different solver from the master's Clarabel
    ms = solve_master(cols)
    ch = channel_of(cols, ms.theta)
    assert ch.sum(axis=1) == pytest.approx(np.ones(n), abs=1e-12)
    value = frequency_mse(ch, p) + 1.0
    # weak duality at the master's own dual point, over its own columns (U = max over them)
    u = float(np.max(np.sum((ms.Z.T @ cols) ** 2, axis=0) + ms.w @ cols))
    dual = 2 * np.trace(ms.Z) + ms.w.sum() - u
    assert dual <= value + 1e-9 * value
    assert value == pytest.approx(prob.value, rel=1e-5)
    assert dual == pytest.approx(prob.value, rel=1e-5)


def test_assemble_sums_rows_to_one():
    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.ones(4))
    cone = Cone.of(p, 1.0, 0.0, "ldp")
    cols = np.concatenate([np.ones((4, 1)), cone.polish(rng.random((4, 9)) + 0.1), cone.polish(np.eye(4) + 0.4)],
                          axis=1)
    t, sup = assemble(cols, solve_master(cols).theta)
    assert np.all(t > 0)
    assert cols[:, sup] @ t == pytest.approx(np.ones(4), abs=1e-12)


def test_warm_start_reaches_the_cold_optimum():
    # the column-generation loop restarts the master from its previous point with new columns
    # appended; the optimum over the enlarged set must not depend on that start (cvxpy/SCS reference)
    rng = np.random.default_rng(11)
    p = rng.dirichlet(np.ones(5))
    cone = Cone.of(p, 1.0, 0.05, "pml")
    cols = cone.polish(enumerate_vertices(cone))
    first = solve_master(cols[:, ::2])
    warm = solve_master(cols, first)
    theta = cp.Variable(cols.shape[1], nonneg=True)
    j = sum(theta[k] * np.outer(cols[:, k], cols[:, k]) for k in range(cols.shape[1]))
    prob = cp.Problem(cp.Minimize(cp.tr_inv(j)), [cols @ theta == 1])
    prob.solve(solver="SCS", eps=1e-9)
    assert warm.status == "Solved"
    assert frequency_mse(channel_of(cols, warm.theta), p) + 1.0 == pytest.approx(prob.value, rel=1e-5)
    assert np.allclose(warm.Z, warm.Z.T)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9])
def test_trace_form_is_the_quadratic_form_of_the_kronecker_product(n):
    # tr(dZ J dZ) = vec(dZ)^T (I kron J) vec(dZ) for row-major vec and symmetric dZ: the sparse
    # assembly of the master's Newton matrix against the dense product through the symmetric basis
    from leakage.design.frequency_master import _sym_basis, _trace_form

    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, n))
    J = a @ a.T + 0.1 * np.eye(n)
    T = _sym_basis(n).toarray()
    dense = T.T @ np.kron(np.eye(n), J) @ T
    M = _trace_form(J)
    assert M == pytest.approx(dense, abs=1e-12 * np.abs(dense).max())
    iu, ju = np.triu_indices(n)
    z = rng.normal(size=iu.size)
    dZ = np.zeros((n, n))
    dZ[iu, ju] = z
    dZ[ju, iu] = z
    assert z @ M @ z == pytest.approx(np.trace(dZ @ J @ dZ), rel=1e-12)


def test_factor_solves_a_matrix_rounding_made_indefinite():
    # H = A^T A of rank 3 in R^6, nudged just below semidefiniteness: Cholesky fails, the shifted
    # factorisation still solves H x = b for b in the range of H to round-off relative to |b|
    from leakage.design.frequency_master import _factor

    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 6))
    H = a.T @ a - 1e-15 * np.eye(6)
    b = H @ rng.normal(size=6)
    x = _factor(H)(b)
    assert np.all(np.isfinite(x))
    assert np.linalg.norm(H @ x - b) <= 1e-6 * np.linalg.norm(b)


def test_factor_refuses_a_zero_matrix():
    # no diagonal shift of round-off size can make it definite: a clear RuntimeError, never an
    # endless retry (a non-finite step is caught by solve_master after the solve)
    from leakage.design.frequency_master import _factor

    with pytest.raises(RuntimeError, match="not positive definite"):
        _factor(np.zeros((3, 3)))


def _loop_step(i):
    """The loop's situation on draw i: the previous optimum over a quarter of the vertices, and the
    vertices its duals price as improving. Stratified: LDP and PML alternate, eps covers [0.5, 2],
    N covers [5, 10], Dirichlet(alpha) priors with alpha in [0.2, 1] clipped at 2e-5."""
    rng = np.random.default_rng(100 + i)
    kind = "ldp" if i % 2 else "pml"
    eps = 0.5 + 1.5 * (i // 2) / 3
    n = 5 + i % 6
    p = np.clip(rng.dirichlet(np.full(n, 0.2 + 0.8 * (i % 3) / 2)), 2e-5, None)
    p = p / p.sum()
    cone = Cone.of(p, eps, 0.05 if kind == "pml" else 0.0, kind)
    cols = cone.polish(enumerate_vertices(cone))
    perm = rng.permutation(cols.shape[1])
    first = np.concatenate([np.ones((n, 1)), cols[:, perm[: cols.shape[1] // 4]]], axis=1)
    previous = solve_master(first)
    rest = cols[:, perm[cols.shape[1] // 4:]]
    improving = rest[:, np.sum((previous.Z.T @ rest) ** 2, axis=0) + previous.w @ rest > 0]
    assert improving.shape[1] > 0
    return p, np.concatenate([first, improving], axis=1), previous


def test_moved_warm_start_reaches_the_optimum_in_fewer_steps():
    # moved (prior given), the warm start reaches the cold start's optimum; it takes fewer Newton
    # steps than the previous point as it is on every draw, and than the cold start over the family
    steps = []
    for i in range(8):
        p, both, previous = _loop_step(i)
        cold = solve_master(both)
        moved = solve_master(both, previous, prior=p)
        unmoved = solve_master(both, previous)
        assert cold.status == moved.status == "Solved"
        assert moved.value == pytest.approx(cold.value, rel=1e-8)
        assert moved.steps < unmoved.steps
        assert moved.steps <= cold.steps + 1
        steps.append((moved.steps, cold.steps))
    assert sum(m for m, _ in steps) < sum(c for _, c in steps)


@pytest.mark.parametrize("seed", range(6))
def test_slack_products_are_the_jacobian_of_the_slacks(seed):
    # the master's matrix-free products G^T v and G dx against the formed rows, and the rows
    # against central differences of the slacks g(x) (columns and blocks, random symmetric Z):
    # a wrong sign, a missing halving on the diagonal or a transposed block term fails here
    from leakage.design.frequency_master import _Slacks

    rng = np.random.default_rng(seed)
    n, k, nb = 2 + seed, 3 + 2 * seed, seed % 3
    cols = rng.random((n, k))
    a = rng.normal(size=(nb, n, n))
    blocks = a @ np.transpose(a, (0, 2, 1))
    sl = _Slacks(cols, blocks)
    d = n * (n + 1) // 2
    x = rng.normal(size=d + n)
    g, point = sl.at(x)
    rows = sl.scaled_rows(point, np.ones(k + nb))
    v, dx = rng.normal(size=k + nb), rng.normal(size=d + n)
    assert sl.jt(point, v) == pytest.approx(rows.T @ v, rel=1e-12, abs=1e-12)
    assert sl.jv(point, dx) == pytest.approx(rows @ dx, rel=1e-12, abs=1e-12)
    h = 1e-6
    fd = np.stack([(sl.at(x + h * e)[0] - sl.at(x - h * e)[0]) / (2 * h) for e in np.eye(d + n)], axis=1)
    assert rows == pytest.approx(fd, rel=1e-6, abs=1e-6)
    scale = rng.random(k + nb)
    assert sl.scaled_rows(point, scale) == pytest.approx(rows * scale[:, None], rel=1e-12, abs=1e-14)
