"""Timings of the optimal-mechanism engine (leakage.design.optimal) against the baselines.

Usage: python tools/design_benchmark.py [--quick] [--seconds S] [--only n14,ldp,ball,family,n200,stretch] [--draws K]
       [--seed S] [--strata 0,1,2,3] [--tol 1e-6,default] [--sizes 42,74]

Rows: N = 14 known prior (plain ray enumeration + one LP, column generation, and method="auto");
eps-LDP at N = 42 / 74 (exact staircase pricing); the ball B_beta(P) at beta = beta*(1e-6, 48842, N),
eps = 1, for heavy-tailed (Zipf-like, min mass ~2e-5) priors and for the Adult data set's
native-country (N = 42, '?' kept) and age (N = 74) frequencies, with the route-(44) design beside; the
heavy-tailed family (seeded Dirichlet draws, clipped at 2e-5, eps in [0.1, 4] stratified by EPS_STRATA:
draw k in stratum k mod 4) at each tolerance of --tol (1e-6, the engine's default or both), each draw on the
ball (at most --seconds: no new iteration starts after it) and under LDP (default budgets; --seed: held-out
draws of the same family; --strata: only the draws of those strata; --sizes: only those N);
N = 200 linear utilities at beta = 1.5 min P (optimal_mechanism, i.e. label generation, vs the compact LP of
design_mechanism); and, only when asked (--only stretch), the next size: Adult's education x
marital-status (the 104 of its 16 x 7 cells that occur), eps = 1, under LDP and on the ball at
beta = beta*(1e-6, 48842, 112) (the joint alphabet's size, as the study's Monte Carlo counts unseen
categories), warm-started from the LDP and route-(44) designs as the adult-design study does.
One table: case, method, N, value, bound, gap, certified, seconds; then ratios.
The same rows go to a CSV (--csv, default docs/measurements/design-engine.csv) with a JSON beside
it (commit, date, machine, command), from which tools/benchmark_pages.py renders the docs' table.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import time
from collections import Counter
from pathlib import Path

import numpy as np

from leakage.design import design_mechanism, optimal_mechanism, optimal_mechanism_for_estimate
from leakage.design.optimal import DEFAULT_TOL
from leakage.estimation.concentration import beta_star

ADULT = os.environ.get("ADULT_CSV", os.path.join(os.path.dirname(__file__), "..", "results", "data", "adult.csv"))


def zipf_prior(n, p_min=2e-5):
    """p_k proportional to k^-a with a chosen so that min p ~ p_min (heavy tail like Adult's native-country)."""
    lo, hi = 0.1, 10.0
    for _ in range(100):
        a = 0.5 * (lo + hi)
        p = np.arange(1, n + 1, dtype=float) ** -a
        p /= p.sum()
        lo, hi = (a, hi) if p.min() > p_min else (lo, a)
    return p


def adult_prior(*columns):
    """Empirical distribution of one column of the Adult CSV, or of the joint attribute of several (its
    cells that occur), in decreasing order; None when the file is absent."""
    if not os.path.exists(ADULT):
        return None
    with open(ADULT, newline="") as f:
        counts = Counter(tuple(r[c].strip() for c in columns) for r in csv.DictReader(f))
    c = np.array(sorted(counts.values(), reverse=True), dtype=float)
    return c / c.sum()


#: the strata of eps in [0.1, 4] the family's draws take in turn (draw k in stratum k mod 4): uniform
#: draws over the whole range had left the small-eps end unmeasured (none of 32 below 0.44)
EPS_STRATA = ((0.1, 0.25), (0.25, 1.0), (1.0, 2.5), (2.5, 4.0))


def family_draws(n, draws, seed=18, strata=EPS_STRATA):
    """The heavy-tailed family of the design engine's targets: Dirichlet(alpha) priors, alpha uniform
    in [0.2, 1], clipped at 2e-5 and renormalised, with eps uniform in the stratum
    ``strata[k % len(strata)]`` for draw k (seeded). Yields (k, stratum, prior, eps); the priors are
    those of the unstratified draws before (the same random numbers, eps mapped into its stratum)."""
    rng = np.random.default_rng([seed, n])
    for k in range(draws):
        p = np.maximum(rng.dirichlet(np.full(n, rng.uniform(0.2, 1.0))), 2e-5)
        lo, hi = strata[k % len(strata)]
        yield k, k % len(strata), p / p.sum(), float(lo + (hi - lo) * rng.uniform())


HEAD = f"{'case':36s} {'method':11s} {'N':>4s} {'value':>13s} {'bound':>13s} {'gap':>9s} {'cert':>5s} {'seconds':>8s}"


ROWS = []


def row(case, method, n, value, bound, certified, seconds):
    gap = bound - value
    ROWS.append({"case": case, "method": method, "n": n, "value": value, "bound": bound, "gap": gap,
                 "certified": bool(certified), "seconds": seconds})
    print(f"{case:36s} {method:11s} {n:4d} {value:13.9f} {bound:13.9f} {gap:9.2e} {str(bool(certified)):>5s} "
          f"{seconds:8.3f}", flush=True)


def timed(f, *a, **k):
    t = time.perf_counter()
    out = f(*a, **k)
    return out, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="skip N = 74")
    ap.add_argument("--seconds", type=float, default=240.0, help="time limit per large design")
    ap.add_argument("--only", default="", help="comma list of: n14,ldp,ball,family,n200,stretch (stretch: only when named)")
    ap.add_argument("--draws", type=int, default=4, help="family: seeded priors per N")
    ap.add_argument("--seed", type=int, default=18, help="family: the draws' seed (18 is the family measured while "
                    "tuning the engine; any other gives held-out draws of the same family)")
    ap.add_argument("--strata", default="", help="family: comma list of the EPS_STRATA indices to run (default all)")
    ap.add_argument("--tol", default="1e-6", help="family: comma list of tolerances, each a number or 'default' "
                    "(the engine's own, optimal_mechanism's tol)")
    ap.add_argument("--sizes", default="", help="family: comma list of N (default 42,74; 42 with --quick)")
    ap.add_argument("--csv", default=os.path.join(os.path.dirname(__file__), "..", "docs", "measurements", "design-engine.csv"),
                    help="where to write the rows (and a .json of the run beside it); '' for none")
    ap.add_argument("--note", default="", help="conditions of the run, for the .json (e.g. other jobs on the same cores)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    ratios = []
    print(HEAD)
    if not only or "n14" in only:
        p = np.random.default_rng(14).dirichlet(np.ones(14))
        t = {}
        for method in ("enumerate", "colgen", "auto"):
            d, t[method] = timed(optimal_mechanism, p, 1.0, method=method)
            row("MI known prior eps=1", f"{method}" + (f"->{d.method[:4]}" if method == "auto" else ""), 14,
                d.value, d.bound, d.certified, t[method])
        ratios.append(f"N=14 known prior: auto / enumerate time = {t['auto'] / t['enumerate']:.2f}, "
                      f"colgen / enumerate = {t['colgen'] / t['enumerate']:.2f}")
    sizes = (42,) if args.quick else (42, 74)
    priors = []
    for n in sizes:
        priors.append((f"zipf", zipf_prior(n)))
    adult = {42: adult_prior("native-country"), 74: adult_prior("age")}
    for n in sizes:
        if adult[n] is not None and adult[n].size == n:
            priors.append(("adult " + ("native-country" if n == 42 else "age"), adult[n]))
    if not only or "ldp" in only:
        for name, p in priors:
            d, s = timed(optimal_mechanism, p, 1.0, privacy="ldp", max_seconds=args.seconds)
            row(f"MI LDP eps=1 {name}", d.method, p.size, d.value, d.bound, d.certified, s)
    if not only or "ball" in only:
        for name, p in priors:
            n = p.size
            beta = beta_star(1e-6, 48842, n)
            d, s = timed(optimal_mechanism, p, 1.0, beta=beta, max_seconds=args.seconds)
            row(f"MI ball b={beta:.4f} {name}", d.method, n, d.value, d.bound, d.certified, s)
            r, s = timed(optimal_mechanism_for_estimate, p, 1.0, beta)
            row(f"MI route (44) b={beta:.4f} {name}", r.method, n, r.value, r.bound, r.certified, s)
            ratios.append(f"N={n} {name}: ball value - route (44) = {d.value - r.value:.3e}, "
                          f"ball value - LDP = {d.value - d.stats['ldp_value']:.3e}, ball gap {d.gap:.3e}")
    if not only or "family" in only:
        strata = {int(x) for x in args.strata.split(",") if x} or set(range(len(EPS_STRATA)))
        tols = [None if t == "default" else float(t) for t in args.tol.split(",") if t]
        fam_sizes = tuple(int(x) for x in args.sizes.split(",") if x) or sizes
        for n in fam_sizes:
            beta = beta_star(1e-6, 48842, n)
            for tol in tols:
                tname = f"default {DEFAULT_TOL:g}" if tol is None else f"{tol:g}"
                kw = {} if tol is None else {"tol": tol}
                certified, seconds, ldp_certified, ldp_seconds = 0, [], 0, []
                for k, stratum, p, eps in family_draws(n, args.draws, seed=args.seed):
                    if stratum not in strata:
                        continue
                    d, s = timed(optimal_mechanism, p, eps, beta=beta, max_iterations=300, max_seconds=args.seconds,
                                 **kw)
                    row(f"MI ball family draw {k} eps={eps:.2f} tol={tname}", d.method, n, d.value, d.bound,
                        d.certified, s)
                    certified += d.certified
                    seconds.append(s)
                    d, s = timed(optimal_mechanism, p, eps, privacy="ldp", **kw)
                    row(f"MI LDP family draw {k} eps={eps:.2f} tol={tname}", d.method, n, d.value, d.bound,
                        d.certified, s)
                    ldp_certified += d.certified
                    ldp_seconds.append(s)
                if seconds:
                    ratios.append(f"N={n} family tol {tname}: {certified}/{len(seconds)} certified, seconds median "
                                  f"{np.median(seconds):.1f}, max {max(seconds):.1f}; LDP (default budgets) "
                                  f"{ldp_certified}/{len(seconds)}, seconds median {np.median(ldp_seconds):.1f}, "
                                  f"max {max(ldp_seconds):.1f}")
    if not only or "n200" in only:
        n = 200
        p = np.random.default_rng(n).dirichlet(np.ones(n) * 5)
        beta = 1.5 * p.min()
        idx = np.arange(n)
        for name, u in (("identity", np.eye(n)), ("-|x-y|", -np.abs(np.subtract.outer(idx, idx)).astype(float))):
            d, t_new = timed(optimal_mechanism, p, 1.0, beta=beta, utility=u, max_seconds=args.seconds)
            row(f"linear {name} b=1.5minP", d.method, n, d.value, d.bound, d.certified, t_new)
            c, t_old = timed(design_mechanism, p, 1.0, beta, u)
            row(f"linear {name} b=1.5minP", "compact LP", n, c.expected_utility, c.expected_utility, True, t_old)
            ratios.append(f"N=200 {name}: compact LP / optimal_mechanism time = {t_old / t_new:.2f}, "
                          f"value difference {d.value - c.expected_utility:.2e}")
    if "stretch" in only:
        p = adult_prior("education", "marital-status")
        if p is None:
            raise SystemExit(f"stretch: the Adult CSV {ADULT} is absent (run the pipeline's data stage, or set ADULT_CSV)")
        beta = beta_star(1e-6, 48842, 16 * 7)
        name = f"education x marital-status b={beta:.4f}"
        ldp, s_ldp = timed(optimal_mechanism, p, 1.0, privacy="ldp")
        row(f"MI LDP eps=1 {name}", ldp.method, p.size, ldp.value, ldp.bound, ldp.certified, s_ldp)
        r44, s_44 = timed(optimal_mechanism_for_estimate, p, 1.0, beta)
        row(f"MI route (44) {name}", r44.method, p.size, r44.value, r44.bound, r44.certified, s_44)
        d, s = timed(optimal_mechanism, p, 1.0, beta=beta, warm_start=(ldp, r44))
        row(f"MI ball {name}", d.method, p.size, d.value, d.bound, d.certified, s)
        ratios.append(f"N={p.size} {name}: ball value - route (44) = {d.value - r44.value:.3e}, "
                      f"ball value - LDP = {d.value - ldp.value:.3e}; LDP gap {ldp.gap:.3e} "
                      f"(limited by {ldp.stats.get('limited_by')}), ball gap {d.gap:.3e}")
    print()
    for r in ratios:
        print(r)
    if args.csv:
        draws = args.draws if args.draws != ap.get_default("draws") else None
        seed = args.seed if args.seed != ap.get_default("seed") else None
        tol = args.tol if args.tol != ap.get_default("tol") else None
        secs = args.seconds if args.seconds != ap.get_default("seconds") else None
        cases = [f"--{k}" + ("" if v is True else f" {v}")
                 for k, v in (("quick", args.quick), ("only", args.only), ("draws", draws), ("seed", seed),
                              ("strata", args.strata), ("tol", tol), ("sizes", args.sizes), ("seconds", secs)) if v]
        write_rows(args.csv, " ".join(["python tools/design_benchmark.py", *cases]), args.note)


def write_rows(path, command, note=""):
    """The rows as CSV (full precision) and the run's commit, date and machine as JSON beside it."""
    from benchmark_pages import commit_of, machine_description, write_meta

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ROWS[0]) if ROWS else ["case"], lineterminator="\n")
        w.writeheader()
        w.writerows(ROWS)
    meta = {"commit": commit_of(os.path.dirname(os.path.abspath(__file__))),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "machine": machine_description(), "command": command, "note": note}
    write_meta(Path(path).with_suffix(".json"), meta)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
