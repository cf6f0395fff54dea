#!/usr/bin/env python3
"""Anchor drift detection on the labelled history in tests/fixtures/anchor_history.py.

    python scripts/eval_anchors.py            # the report
    python scripts/eval_anchors.py --json     # the same figures as JSON
    python scripts/eval_anchors.py --misses   # also list every wrong state

Builds the fixture's git repository in a temporary folder with the installed orbit,
runs `orbit learning anchors --json` after every commit and compares it with the labels:
(a) the confusion matrix of expected vs reported state, (b) precision and recall of drift
detection (positive = drifted or broken), overall, on the step where each change happened,
and by kind of change, (c) how often a moved anchor is reported moved to exactly the right
place, and (d) after the last commit, whether `anchors --fix --yes` rewrote exactly the
moved anchors. The labels say what a user wants to be told, not what an algorithm finds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.anchor_history import STATES  # noqa: E402
from tests.fixtures.anchor_repo import BuildError, Step, build  # noqa: E402
from tests.fixtures.anchor_scoring import (  # noqa: E402
    MISSING,
    Observation,
    by_kind,
    check_fix,
    confusion,
    drift_scores,
    misses,
    moved_accuracy,
    observe,
)


def evaluate(workdir: Path) -> dict[str, Any]:
    observations: list[Observation] = []
    steps: list[Step] = []

    def collect(step: Step) -> None:
        steps.append(step)
        observations.extend(observe(step))

    build(workdir, collect)
    last = [o for o in observations if o.label.step == steps[-1].number]
    return {
        "steps": len(steps),
        "anchors": len(steps[0].labels),
        "observations": len(observations),
        "confusion": confusion(observations),
        "drift": drift_scores(observations),
        "drift_fresh": drift_scores(o for o in observations if o.label.fresh and o.label.step),
        "drift_by_kind": by_kind(observations),
        "moved": moved_accuracy(observations),
        "fix": check_fix(steps[-1], last).summary(),
        "misses": misses(observations),
    }


def fmt(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.2f}"


def print_confusion(table: dict[str, dict[str, int]]) -> None:
    columns = [*STATES, MISSING]
    print("(a) expected \\ reported  " + "".join(f"{c:>9}" for c in columns))
    for state, row in table.items():
        print(f"    {state:<20}" + "".join(f"{row[c]:>9}" for c in columns))


def print_drift(report: dict[str, Any]) -> None:
    print("\n(b) drift detection (positive = drifted or broken)")
    print(f"    {'':<30}{'n':>5}{'tp':>5}{'fp':>5}{'fn':>5}   prec recall")
    for name, key in (("all observations", "drift"), ("at the changing step", "drift_fresh")):
        print_drift_row(name, report[key])
    print("    by kind of the latest change (all observations):")
    for kind, row in report["drift_by_kind"].items():
        print_drift_row(f"  {kind}", row)


def print_drift_row(name: str, row: dict[str, Any]) -> None:
    counts = "".join(f"{row[k]:>5}" for k in ("n", "tp", "fp", "fn"))
    print(f"    {name:<30}{counts}  {fmt(row['precision'])} {fmt(row['recall'])}")


def print_moved_and_fix(report: dict[str, Any]) -> None:
    moved, fix = report["moved"], report["fix"]
    print(
        f"\n(c) moved anchors at the right place: {moved['right_place']}/{moved['expected_moved']}"
        f" ({fmt(moved['accuracy']).strip()}); reported moved at all: {moved['reported_moved']}"
    )
    for line in moved["wrong"]:
        print(f"      {line}")
    verdict = "exactly the moved anchors" if fix["exact"] else "NOT exactly the moved anchors"
    print(f"\n(d) anchors --fix --yes rewrote {verdict}")
    print(f"      expected:  {', '.join(fix['expected']) or '-'}")
    print(f"      rewritten: {', '.join(fix['rewritten']) or '-'}")
    for name in ("wrong_place", "not_ok_after"):
        if fix[name]:
            print(f"      {name}: {', '.join(fix[name])}")
    print(f"      bundles changed: {fix['bundles_changed']} (expected {fix['bundles_expected']})")


def print_report(report: dict[str, Any], *, show_misses: bool) -> None:
    print(
        f"{report['anchors']} anchors x {report['steps']} steps = "
        f"{report['observations']} labelled observations\n"
    )
    print_confusion(report["confusion"])
    print_drift(report)
    print_moved_and_fix(report)
    if show_misses:
        print("\nwrong states:")
        for line in report["misses"]:
            print(f"  {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="list every wrong state")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="orbit-anchor-eval-") as tmp:
        try:
            report = evaluate(Path(tmp))
        except BuildError as exc:
            print(f"eval_anchors: the fixture could not be built or read:\n{exc}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report, show_misses=args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
