#!/usr/bin/env python3
"""What the opt-in Stop reflection would ask, replayed over the labelled sessions.

    python scripts/eval_reflection.py                    # every set present, pooled
    python scripts/eval_reflection.py --set corpus-e --set corpus-f
    python scripts/eval_reflection.py --dir /path/to/corpus   # labels.yaml + sessions/

Claude Code runs the Stop hook at the end of every turn; the reflection asks at most once
a session. Each session is replayed turn by turn: a turn ends before each later message of
the person, and at the end. Two triggers are compared at the first turn end where each
would ask:

- prompt cues: a message of the person so far reads as a rule (`rule_cue`, what the
  UserPromptSubmit nudge counts); the request names nothing.
- transcript moments: `extract`'s own moment finders on the session so far find one; the
  request names up to `nudge.MAX_NOTICED` of them.

With the nudge on too, each later prompt names up to three moments the transcript shows that
were not named yet (the Stop of a turn comes before the next prompt). The choosing and the
naming are the hooks' own (`nudge._unnamed`, `nudge.described`); the session so far is read
whole, as the hooks read it up to 4 MiB.

Reported: the share of sessions it asks in (and of sessions labelled empty), the share of
labelled lessons in the sessions it asks in, and the share named (a named moment covers the
lesson, as `eval_capture.covers` counts it). Reports only; it asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import eval_capture  # noqa: E402  (beside this script)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.curation.capture.moments import Moment


@dataclasses.dataclass
class Tally:
    sessions: int = 0
    empty: int = 0
    lessons: int = 0
    asked: dict[str, int] = dataclasses.field(default_factory=lambda: {"cues": 0, "moments": 0})
    asked_empty: dict[str, int] = dataclasses.field(
        default_factory=lambda: {"cues": 0, "moments": 0}
    )
    reached: dict[str, int] = dataclasses.field(default_factory=lambda: {"cues": 0, "moments": 0})
    named: int = 0  # by the reflection alone
    named_with_nudge: int = 0  # by the reflection and the nudge at each later prompt


def replay(folder: Path, sessions: list[dict[str, Any]], tally: Tally) -> None:
    from orbit_learnings.curation.capture.moments import find_moments, rule_cue
    from orbit_learnings.curation.capture.nudge import _unnamed, described
    from orbit_learnings.curation.capture.readers import read_session
    from orbit_learnings.curation.capture.sessions import USER

    for labelled in sessions:
        session = read_session(str(folder / labelled["file"]), max_bytes=256 << 20)
        lessons = labelled["lessons"]
        said = [i for i, turn in enumerate(session.turns) if turn.kind == USER]
        tally.sessions, tally.lessons = tally.sessions + 1, tally.lessons + len(lessons)
        tally.empty += not lessons
        texts = [session.turns[i].text for i in said]
        cues = any(len(text.split()) >= 3 and rule_cue(text[:2000]) for text in texts)
        _count(tally, "cues", asked=cues, lessons=lessons)
        asked = False
        alone: dict[str, object] = {}  # a session's state with the reflection alone
        both: dict[str, object] = {}  # … and with the nudge on too
        named: list[Moment] = []
        by_nudge: list[Moment] = []
        for end in [*said[1:], len(session.turns)]:
            so_far = dataclasses.replace(session, turns=session.turns[:end])
            found = sorted(find_moments(so_far), key=lambda m: m.lines[0])
            by_line = {described(m): m for m in found}
            lines = list(by_line)
            if found and not asked:  # the Stop that ends the turn
                asked, named = True, [by_line[x] for x in _unnamed(alone, lines)]
                by_nudge += [by_line[x] for x in _unnamed(both, lines)]
            if end < len(session.turns):  # the next prompt
                by_nudge += [by_line[x] for x in _unnamed(both, lines)]
        _count(tally, "moments", asked=asked, lessons=lessons)
        tally.named += _covered(named, lessons)
        tally.named_with_nudge += _covered(by_nudge, lessons)


def _covered(moments: list[Moment], lessons: list[Any]) -> int:
    return sum(any(eval_capture.covers(m.lines, lesson) for m in moments) for lesson in lessons)


def _count(tally: Tally, trigger: str, *, asked: bool, lessons: list[Any]) -> None:
    if asked:
        tally.asked[trigger] += 1
        tally.asked_empty[trigger] += not lessons
        tally.reached[trigger] += len(lessons)


def report(tally: Tally) -> str:
    def share(part: int, whole: int) -> str:
        return f"{part / whole:.2f}" if whole else "-"

    rows = [f"{tally.sessions} sessions ({tally.empty} labelled empty), {tally.lessons} lessons"]
    for trigger, title in (("cues", "prompt cues"), ("moments", "transcript moments")):
        rows.append(
            f"{title:<19} asks in {share(tally.asked[trigger], tally.sessions)} of sessions, "
            f"{tally.asked_empty[trigger]} of {tally.empty} empty; lessons in those sessions "
            f"{share(tally.reached[trigger], tally.lessons)}; named "
            + (share(tally.named, tally.lessons) if trigger == "moments" else "none")
        )
    rows.append(f"{'with the nudge':<19} names {share(tally.named_with_nudge, tally.lessons)}")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", choices=eval_capture.SET_NAMES)
    parser.add_argument("--dir", action="append", default=[], help="labels.yaml + sessions/")
    args = parser.parse_args()
    names = [*(args.set or ([] if args.dir else eval_capture.present_sets()))]
    folders = [eval_capture.folder(n) for n in names] + [Path(d).resolve() for d in args.dir]
    tally = Tally()
    for folder in folders:
        replay(folder, eval_capture.load(str(folder)), tally)
    print(report(tally))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
