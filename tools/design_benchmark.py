"""Timings of the optimal-mechanism engine (leakage.design.optimal) against the baselines.

Usage: python tools/design_benchmark.py [--quick] [--seconds S]

Rows: N = 14 known prior (plain ray enumeration + one LP vs column generation); N = 42 and 74 with
heavy-tailed (Zipf-like, min mass ~2e-5) priors at beta = beta*(1e-6, 48842, N), eps = 1 (exact
design on the ball; certified gap); N = 200 linear utilities at beta < 2 min P (column generation vs
the compact LP of design_mechanism). Prints one table: case, method, seconds, value, bound, gap.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from leakage.design import design_mechanism, optimal_mechanism, optimal_mechanism_for_estimate
from leakage.estimation.concentration import beta_star


def zipf_prior(n, p_min=2e-5):
    """p_k proportional to k^-a with a chosen so that min p ~ p_min (heavy tail like Adult's native-country)."""
    lo, hi = 0.1, 10.0
    for _ in range(100):
        a = 0.5 * (lo + hi)
        p = np.arange(1, n + 1, dtype=float) ** -a
        p /= p.sum()
        lo, hi = (a, hi) if p.min() > p_min else (lo, a)
    return p


def row(case, method, seconds, value, bound):
    gap = bound - value
    print(f"{case:34s} {method:12s} {seconds:9.3f} {value:14.9f} {bound:14.9f} {gap:10.2e}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="skip N = 74")
    ap.add_argument("--seconds", type=float, default=240.0, help="time limit per large design")
    ap.add_argument("--only", default="", help="comma list of: n14,n42,n74,n200")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    print(f"{'case':34s} {'method':12s} {'seconds':>9s} {'value':>14s} {'bound':>14s} {'gap':>10s}")
    if not only or "n14" in only:
        rng = np.random.default_rng(14)
        p = rng.dirichlet(np.ones(14))
        for method in ("enumerate", "colgen"):
            t = time.perf_counter()
            d = optimal_mechanism(p, 1.0, method=method)
            row("N=14 MI known prior eps=1", method, time.perf_counter() - t, d.value, d.bound)
    for n in (42, 74):
        if (only and f"n{n}" not in only) or (args.quick and n == 74 and not only):
            continue
        p = zipf_prior(n)
        beta = beta_star(1e-6, 48842, n)
        t = time.perf_counter()
        d = optimal_mechanism(p, 1.0, beta=beta, max_seconds=args.seconds)
        row(f"N={n} MI ball beta={beta:.4f}", "colgen", time.perf_counter() - t, d.value, d.bound)
        t = time.perf_counter()
        r = optimal_mechanism_for_estimate(p, 1.0, beta)
        row(f"N={n} MI route (44)", r.method, time.perf_counter() - t, r.value, r.bound)
    if not only or "n200" in only:
        n = 200
        rng = np.random.default_rng(n)
        p = rng.dirichlet(np.ones(n) * 5)
        beta = 1.5 * p.min()
        idx = np.arange(n)
        for name, u in (("identity", np.eye(n)), ("-|x-y|", -np.abs(np.subtract.outer(idx, idx)).astype(float))):
            t = time.perf_counter()
            d = optimal_mechanism(p, 1.0, beta=beta, utility=u)
            t_new = time.perf_counter() - t
            row(f"N=200 linear {name}", "colgen", t_new, d.value, d.bound)
            t = time.perf_counter()
            c = design_mechanism(p, 1.0, beta, u)
            t_old = time.perf_counter() - t
            row(f"N=200 linear {name}", "compact LP", t_old, c.expected_utility, c.expected_utility)
            print(f"   speed-up {t_old / t_new:.1f}x, value difference {d.value - c.expected_utility:.2e}")


if __name__ == "__main__":
    main()
