"""Time growth of the robust PML design LP [empirical-pml, Proposition 2]: compact (98) vs literal (43).

Usage: python tools/design_scaling.py [--budget SECONDS]

For N = 10..200 designs an optimal mechanism (utility: minus the expected |x - y| distortion; also a
random utility) with the compact O(N^2) form, and the literal N^3 form for growing N until one solve
takes longer than the budget. Prints a table: N, form, utility, rows, non-zeros, build s, solve s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from leakage.design import design_mechanism, design_polytope


def utilities(n, rng):
    idx = np.arange(n)
    return {"distortion": -np.abs(np.subtract.outer(idx, idx)).astype(float), "random": rng.random((n, n))}


def run(n, form, name, u, p, beta, eps=1.0):
    t0 = time.perf_counter()
    lp = design_polytope(p, eps, beta, n, form=form)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    design_mechanism(p, eps, beta, u, form=form)
    total = time.perf_counter() - t0
    print(f"{n:5d} {form:8s} {name:10s} {lp.a_ub.shape[0] + lp.a_eq.shape[0]:9d} "
          f"{lp.a_ub.nnz + lp.a_eq.nnz:10d} {build:8.3f} {total:9.3f}", flush=True)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=60.0, help="largest literal solve time, s")
    args = parser.parse_args()
    print("    N form     utility         rows   nonzeros  build_s  design_s")
    for n in (10, 20, 50, 100, 150, 200):
        rng = np.random.default_rng(n)
        p = rng.dirichlet(np.ones(n) * 5)
        beta = 1.5 * p.min()
        for name, u in utilities(n, rng).items():
            run(n, "compact", name, u, p, beta)
    for n in (5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80):
        rng = np.random.default_rng(n)
        p = rng.dirichlet(np.ones(n) * 5)
        beta = 1.5 * p.min()
        u = utilities(n, rng)["distortion"]
        run(n, "compact", "distortion", u, p, beta)
        if run(n, "literal", "distortion", u, p, beta) > args.budget:
            break


if __name__ == "__main__":
    main()
