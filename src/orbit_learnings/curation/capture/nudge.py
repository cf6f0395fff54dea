"""Asking the agent to propose, at the moment a lesson shows — opt-in, per repository.

The agent that just lived a lesson writes it best. Two moments, each switched on in
`.orbit/config.yaml` (so a shared settings file never turns them on for a team that did
not ask):

```yaml
capture:
  nudge: true     # UserPromptSubmit: one line when the user's message reads as a rule
  reflect: true   # Stop: ask once, when such a moment came and nothing was proposed
```

The nudge is about 60 tokens, added only to prompts that read as a rule (`never`,
`always`, `instead`, `以后`, … — the same cues `extract` uses). The reflection blocks the
end of a turn at most once a session, and never when the session proposed something or
when Claude Code says a stop hook is already active. It reads the end of the session's
transcript with `extract`'s own moment finders, so it asks after any moment (a refusal, a
command that failed and then passed another way, a finding), not only a rule-shaped prompt,
and names up to three of them (about 70 tokens, plus 40 a moment): patterns find where a
lesson shows, the agent that lived it writes it.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import CAPTURE_MOMENTS_FILE
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.curation.capture.moments import Moment
    from orbit_learnings.curation.capture.sessions import Turn

STATE_FILE = CAPTURE_MOMENTS_FILE  # session -> {"moments", "asked", "proposals"}
MAX_SESSIONS = 200  # the state keeps the most recent sessions only: it is a hint, not a log
NUDGE = (
    "If this message corrects a convention of this repository (not a one-off instruction), "
    "propose it as a learning once the task is done: `orbit learning propose --summary ... "
    "--path ... --body ...` or the MCP tool orbit.learning.propose. A person reviews it."
)
REFLECT = (
    "Before you finish: this session had a moment where a lesson about this repository may "
    "show (the user corrected or stated a convention, or something failed and then worked "
    "another way) and no learning was proposed. If it will matter next time, propose one now "
    "(`orbit learning propose` or orbit.learning.propose) — summary one line, scope as narrow "
    "as the lesson, the user's words or the failing output as evidence. If not, just finish."
)
NOTICED = "\n\nWhat orbit noticed:\n"
NOTICED_SINCE = (
    "orbit noticed in this session (propose a learning only if it will matter next time; "
    "a person reviews it):\n"
)
MAX_NOTICED = 3  # moments named in one request
MAX_NAMED = 50  # moments remembered as named, per session
TRANSCRIPT_BYTES = 4 << 20  # the end of the session read at a stop: bounded, a hook never waits


def switched_on(ws: Workspace) -> set[str]:
    """The capture moments on in `.orbit/config.yaml` (`nudge`, `reflect`), read once."""
    from orbit_learnings.store import config

    try:
        section = config.load(ws).get("capture")
    except OrbitError:
        return set()  # a broken config never breaks a hook
    if not isinstance(section, dict):
        return set()
    return {key for key in ("nudge", "reflect") if section.get(key) is True}


def enabled(ws: Workspace, key: str) -> bool:
    return key in switched_on(ws)


def at_prompt(
    ws: Workspace, session: str | None, prompt: str | None, *, transcript: str | None = None
) -> str:
    """The nudge, when switched on: a line when the prompt reads as a rule, and the moments
    the `transcript` shows since the last one named (each named once); else ""."""
    text = (prompt or "").strip()
    if not session:
        return ""
    on = switched_on(ws)
    if not on:
        return ""  # off (the default): the prompt hook pays for nothing more
    from orbit_learnings.curation.capture.moments import rule_cue

    ruled = len(text.split()) >= 3 and bool(rule_cue(text[:2000]))
    read = _read_transcript(transcript) if "nudge" in on else None
    states = _load(ws)
    state = states.get(session, {})
    fresh = _unnamed(state, read[0] if read else [])
    if not ruled and not fresh:
        return ""
    if ruled:
        state.setdefault("proposals", _count(ws))
        state["moments"] = _number(state.get("moments")) + 1
    states[session] = state
    _save(ws, states)
    if "nudge" not in on:
        return ""
    return "\n\n".join(
        ([NUDGE] if ruled else []) + ([NOTICED_SINCE + _listed(fresh)] if fresh else [])
    )


def at_stop(
    ws: Workspace, session: str | None, *, already_active: bool, transcript: str | None = None
) -> str:
    """The reflection request, once a session, when a moment came and nothing was proposed:
    a moment in the end of the `transcript` (those a nudge has not named yet are named), or
    without one, a rule-shaped prompt the nudge saw."""
    if not session or already_active or not enabled(ws, "reflect"):
        return ""
    states = _load(ws)
    state = states.get(session, {})
    if state.get("asked"):
        return ""
    read = _read_transcript(transcript)
    noticed, proposed = read if read is not None else ([], False)
    if not noticed and (read is not None or not state.get("moments")):
        return ""  # the transcript, when there is one, says better than the prompts did
    fresh = _unnamed(state, noticed)
    state["asked"] = True
    states[session] = state
    _save(ws, states)
    if proposed or ("proposals" in state and _count(ws) > _number(state.get("proposals"))):
        return ""
    return REFLECT + (NOTICED + _listed(fresh) if fresh else "")


def _unnamed(state: dict[str, object], noticed: list[str]) -> list[str]:
    """The moments not named to this session yet, at most `MAX_NOTICED`, marked named."""
    named = state.get("named")
    seen = [str(key) for key in named] if isinstance(named, list) else []
    fresh = [line for line in noticed if _key(line) not in seen][:MAX_NOTICED]
    if fresh:
        state["named"] = (seen + [_key(line) for line in fresh])[-MAX_NAMED:]
    return fresh


def _key(line: str) -> str:
    import hashlib

    return hashlib.sha1(line.encode("utf-8")).hexdigest()[:12]


def _listed(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def _read_transcript(path: str | None) -> tuple[list[str], bool] | None:
    """The moments in the end of the session as one line each, and whether the session
    already proposed a learning; None when there is no transcript to read."""
    if not path or not os.path.isfile(path):
        return None
    from orbit_learnings.curation.capture.moments import find_moments
    from orbit_learnings.curation.capture.readers import read_session_end

    try:
        session = read_session_end(path, max_bytes=TRANSCRIPT_BYTES)
    except (OSError, ValueError):
        return None
    proposed = any(_proposes(turn) for turn in session.turns)
    ordered = sorted(find_moments(session), key=lambda m: m.lines[0])
    return [described(m) for m in ordered], proposed


def _proposes(turn: Turn) -> bool:
    """A call of `orbit learning propose`, by the CLI or the MCP tool."""
    from orbit_learnings.curation.capture.sessions import TOOL_USE

    if turn.kind != TOOL_USE:
        return False
    name = turn.tool.replace("_", ".").lower()
    return name.endswith("learning.propose") or "learning propose" in str(
        turn.tool_input.get("command", "")
    )


_SAID = {
    "rejection": "the user refused a call and said",
    "interruption": "the user interrupted and said",
    "queued": "the user said while you worked",
    "redo": "the user said after your edit",
    "pasted-error": "the user showed a failure",
    "stated": "the user stated with the task",
    "finding": "you found",
    "refused": "the user refused a call without a word; you had said",
}


def described(moment: Moment) -> str:
    """A moment as one line the agent can place: what was said, what failed and how it then
    passed, or what the machine would not do."""
    from orbit_learnings.curation.capture.moments.base import ANSI

    error = _short(ANSI.sub("", moment.error), 70)
    if moment.kind == "error-fix" and moment.failed:
        failed, fixed = _short(moment.failed, 60), _short(moment.fixed, 60)
        passed = f"then `{fixed}` passed" if fixed and fixed != failed else "then it passed"
        return f"`{failed}` failed ({error}); {passed}"
    if moment.kind == "blocked":
        return f"`{_short(moment.failed, 60)}` failed here ({error})"
    if moment.kind == "hang":
        return f"`{_short(moment.failed, 60)}` never returned"
    if moment.kind == "unreachable":
        return f"`{_short(' '.join(moment.files[:1]), 80)}` was out of your reach"
    words = moment.said or moment.failed or moment.error
    return f'{_SAID.get(moment.kind, "the user said")}: "{_short(words, 110)}"'


def _short(text: str, most: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def _number(value: object) -> int:
    return value if isinstance(value, int) else 0


def _count(ws: Workspace) -> int:
    from orbit_learnings.retrieval.queries import list_learnings

    return len(list_learnings(ws, status="proposed").hits)


def _path(ws: Workspace) -> str:
    return os.path.join(ws.state_dir_str, STATE_FILE)


def _load(ws: Workspace) -> dict[str, dict[str, object]]:
    try:
        with open(_path(ws), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def _save(ws: Workspace, states: dict[str, dict[str, object]]) -> None:
    from orbit_learnings.store.fileops import atomic_write_text

    recent = dict(list(states.items())[-MAX_SESSIONS:])
    try:
        os.makedirs(ws.state_dir_str, exist_ok=True)
        atomic_write_text(_path(ws), json.dumps(recent), durable=False)
    except OSError:
        pass  # a read-only checkout: no nudge state, no harm
