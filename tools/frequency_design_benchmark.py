"""Certification and time of the estimation-optimal design (optimal_mechanism, utility="frequency_mse")
on the adult-design study's attributes.

Usage: python tools/frequency_design_benchmark.py [--priors CSV] [--only race,education] [--render]
       python tools/frequency_design_benchmark.py --family 42,74 [--draws K] [--seed S] --csv OUT

For every attribute of config.yaml's ``adult-design.attributes`` (its empirical distribution from
``--priors``, the study's ``priors.csv``) and every eps of ``adult-design.eps``: the eps-PML design on
the ball B_beta(P̂), beta = beta*(delta) of the study, and the eps-LDP design, at the study
engine's tol; N > EXHAUSTIVE_LIMIT (no exact pricing) with the study's iteration budgets
(``--large-iterations``, ``--large-iterations-pml``), the LDP design seeding the PML one as in the study.
Rows: attribute, N, eps, privacy, beta, value, bound, gap (relative), certified, iterations,
outputs, seconds, limited_by. Writes docs/measurements/frequency-design.csv with a JSON beside it
(commit, date, machine, command) and renders docs/measurements/frequency-design.md from them
(``--render``: only the rendering), which docs/frequency-estimation.md includes. ``--family``: the same
rows for seeded Dirichlet draws (:func:`family_cases`) instead of the attributes.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import platform
import time
from pathlib import Path

import numpy as np
import yaml

from leakage.design import optimal_mechanism
from leakage.design.pricing.frequency import EXHAUSTIVE_LIMIT
from leakage.estimation.concentration import beta_star
from leakage.mechanisms.frequency_oracles import ORACLES, FrequencyOracle, oracle_mse

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "measurements" / "frequency-design.csv"
FIELDS = ["attribute", "n", "eps", "privacy", "beta", "value", "first_value", "bound", "gap", "certified", "iterations",
          "outputs", "seconds", "seconds_to_1pct", "limited_by", "best_oracle", "oracle_ratio"]

#: the column "seconds to 1 %": the first iteration whose gap (value - bound) / (1 + value) is at most this
#: (beyond the exact pricing a call with tol=TARGET follows the same iterates and stops there)
TARGET = 1e-2


def seconds_to_target(history, seed: float = math.inf) -> float | None:
    """Seconds from the design's start to the end of its first iteration certified within TARGET:
    its value (``stats["history"]``'s (value, bound, seconds)) or its best ``seed``'s
    (``stats["incumbent"]``, which the design returns where better); None where none is."""
    return next((round(t, 2) for v, b, t in history if min(v, seed) - b <= TARGET * (1.0 + min(v, seed))), None)


def joint_counts(dataset: Path, columns) -> np.ndarray:
    """Counts of the value combinations of ``columns`` present in the design part of the study's
    dataset.csv (the joint attribute a user designs for when releasing two attributes at once)."""
    import pandas as pd

    d = pd.read_csv(dataset, keep_default_na=False)
    return d[d["part"] == "design"].groupby(list(columns)).size().to_numpy(dtype=float)


#: eps of the family's draws: draw k uniform in FAMILY_EPS[k % 3] (the issue's range [0.5, 2], stratified)
FAMILY_EPS = ((0.5, 1.0), (1.0, 1.5), (1.5, 2.0))
#: the records the family's beta counts (Adult's), as the study's radius beta*(delta)
FAMILY_M = 48842


def family_cases(sizes, draws, seed):
    """The design engine's heavy-tailed family (``design_benchmark.family_draws``: Dirichlet(alpha),
    alpha uniform in [0.2, 1], clipped at 2e-5) with eps stratified by FAMILY_EPS. Cases (name,
    counts with FAMILY_M records, [eps])."""
    from design_benchmark import family_draws

    return [(f"Dirichlet draw {k} (seed {seed})", FAMILY_M * p, [round(eps, 3)])
            for n in sizes for k, _, p, eps in family_draws(n, draws, seed, strata=FAMILY_EPS)]


def attribute_counts(priors: Path) -> dict:
    """Each attribute's category counts from the study's priors.csv (attribute -> float array)."""
    table = {}
    with open(priors, newline="") as f:
        for r in csv.DictReader(f):
            table.setdefault(r["attribute"], []).append(int(r["count"]))
    return {att: np.array(counts, dtype=float) for att, counts in table.items()}


def measure(priors: Path, only, large_iterations: int | None, joint=(), dataset: Path | None = None, joint_eps=(),
            large_iterations_pml: int | None = None, family=None):
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())["adult-design"]
    large = {"ldp": cfg["frequency"]["large_max_iterations"] if large_iterations is None else large_iterations,
             "pml": cfg["frequency"]["large_max_iterations_pml"] if large_iterations_pml is None else large_iterations_pml}
    rows = []
    if family is not None:
        cases = family_cases(*family)
    else:
        table = attribute_counts(priors)
        cases = [(att, table[att], cfg["eps"]) for att in cfg["attributes"]
                 if not only or att in only]
    if joint:
        cases.append((" x ".join(joint), joint_counts(dataset, joint), list(joint_eps) or cfg["eps"]))
    for att, counts, eps_list in cases:
        m, p = int(round(counts.sum())), counts / counts.sum()
        beta = beta_star(cfg["delta"], m, p.size)
        for eps in eps_list:
            designs, found = {}, []
            # as the study: the LDP design first, and it seeds the PML design (eps-LDP is on the ball)
            for privacy, b in (("ldp", 0.0), ("pml", beta)):
                iters = cfg["engine"]["max_iterations"] if p.size <= EXHAUSTIVE_LIMIT else large[privacy]
                t = time.perf_counter()
                d = designs[privacy] = optimal_mechanism(
                    p, eps, privacy=privacy, beta=b, utility="frequency_mse", tol=cfg["engine"]["tol"],
                    max_iterations=iters, warm_start=[designs["ldp"]] if privacy == "pml" else [])
                sec = time.perf_counter() - t
                # every LDP oracle is eps-LDP, hence feasible for both: the design's value over the
                # least of their standard variances (records fixed, per record) must be at most 1
                oracles = {name: oracle_mse(FrequencyOracle(name, p.size, eps), p, 1) for name in ORACLES}
                best = min(oracles, key=oracles.get)
                history = d.stats.get("history") or [(d.value, d.bound, sec)]
                row = dict(attribute=att, n=p.size, eps=eps, privacy=privacy, beta=b, value=d.value,
                           first_value=history[0][0], bound=d.bound,
                           gap=(d.value - d.bound) / (1 + d.value), certified=d.certified, iterations=d.iterations,
                           outputs=d.channel.shape[1], seconds=round(sec, 2),
                           seconds_to_1pct=seconds_to_target(history, d.stats.get("incumbent", math.inf)),
                           limited_by=d.stats.get("limited_by", ""),
                           best_oracle=best, oracle_ratio=d.value / oracles[best])
                print(row, flush=True)
                found.append(row)
            rows += found[::-1]
    return rows


def write_meta(csv_path: Path, command: str, note: str) -> None:
    """The JSON beside a measurement CSV: the command, the commit measured, date, machine, note."""
    from benchmark_pages import commit_of
    from benchmark_pages import write_meta as write_json

    write_json(csv_path.with_suffix(".json"),
               dict(command=command, commit=commit_of(ROOT), date=datetime.date.today().isoformat(),
                    machine=f"{platform.machine()}, Linux {platform.release()}, Python {platform.python_version()}",
                    note=note))


def measured_line(meta: dict) -> str:
    """The sentence under a generated table: commit, date, machine, command and note."""
    return (f"Measured on commit `{meta['commit']}` ({meta['date']}, {meta['machine']}) by "
            f"`{meta['command']}`. {meta.get('note', '')}").rstrip()


def gap_of_value(row: dict) -> float:
    """(value - bound) / value of a row: the gap relative to the value itself, beside the engine's
    relative gap (value - bound) / (1 + value) (the ``gap`` column, the measure of ``tol`` and of
    *seconds to 1 %*), which is smaller by the factor value / (1 + value)."""
    value = float(row["value"])
    return (value - float(row["bound"])) / value


def table(csv_path: Path = OUT) -> str:
    """The page of the CSV and its JSON (markdown)."""
    meta = json.loads(csv_path.with_suffix(".json").read_text())
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    lines = [f"<!-- generated by tools/frequency_design_benchmark.py from docs/measurements/{csv_path.name}; "
             "do not edit -->", "",
             "| attribute | N | eps | privacy | beta | tr J^-1 - 1 | after one iteration | lower bound | relative gap | "
             "gap / value | certified | iterations | seconds | seconds to 1 % | limited by | "
             "value / best oracle (which) |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|"]
    for r in rows:
        to_target = f"{float(r['seconds_to_1pct']):.1f}" if r["seconds_to_1pct"] else "-"
        lines.append(f"| {r['attribute']} | {r['n']} | {float(r['eps']):g} | {r['privacy']} | {float(r['beta']):.4f} | "
                     f"{float(r['value']):.6g} | {float(r['first_value']):.6g} | {float(r['bound']):.6g} | "
                     f"{float(r['gap']):.1e} | {gap_of_value(r):.2%} | {r['certified']} | "
                     f"{r['iterations']} | {float(r['seconds']):.1f} | {to_target} | {r['limited_by']} | "
                     f"{float(r['oracle_ratio']):.3f} ({r['best_oracle']}) |")
    lines += ["", measured_line(meta), ""]
    return "\n".join(lines)


def render_page(csv_path: Path, table) -> str:
    """Write the page ``table(csv_path)`` renders beside the CSV (the .md the docs include); returns it."""
    text = table(csv_path)
    csv_path.with_suffix(".md").write_text(text)
    return text


def render(csv_path: Path = OUT) -> str:
    return render_page(csv_path, table)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--priors", type=Path, default=ROOT / "results" / "adult-design" / "priors.csv")
    ap.add_argument("--only", default="")
    ap.add_argument("--large-iterations", type=int, default=None,
                    help="LDP iterations for N > EXHAUSTIVE_LIMIT (default: the study's large_max_iterations)")
    ap.add_argument("--large-iterations-pml", type=int, default=None,
                    help="PML iterations there, seeded with the LDP design (default: the study's large_max_iterations_pml)")
    ap.add_argument("--csv", type=Path, default=OUT)
    ap.add_argument("--render", action="store_true")
    ap.add_argument("--note", default="")
    ap.add_argument("--joint", default="", help="two or more attributes designed as one, e.g. education,marital-status")
    ap.add_argument("--dataset", type=Path, default=ROOT / "results" / "adult-design" / "dataset.csv")
    ap.add_argument("--joint-eps", default="", help="the joint attribute's eps (default: the study's)")
    ap.add_argument("--append", action="store_true", help="add the rows to the CSV instead of replacing it")
    ap.add_argument("--family", default="", help="instead of the study's attributes: Dirichlet draws of these N, "
                    "e.g. 42,74 (with --draws, --seed; write them with --csv elsewhere)")
    ap.add_argument("--draws", type=int, default=3, help="--family: draws per N")
    ap.add_argument("--seed", type=int, default=44, help="--family: the draws' seed")
    args = ap.parse_args()
    if not args.render:
        joint = tuple(filter(None, args.joint.split(",")))
        joint_eps = [float(e) for e in filter(None, args.joint_eps.split(","))]
        rows = measure(args.priors, set(filter(None, args.only.split(","))), args.large_iterations,
                       joint, args.dataset, joint_eps, args.large_iterations_pml,
                       (tuple(int(x) for x in args.family.split(",")), args.draws, args.seed) if args.family else None)
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with open(args.csv, "a" if args.append else "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            if not args.append:
                w.writeheader()
            w.writerows(rows)
        opts = " ".join(f"--{k} {v}" for k, v in (("family", args.family), ("draws", args.family and args.draws),
                                                   ("seed", args.family and args.seed),
                                                   ("large-iterations", args.large_iterations),
                                                   ("large-iterations-pml", args.large_iterations_pml)) if v)
        if args.append:
            opts += " --append"
        write_meta(args.csv, f"python tools/frequency_design_benchmark.py {opts}".strip(), args.note)
    print(render(args.csv))


if __name__ == "__main__":
    main()
