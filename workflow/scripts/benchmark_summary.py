"""Per-rule wall times of a pipeline run, from Snakemake's benchmark files, as a markdown table.

Usage (from the repository root, after a run):  python workflow/scripts/benchmark_summary.py [benchmarks/]
Paste the output into README.md, section "Benchmark".
"""

import argparse
import sys

from leakage.report import benchmark_jobs, benchmark_markdown, benchmark_table, elapsed_estimate


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_dir", nargs="?", default="benchmarks", help="default: benchmarks")
    args = parser.parse_args(argv)
    try:
        jobs = benchmark_jobs(args.bench_dir)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(benchmark_markdown(benchmark_table(args.bench_dir)))
    print(
        f"\nElapsed (first job start to last job end, from the benchmark files' times): "
        f"{elapsed_estimate(jobs):.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
