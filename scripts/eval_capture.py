#!/usr/bin/env python3
"""Capture quality on real public session transcripts, labelled before any tuning.

    python scripts/eval_capture.py                  # both sets, a table per set
    python scripts/eval_capture.py --set heldout --json
    python scripts/eval_capture.py --misses         # the labelled lessons no moment covered

Sets in tests/eval/capture/: `tuning` (22 sessions, owners a-m), `fresh` (9 sessions of
other owners, labelled blind later; measured once untouched, then a tuning set) and `heldout`
(15 sessions, owners n-z, written by someone who saw neither the code nor the tuning set;
never used to pick a parameter). Each labelled lesson names the 1-based lines of the
session file where it shows. A moment covers a lesson when one of the lesson's lines lies
within `SLACK` lines of the moment's span (a refusal's reason sits a line or two after the
refused call).

Reported, overall and by kind of lesson and by strength: coverage (share of labelled lessons
some moment covers), moments per session, and moments per session labelled empty.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SETS = ROOT / "tests" / "eval" / "capture"
SLACK = 3


def load(name: str) -> list[dict[str, Any]]:
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load((folder(name) / "labels.yaml").read_text(encoding="utf-8"))
    sessions: list[dict[str, Any]] = data["sessions"]
    return sessions


# The committed sets, then the corpora whose transcripts were fetched and are never
# committed (their labels are: tests/eval/capture/README.md says how to get the sessions).
SET_NAMES = (
    "tuning",
    "fresh",
    "corpus-a",
    "corpus-b",
    "corpus-c",
    "corpus-d",
    "corpus-e",
    "corpus-f",
    "corpus-g",
    "corpus-h",
    "corpus-i",
    "corpus-j",
    "corpus-k",
    "corpus-l",
    "corpus-m",
    "corpus-n",
    "heldout",
)


def present_sets() -> tuple[str, ...]:
    return tuple(name for name in SET_NAMES if (SETS / name / "sessions").is_dir())


def folder(name: str) -> Path:
    """A set of tests/eval/capture by name, or any folder holding a labels.yaml (`--dir`)."""
    return Path(name) if "/" in name else SETS / name


def covers(span: list[int], lesson: dict[str, Any]) -> bool:
    low, high = min(span) - SLACK, max(span) + SLACK
    return any(low <= int(line) <= high for line in lesson["lines"])


def evaluate(name: str) -> dict[str, Any]:
    from orbit_learnings.curation.capture.extract import extract_sessions

    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_strength: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    moments = empty_sessions = empty_moments = 0
    misses: list[dict[str, Any]] = []
    files: list[dict[str, object]] = []
    for session in load(name):
        path = str(folder(name) / session["file"])
        result = extract_sessions([path], None)
        files.extend(result.files)
        spans = [m.lines for _, m in result.moments]
        moments += len(spans)
        if not session["lessons"]:
            empty_sessions += 1
            empty_moments += len(spans)
        for lesson in session["lessons"]:
            hit = any(covers(span, lesson) for span in spans)
            for table, key in ((by_kind, lesson["kind"]), (by_strength, lesson["strength"])):
                table[key][0] += hit
                table[key][1] += 1
            if not hit:
                misses.append({"file": session["file"], **lesson})
    total = [sum(v[0] for v in by_strength.values()), sum(v[1] for v in by_strength.values())]
    count = len(files)
    return {
        "set": name,
        "sessions": count,
        "coverage": _share(total),
        "coverage_firm": _share(by_strength.get("firm", [0, 0])),
        "by_kind": {k: _share(v) for k, v in sorted(by_kind.items())},
        "by_strength": {k: _share(v) for k, v in sorted(by_strength.items())},
        "moments_per_session": round(moments / count, 2) if count else 0.0,
        "empty_sessions": empty_sessions,
        "moments_per_empty_session": round(empty_moments / empty_sessions, 2)
        if empty_sessions
        else 0.0,
        "lines_skipped": sum(int(str(f["skipped"])) for f in files),
        "misses": misses,
    }


def _share(pair: list[int]) -> dict[str, float | int]:
    hit, of = pair
    return {"covered": hit, "of": of, "share": round(hit / of, 2) if of else 0.0}


def _print(report: dict[str, Any], *, misses: bool) -> None:
    print(f"== {report['set']}: {report['sessions']} sessions")
    cov = report["coverage"]
    firm = report["coverage_firm"]
    print(f"coverage       {cov['share']:.2f} ({cov['covered']}/{cov['of']} lessons)")
    print(f"coverage firm  {firm['share']:.2f} ({firm['covered']}/{firm['of']})")
    for kind, share in report["by_kind"].items():
        print(f"  {kind:<12} {share['share']:.2f} ({share['covered']}/{share['of']})")
    print(f"moments/session        {report['moments_per_session']}")
    empty = report["moments_per_empty_session"]
    print(f"moments/empty session  {empty} (over {report['empty_sessions']} sessions)")
    print(f"lines skipped          {report['lines_skipped']}")
    if misses:
        for miss in report["misses"]:
            print(f"  MISS {miss['file']}:{miss['lines']} [{miss['kind']}] {miss['summary']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set",
        choices=(*SET_NAMES, "both"),
        default="both",
        help="both = tuning, fresh, the corpora whose sessions are present, then heldout",
    )
    parser.add_argument(
        "--dir", help="a folder with labels.yaml and sessions/, in the same schema (not committed)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    names = present_sets() if args.set == "both" else (args.set,)
    if args.dir:
        names = (str(Path(args.dir).resolve()),)
    reports = [evaluate(name) for name in names]
    if args.json:
        print(json.dumps(reports, indent=2, ensure_ascii=False))
    else:
        for report in reports:
            _print(report, misses=args.misses)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
