#!/usr/bin/env python3
"""Every draft `orbit learning extract` makes (no model) as a markdown list for a reviewer.

    python scripts/drafts_for_review.py --set tuning > tuning-drafts.md
    python scripts/drafts_for_review.py ~/.claude/projects/-home-me-shop/*.jsonl
    python scripts/drafts_for_review.py --set tuning --seed 7   # shuffled, for blind review
    python scripts/drafts_for_review.py --set tuning --src /work/main/src   # another checkout's
    python scripts/drafts_for_review.py --set tuning --json     # for collating verdicts

The reviewer has seen no code: each entry shows the session it came from, what happened (the
moment, quoted), and the draft exactly as `drafts accept` would store it (summary, body,
scope), followed by a line to mark: keep as is / keep with light edits / reject. Sessions of
a set are drafted one by one, as `scripts/eval_capture.py` reads them; files passed on the
command line are drafted together, as one `orbit learning extract` run would.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SETS = ROOT / "tests" / "eval" / "capture"
QUOTE_CHARS = 700


def drafts_of(groups: list[list[str]]) -> list[dict[str, Any]]:
    """Each draft with the moment it came from, in session order."""
    from orbit_learnings.curation.capture.extract import extract_sessions

    found: list[dict[str, Any]] = []
    for paths in groups:
        result = extract_sessions(paths, None)
        moments = {(s.path, m.lines[0]): m for s, m in result.moments}
        for draft in result.drafts:
            source = draft.source
            lines = source.get("lines")
            first = lines[0] if isinstance(lines, list) and lines else 0
            moment = moments.get((str(source.get("file")), int(first)))
            found.append({"draft": draft, "moment": moment})
    return found


def moment_quote(moment: Any) -> str:
    """What happened, in the session's own words and output."""
    if moment is None:
        return "(moment not found)"
    if moment.kind == "error-fix":
        shown = f"failed: {_command(moment.failed)}\n  → {moment.error}\n"
        shown += f"then succeeded: {_command(moment.fixed)}"
        for path, old, new in moment.edits[:2]:
            if not (old.strip() or new.strip()):
                continue  # a patch whose lines the session did not keep
            shown += f"\nafter editing {path}:\n- {old.strip()[:200]}\n+ {new.strip()[:200]}"
        return shown
    said = str(moment.said)
    return said if len(said) <= QUOTE_CHARS else said[:QUOTE_CHARS] + " …"


def _command(text: str) -> str:
    """A command as the reviewer needs it: its first lines (a here-document's body is data)."""
    lines = text.strip().splitlines()
    shown = "\n".join(lines[:3]) + ("\n…" if len(lines) > 3 else "")
    return shown[:400]


def _quoted(text: str, indent: str = "   ") -> str:
    return "\n".join(f"{indent}> {line}" if line else f"{indent}>" for line in text.splitlines())


def to_markdown(entries: list[dict[str, Any]]) -> str:
    out = [f"# Drafts for review ({len(entries)})", ""]
    out.append(
        "For each draft: would you keep it as a team learning **as is**, **with light edits** "
        "(a few words changed, the rule stays), or **reject** it (wrong, not a rule, or a "
        "rewrite needed)?"
    )
    out.append("")
    for number, entry in enumerate(entries, start=1):
        draft, moment = entry["draft"], entry["moment"]
        session = Path(str(draft.source.get("file"))).name
        out.append(f"{number}. **{draft.summary}**")
        out.append(f"   - session: `{session}`, lines {draft.source.get('lines')}")
        out.append(f"   - moment ({draft.detector}):")
        out.append(_quoted(moment_quote(moment), "     "))
        out.append("   - body:")
        out.append(_quoted(draft.body, "     "))
        paths = ", ".join(f"`{p}`" for p in draft.paths) or "(whole repository)"
        out.append(f"   - scope: {paths}; tags: {', '.join(draft.tags) or '—'}")
        out.append("   - verdict: as is / light edits / reject — why:")
        out.append("")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", nargs="*", help="session files, drafted as one run")
    parser.add_argument(
        "--set", choices=("tuning", "fresh", "heldout"), help="a labelled set's sessions"
    )
    parser.add_argument("--dir", help="a folder of sessions/ (a corpus kept out of git)")
    parser.add_argument("--seed", type=int, help="shuffle the drafts (blind review)")
    parser.add_argument("--src", help="draft with another checkout's src/ (e.g. main's: before)")
    parser.add_argument("--json", action="store_true", help="one JSON object per draft")
    args = parser.parse_args()
    if args.src:
        sys.path.insert(0, str(Path(args.src).resolve()))
    if args.set or args.dir:
        folder = Path(args.dir) / "sessions" if args.dir else SETS / args.set / "sessions"
        groups = [[str(p)] for p in sorted(folder.glob("*.jsonl"))]
    elif args.sessions:
        groups = [list(args.sessions)]
    else:
        parser.error("name session files or --set")
    entries = drafts_of(groups)
    if args.seed is not None:
        random.Random(args.seed).shuffle(entries)
    if args.json:
        print(json.dumps([to_record(e) for e in entries], indent=1, ensure_ascii=False))
    else:
        print(to_markdown(entries))
    return 0


def to_record(entry: dict[str, Any]) -> dict[str, object]:
    draft = entry["draft"]
    return {
        "session": Path(str(draft.source.get("file"))).name,
        "lines": draft.source.get("lines"),
        "moment": draft.detector,
        "quote": moment_quote(entry["moment"]),
        "summary": draft.summary,
        "body": draft.body,
        "paths": draft.paths,
        "tags": draft.tags,
    }


if __name__ == "__main__":
    raise SystemExit(main())
