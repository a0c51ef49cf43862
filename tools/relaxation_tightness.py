"""Where the ball's relaxation loses the PML design's bound beyond exact pricing (N > 18).

Usage: python tools/relaxation_tightness.py [--family 42 --draws 3 --seed 44] [--priors CSV --only native-country]
       python tools/relaxation_tightness.py --render

For each case (the heavy-tailed family draws of ``frequency_design_benchmark.family_cases`` and the
study's attributes named by ``--only``, every eps of the study), the PML design on the ball as the
study runs it (the LDP design first, seeding it), and at the dual point the design's bound comes
from (the kept point of ``lifted.relaxed_dual``), three bounds on the least tr J^-1 - 1:

* ``bound``: the design's certified bound there (SCS's multipliers, certified; small families
  certified again alone);
* ``exact_families``: every vertex family's relaxation solved alone at that point by Clarabel
  (``lifted.family_bound``, certified): what a perfect solve of each relaxation gives there; the
  light-top one's where the design split it by P(S) there (``lifted._split_by_mass``), the least;
* ``limit``: 2 tr Z + sum w - 1 minus the best column the local search finds there
  (``lifted._best_column_found``: ``pricing.frequency.local_pricing`` with ``--starts`` random
  starts, the light-top family searched too). The best column is a lower bound on the pricing's
  maximum, so no relaxation, however tight, certifies more than ``limit`` at this point.

``bound`` -> ``exact_families`` is what the first-order solve loses; ``exact_families`` -> ``limit``
at most what the relaxations themselves lose, per family in the ``excess_*`` columns (the family's
relaxed value over the best column found; "below" on the page: it cannot set the bound);
``limit`` -> ``value`` what the point and the value lose.
Writes docs/measurements/relaxation-tightness.csv with a JSON beside it and renders the .md that
docs/frequency-estimation.md includes (``--render``: only the rendering).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import yaml

from leakage.design import optimal_mechanism
from leakage.design.cone import Cone
from leakage.design.pricing import lifted
from leakage.estimation.concentration import beta_star

from frequency_design_benchmark import ROOT, attribute_counts, family_cases, measured_line, render_page, write_meta

OUT = ROOT / "docs" / "measurements" / "relaxation-tightness.csv"
FAMILIES = ("light_staircase", "heavy_two_level", "box", "light_top")
FIELDS = ["case", "n", "eps", "beta", "value", "bound", "exact_families", "limit", "sets_exact",
          *(f"excess_{f}" for f in FAMILIES), "clarabel_seconds"]


def cases(args, cfg):
    out = []
    if args.family:
        out += family_cases([int(x) for x in args.family.split(",")], args.draws, args.seed)
    if args.only:
        table = attribute_counts(args.priors)
        out += [(att, table[att], cfg["eps"]) for att in args.only.split(",")]
    return out


def measure_case(name, counts, eps, cfg, starts: int) -> dict:
    m, p = int(round(counts.sum())), counts / counts.sum()
    beta = beta_star(cfg["delta"], m, p.size)
    tol, budget = cfg["engine"]["tol"], cfg["frequency"]
    ldp = optimal_mechanism(p, eps, privacy="ldp", utility="frequency_mse", tol=tol,
                            max_iterations=budget["large_max_iterations"])
    design = optimal_mechanism(p, eps, privacy="pml", beta=beta, utility="frequency_mse", tol=tol,
                               max_iterations=budget["large_max_iterations_pml"], warm_start=[ldp])
    cone = Cone.of(p, eps, beta, "pml")
    # the kept point: every refinement taken, as the design takes them at the study's tol (the
    # points do not depend on the design; lifted.relaxed_duals)
    rd = lifted.relaxed_dual(cone)
    base = rd.bound + rd.pricing  # 2 tr Z + sum w - 1 at the point
    t = time.perf_counter()
    exact = {lift.name: lifted.family_bound(lift, rd.Z, rd.w) for lift in lifted.liftings(cone)}
    seconds = time.perf_counter() - t
    if "light_top" in exact:  # the split parts' certificates, where the design took them there
        exact["light_top"] = min(exact["light_top"], rd.families["light_top"])
    ones = lifted._ones_value(rd.Z, rd.w)
    top = max([ones, *exact.values()])
    best = lifted._best_column_found(cone, rd.Z, rd.w, starts=starts)
    row = dict(case=name, n=p.size, eps=eps, beta=beta, value=design.value, bound=rd.bound,
               exact_families=base - top, limit=base - best,
               sets_exact=max(exact, key=exact.get) if top > ones else "ones", clarabel_seconds=round(seconds, 1))
    for f in FAMILIES:
        row[f"excess_{f}"] = exact[f] - best if f in exact else float("nan")
    return row


def table(csv_path: Path = OUT) -> str:
    """The page of the CSV and its JSON (markdown)."""
    meta = json.loads(csv_path.with_suffix(".json").read_text())
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))

    def gap(r, key):
        v = float(r["value"])
        return f"{float(r[key]):.6g} ({(v - float(r[key])) / (1 + v):.1e})"

    lines = [f"<!-- generated by tools/relaxation_tightness.py from docs/measurements/{csv_path.name}; do not edit -->", "",
             "| case | N | eps | tr J^-1 - 1 | bound (gap) | every family exact (gap) | limit at the point (gap) | "
             "set by | " + " | ".join(f"excess {f.replace('_', ' ')}" for f in FAMILIES) + " |",
             "|---|---:|---:|---:|---:|---:|---:|---|" + "---:|" * len(FAMILIES)]
    for r in rows:
        ex = " | ".join("-" if r[f"excess_{f}"] in ("", "nan") else "below" if float(r[f"excess_{f}"]) < 0
                        else f"{float(r[f'excess_{f}']):.2g}" for f in FAMILIES)
        lines.append(f"| {r['case']} | {r['n']} | {float(r['eps']):g} | {float(r['value']):.6g} | {gap(r, 'bound')} | "
                     f"{gap(r, 'exact_families')} | {gap(r, 'limit')} | {r['sets_exact'].replace('_', ' ')} | {ex} |")
    lines += ["", measured_line(meta), ""]
    return "\n".join(lines)


def render(csv_path: Path = OUT) -> str:
    return render_page(csv_path, table)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", default="", help="Dirichlet draws of these N, e.g. 42")
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--only", default="", help="study attributes, e.g. native-country")
    ap.add_argument("--priors", type=Path, default=ROOT / "results" / "adult-design" / "priors.csv")
    ap.add_argument("--starts", type=int, default=5000, help="random starts of the local search at the point")
    ap.add_argument("--csv", type=Path, default=OUT)
    ap.add_argument("--render", action="store_true")
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    if not args.render:
        cfg = yaml.safe_load((ROOT / "config.yaml").read_text())["adult-design"]
        rows = []
        for name, counts, eps_list in cases(args, cfg):
            for eps in eps_list:
                rows.append(measure_case(name, counts, eps, cfg, args.starts))
                print(rows[-1], flush=True)
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
        opts = " ".join(f"--{k} {v}" for k, v in (("family", args.family), ("draws", args.family and args.draws),
                                                   ("seed", args.family and args.seed), ("only", args.only),
                                                   ("starts", args.starts)) if v)
        write_meta(args.csv, f"python tools/relaxation_tightness.py {opts}".strip(), args.note)
    print(render(args.csv))


if __name__ == "__main__":
    main()
