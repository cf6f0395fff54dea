"""Moments where a lesson shows, found from what happened rather than from phrases.

Signals that hold in any language and with any model's manners, by who shows the lesson:

- the person (`person`): `rejection` (a refused tool call, usually with why), `refused`
  (a change refused without a word), `interruption`, `queued` (typed while the agent
  worked), `redo` (the person spoke right after the agent's edit or command, and the agent
  edited that file again or ran that operation another way), a failure the person
  answers or shows from their own terminal, and a later message that reads as a rule
  (or that the agent writes into an instructions file); `stated`, a standing rule about
  something concrete in the message that states the task;
- the work (`operations`): `error-fix`, one operation failing, then succeeding after a
  change of the command itself (a flag, a variable, the container it runs in) or of a
  configuration file, after a setup step, or failing differently (it got past the first
  failure), or a missing command replaced by a related one that ran;
- the environment (`environment`): `hang`, a command that never returns in the agent's
  shell; `unreachable`, a path the person names that the agent cannot reach; `blocked`,
  an operation the machine refused (a permission, a full disk, a daemon) and never allowed;
- the agent (`findings`): `finding`, a cause it names or a claim it takes back, right after
  a question, a report or a failure, or its answer to the person's "why".

Each moment keeps its evidence: the line numbers, the person's words, the failing output
and the commands or files that changed. The strongest are kept: `PER_SESSION`, or one per
two of the person's messages in a longer session.
"""

from __future__ import annotations

from orbit_learnings.curation.capture.moments.base import (
    EDIT_TOOLS,
    FILE_TOOLS,
    Moment,
    changed_files,
    first_error_line,
    rule_cue,
)
from orbit_learnings.curation.capture.moments.environment import (
    hangs,
    machine_refusals,
    missing_programs,
    unreachable_paths,
)
from orbit_learnings.curation.capture.moments.findings import findings
from orbit_learnings.curation.capture.moments.operations import (
    error_fix_moments,
    replaced_moments,
    what_changed,
)
from orbit_learnings.curation.capture.moments.person import person_moments
from orbit_learnings.curation.capture.sessions import USER, Session

THRESHOLD = 0.45  # chosen on the tuning set only (scripts/eval_capture.py)
# At most this many moments a session, or one per two of the person's messages in a longer
# one (chosen on the tuning sets: tuning, fresh and three local corpora; 1.4-2.9 a session).
PER_SESSION = 5


def find_moments(session: Session) -> list[Moment]:
    """The session's strongest moments, at most `PER_SESSION` or one per two of the person's
    messages (a long conversation holds more lessons), in the order they happened."""
    turns = [t for t in session.turns if not t.sidechain]
    found = person_moments(turns) + error_fix_moments(turns, session.cwd) + findings(turns)
    found += replaced_moments(turns) + hangs(turns) + unreachable_paths(turns, session.cwd)
    found += machine_refusals(turns) + missing_programs(turns)
    kept = sorted((m for m in found if m.score >= THRESHOLD), key=lambda m: -m.score)
    room = max(PER_SESSION, sum(1 for t in turns if t.kind == USER and t.text.strip()) // 2)
    return sorted(_one_per_line(kept)[:room], key=lambda m: m.lines[0])


def _one_per_line(moments: list[Moment]) -> list[Moment]:
    """The strongest moment of each key line: a message that is a path out of reach is not
    also a follow-up (moments come strongest first)."""
    seen: set[int] = set()
    kept = []
    for moment in moments:
        if moment.lines[0] not in seen:
            seen.add(moment.lines[0])
            kept.append(moment)
    return kept


__all__ = [
    "EDIT_TOOLS",
    "FILE_TOOLS",
    "PER_SESSION",
    "THRESHOLD",
    "Moment",
    "changed_files",
    "find_moments",
    "first_error_line",
    "rule_cue",
    "what_changed",
]
