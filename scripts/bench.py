#!/usr/bin/env python3
"""Benchmark harness for the hot paths (reports, never asserts).

    python scripts/bench.py                 # 100, 1,000 and 10,000 learnings -> docs/performance.md
    python scripts/bench.py --sizes 1000 --json
    python scripts/bench.py --quick --json  # the tiny smoke run the test suite uses
    python scripts/bench.py --dashboard     # the dashboard's pages at 5,000 and 10,000 (printed)
    python scripts/bench.py --reads --baseline DIR  # read paths, DIR's src/ beside this one's

Each store is synthetic but realistic: deep `**` globs, file globs, exact paths
and tag-only learnings, 0-20 votes each. Whole-process timings are reported as
a ratio to the floor `python -c "import sqlite3, json"` measured in the same run.
This file parses the options and picks the mode; the modes, the stores they build and
the measuring live in scripts/benchlib/, one module per mode.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchlib.dashboard import bench_dashboard, dashboard_markdown
from benchlib.hot import NOTES_MARKER, bench_size, markdown
from benchlib.measure import machine
from benchlib.reads import bench_reads
from benchlib.reads_table import reads_markdown
from benchlib.stale import bench_stale
from benchlib.store import ROOT


def main() -> int:
    args = parse_args()
    if args.dashboard:
        return dashboard_main(args)
    if args.reads:
        return reads_main(args)
    return hot_main(args)


def hot_main(args: argparse.Namespace) -> int:
    """The default run (written to docs/performance.md, or printed with `--json`), and
    `--only-stale` (its staleness part alone, printed as JSON)."""
    if args.quick:
        args.sizes, args.repeats, args.process_repeats = [30], 3, 2
        args.stale_files, args.stale_repeats = 300, 1
    results = []
    for size in args.sizes:
        print(f"benchmarking {size} learnings...", file=sys.stderr)
        baseline = args.stale_baseline if args.only_stale else None
        stale = bench_stale(size, args.stale_files, args.stale_repeats, baseline)
        if args.only_stale:
            results.append(stale)
            continue
        results.append(bench_size(size, args.repeats, args.process_repeats) | {"stale": stale})
    info = machine()
    if args.only_stale:
        args.json = True
    if args.json:
        print(json.dumps({"machine": info, "results": results}, indent=2))
    else:
        notes = ""  # hand-written analysis below the marker survives regeneration
        if args.out.exists() and NOTES_MARKER in args.out.read_text():
            notes = args.out.read_text().split(NOTES_MARKER, 1)[1]
        args.out.write_text(markdown(results, info) + "\n" + NOTES_MARKER + notes)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def parse_args() -> argparse.Namespace:
    """The options, checked: a baseline folder must hold the package."""
    parser = build_parser()
    args = parser.parse_args()
    # A folder without the package would run the installed one (this checkout's) under
    # the baseline's name: a comparison of the code with itself, silently.
    for flag, folder in (
        ("--baseline", args.baseline and args.baseline / "src"),
        ("--stale-baseline", args.stale_baseline),
    ):
        if folder is not None and not (folder / "orbit_learnings" / "__init__.py").is_file():
            parser.error(f"{flag}: no orbit_learnings package in {folder}")
    args.sizes_given = args.sizes is not None
    args.sizes = args.sizes or [100, 1000, 10000]
    return args


def build_parser() -> argparse.ArgumentParser:
    """Every mode's options; the usage examples are the module's docstring."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--process-repeats", type=int, default=15)
    parser.add_argument("--stale-files", type=int, default=20000, help="files in the stale runs")
    parser.add_argument("--stale-repeats", type=int, default=3)
    parser.add_argument(
        "--only-stale", action="store_true", help="only `check --stale` and `prune`; prints JSON"
    )
    parser.add_argument(
        "--stale-baseline",
        type=Path,
        help="with --only-stale: also time an older package from this folder, interleaved",
    )
    parser.add_argument(
        "--reads",
        action="store_true",
        help="only the read paths (search phases, hot commands), over --runs runs; prints a table",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="with --reads: also time the package of this checkout (its src/), interleaved",
    )
    parser.add_argument("--runs", type=int, default=3, help="with --reads: how many runs")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run (used by the tests)")
    parser.add_argument(
        "--dashboard",
        action="store_true",
        help="only the dashboard's pages (default sizes 5,000 and 10,000); prints a table",
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON instead of writing docs/performance.md"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "performance.md")
    return parser


def reads_main(args: argparse.Namespace) -> int:
    """`--reads`: the read paths of this checkout (and of `--baseline`), interleaved."""
    versions = {"after": ROOT / "src"}
    if args.baseline is not None:
        versions = {"before": args.baseline.resolve() / "src", **versions}
    sizes = [30] if args.quick else args.sizes if args.sizes_given else [1000, 10000]
    runs, repeats = (1, 3) if args.quick else (args.runs, min(args.repeats, 30))
    proc_repeats = 2 if args.quick else args.process_repeats
    results = []
    for size in sizes:
        print(f"benchmarking the read paths at {size} learnings...", file=sys.stderr)
        results += bench_reads(size, versions, runs, repeats, proc_repeats)
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=2))
    else:
        print(reads_markdown(results, list(versions)))
    return 0


def dashboard_main(args: argparse.Namespace) -> int:
    """`--dashboard`: the three pages at each size, printed (never written to the docs:
    the before/after figures in docs/performance.md are runs of this, copied by hand)."""
    sizes = [30] if args.quick else args.sizes if args.sizes_given else [5000, 10000]
    repeats = 3 if args.quick else min(args.repeats, 30)
    results = []
    for size in sizes:
        print(f"benchmarking the dashboard at {size} learnings...", file=sys.stderr)
        results.append(bench_dashboard(size, repeats))
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=2))
    else:
        print(dashboard_markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
