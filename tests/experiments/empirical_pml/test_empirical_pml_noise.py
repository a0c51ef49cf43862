"""empirical-pml fig4-fig7 [empirical-pml, Section VI-C]: the Adult simulation paths, the tables, the claims."""

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from leakage.experiments.empirical_pml.adult import (
    Setting,
    _tables_per_record,
    first_m_counts,
    nested_flip_counts,
    sample_sizes,
    simulate,
)
from leakage.experiments.empirical_pml import noise
from leakage.mechanisms.additive import laplace_flip_probability
from leakage.plots.empirical_pml.noise import PLOTS
from leakage.tables import read_table, save_table


def synthetic_adult(path, n=3000, seed=0):
    """A small table with the canonical columns and labels (no network)."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame(
        {
            "income": np.where(rng.random(n) < 0.24, ">50K", "<=50K"),
            "sex": np.where(rng.random(n) < 0.33, "Female", "Male"),
        }
    )
    table.to_csv(path, index=False)
    return path


def test_sample_sizes_paper_grid():
    m = sample_sizes(100, 48842, 15)
    assert m.size == 15 and m[0] == 100 and m[-1] == 48842
    assert np.all(np.diff(np.log(m)) == pytest.approx(np.log(48842 / 100) / 14, rel=1e-2))


def test_first_m_counts_is_hypergeometric():
    # the count of x1 among the first m of a uniform shuffle is hypergeometric
    bits = np.array([-1] * 30 + [1] * 70)
    counts = first_m_counts(bits, [10, 50], 4000, np.random.default_rng(1))
    for j, m in enumerate((10, 50)):
        law = stats.hypergeom(100, 30, m)
        assert counts[:, j].mean() == pytest.approx(law.mean(), abs=4 * law.std() / np.sqrt(4000))
        assert counts[:, j].var() == pytest.approx(law.var(), rel=0.1)


def test_nested_flip_counts_joint_law_matches_per_record_uniforms():
    # Joint law of (K_1, K_2) from sequential binomials vs counting one uniform per record.
    rng = np.random.default_rng(2)
    n, pi = 6, np.array([0.3, 0.1])  # unsorted on purpose
    reps = 40_000
    fast = nested_flip_counts(np.full(reps, n), np.tile(pi, (reps, 1)), rng)
    u = rng.random((reps, n))
    slow = np.stack([(u < p).sum(axis=1) for p in pi], axis=1)
    assert np.all(fast[:, 1] <= fast[:, 0])  # nested: smaller probability, subset of flips
    key = lambda k: k[:, 0] * (n + 1) + k[:, 1]  # noqa: E731
    f = np.bincount(key(fast), minlength=(n + 1) ** 2)
    s = np.bincount(key(slow), minlength=(n + 1) ** 2)
    used = (f + s) > 0
    chi2, pval, _, _ = stats.chi2_contingency(np.stack([f[used], s[used]]))
    assert pval > 1e-3


def test_fast_and_per_record_paths_same_distribution():
    # Same data, same settings: the MI distribution (and flip rate) of both paths agree (KS test).
    rng = np.random.default_rng(3)
    bits = np.where(rng.random(2000) < 0.3, -1, 1).astype(np.int8)
    settings = [Setting("pml", 1.0, 1e-3), Setting("ldp", 1.0, 0.0)]
    m_values = [200, 1500]
    b_fast, mi_fast = simulate(bits, m_values, settings, 600, np.random.default_rng(4), path="fast")
    b_slow, mi_slow = simulate(bits, m_values, settings, 600, np.random.default_rng(5), path="per_record")
    assert np.all(b_fast[..., 1] == 2.0) and np.all(b_slow[..., 1] == 2.0)
    for j in range(len(m_values)):
        for k in range(len(settings)):
            assert stats.ks_2samp(mi_fast[:, j, k], mi_slow[:, j, k]).pvalue > 1e-3
            assert stats.ks_2samp(b_fast[:, j, k], b_slow[:, j, k]).pvalue > 1e-3


def test_per_record_flip_rate_is_half_exp_minus_one_over_b():
    # literal path: Laplace noise per record then threshold (66); flips at rate 1/2 e^{-1/b}
    bits = np.array([-1] * 5000 + [1] * 5000, dtype=np.int8)
    t = _tables_per_record(bits.astype(float), np.array([4.0, 1.0]), np.random.default_rng(6))
    for k, b in enumerate((4.0, 1.0)):
        rate = (t[k, 0, 1] + t[k, 1, 0]) / 10000
        p = laplace_flip_probability(b)
        assert abs(rate - p) < 5 * np.sqrt(p * (1 - p) / 10000)
    assert np.all(t[1, 0, 1] <= t[0, 0, 1])  # common noise: more noise, superset of flips


def test_common_random_numbers_equal_scale_equal_result():
    # where p̂_min - beta/2 <= 0 the pml scale falls back to 2/eps: identical numbers to ldp
    rng = np.random.default_rng(7)
    bits = np.where(rng.random(500) < 0.3, -1, 1).astype(np.int8)
    settings = [Setting("pml", 0.5, 1e-9), Setting("ldp", 0.5, 0.0)]
    for path in ("fast", "per_record"):
        b, mi = simulate(bits, [50], settings, 20, np.random.default_rng(8), path=path)
        assert np.all(b[..., 0] == b[..., 1])
        assert np.array_equal(mi[..., 0], mi[..., 1])


def _settings(name):
    with open("config.yaml") as fh:
        return yaml.safe_load(fh)["empirical-pml"][name]


@pytest.fixture
def small_settings(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    s4 = dict(_settings("fig4"), m_max=3000, n_m=5, iterations=8)
    s5 = dict(_settings("fig5"), m_max=3000, n_m=5, iterations=8)
    s6 = dict(_settings("fig6"), n_eps=40, n_pldp=50, m=[100, 10000])
    s7 = dict(_settings("fig7"), n_eps=40, n_pldp=50, m=[100, 10000])
    return {"fig4": s4, "fig5": s5, "fig6": s6, "fig7": s7}


def test_figures_columns_claims_and_plots(tmp_path, small_settings):
    inputs = {"adult": str(synthetic_adult(tmp_path / "adult.csv"))}
    tables = {}
    for name, fn in noise.FIGURES.items():
        tables[name] = fn(small_settings[name], np.random.default_rng(9), inputs)
    for name in ("fig4", "fig5"):
        t = tables[name]
        assert list(t.columns) == ["feature", "method", "eps", "delta", "m", "b_mean", "mi_mean", "mi_std"]
        assert set(t.feature) == {"income", "sex"} and t.m.max() == 3000
        ldp = t[t.method == "ldp"]
        assert np.allclose(ldp.b_mean, 2 / ldp.eps) and np.all(ldp.delta == 0)
        assert np.all(t[t.method == "pml"].b_mean <= 2 / t[t.method == "pml"].eps + 1e-12)
    assert len(tables["fig4"]) == 2 * 3 * 2 * 5 and len(tables["fig5"]) == 2 * 5 * 5
    for name in ("fig6", "fig7"):
        t = tables[name]
        assert list(t.columns) == ["panel", "sigma", "p_hat", "m", "method", "eps", "eps_star", "delta_star"]
        assert t[t.method == "pldp"].m.isna().all() and t[t.method == "pml"].m.notna().all()
        pml = t[t.method == "pml"]
        assert np.all(pml.eps_star > pml.eps) and np.all(pml.delta_star >= 1e-6 * (1 - 1e-12))
    # round trip through CSV as the claims rule reads it
    for name, t in tables.items():
        save_table(t, tmp_path / f"{name}.csv")
    read = {n: read_table(tmp_path / f"{n}.csv") for n in tables}
    claims = noise.check_claims(read, small_settings)
    assert {c.figure for c in claims} == {"fig4", "fig5", "fig6", "fig7"}
    assert all(c.detail for c in claims)
    by_claim = {c.claim: c for c in claims}
    assert by_claim["delta_star >= delta2 for every pml row"].holds
    for name, draw in PLOTS.items():
        fig = draw(read[name], small_settings[name])
        assert fig.axes and all(ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes)


def test_fig4_claim_reports_failure_with_numbers():
    rows = []
    for method, mi in (("pml", [0.1, 0.2]), ("ldp", [0.12, 0.1])):
        for m, v in zip((100, 1000), mi):
            rows.append(dict(feature="income", method=method, eps=1.0, delta=0, m=m, b_mean=1, mi_mean=v, mi_std=0))
    claims = noise.check_claims({"fig4": pd.DataFrame(rows)}, {})
    assert not claims[0].holds and "-0.02" in claims[0].detail


def test_bad_settings():
    with pytest.raises(ValueError, match="method must be one of"):
        Setting("dp", 1.0, 0.0)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\]"):
        Setting("pml", 1.0, 0.0)
    with pytest.raises(ValueError, match="m_values must be <= the number of records"):
        simulate(np.array([-1, 1, 1]), [5], [Setting("ldp", 1.0, 0.0)], 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="path must be one of"):
        simulate(np.array([-1, 1, 1]), [2], [Setting("ldp", 1.0, 0.0)], 2, np.random.default_rng(0), path="x")


# ----------------------------------------------------------------------------- benchmarks

BENCH_BITS = np.where(np.random.default_rng(10).random(48842) < 0.24, -1, 1).astype(np.int8)
BENCH_SETTINGS = [Setting(meth, e, d) for e in (0.5, 1.0, 2.0) for meth, d in (("pml", 1e-9), ("ldp", 0.0))]
BENCH_M = sample_sizes(100, 48842, 15)


def test_bench_fast_path(benchmark):
    benchmark(lambda: simulate(BENCH_BITS, BENCH_M, BENCH_SETTINGS, 3, np.random.default_rng(0), path="fast"))


def test_bench_per_record_path(benchmark):
    benchmark(lambda: simulate(BENCH_BITS, BENCH_M, BENCH_SETTINGS, 3, np.random.default_rng(0), path="per_record"))
