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
end of a turn at most once a session, and never when the session proposed something since
the first moment or when Claude Code says a stop hook is already active.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import CAPTURE_MOMENTS_FILE
from orbit_learnings.store.workspace import Workspace

STATE_FILE = CAPTURE_MOMENTS_FILE  # session -> {"moments", "asked", "proposals"}
MAX_SESSIONS = 200  # the state keeps the most recent sessions only: it is a hint, not a log
NUDGE = (
    "If this message corrects a convention of this repository (not a one-off instruction), "
    "propose it as a learning once the task is done: `orbit learning propose --summary ... "
    "--path ... --body ...` or the MCP tool orbit.learning.propose. A person reviews it."
)
REFLECT = (
    "Before you finish: the user corrected or stated a convention of this repository in this "
    "session and no learning was proposed. If it will matter next time, propose one now "
    "(`orbit learning propose` or orbit.learning.propose) — summary one line, scope as narrow "
    "as the lesson, the user's words as evidence. If not, just finish."
)


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


def at_prompt(ws: Workspace, session: str | None, prompt: str | None) -> str:
    """The nudge for a prompt that reads as a rule, when switched on; else ""."""
    text = (prompt or "").strip()
    if not session or len(text.split()) < 3:
        return ""
    on = switched_on(ws)
    if not on:
        return ""  # off (the default): the prompt hook pays for nothing more
    from orbit_learnings.curation.capture.moments import rule_cue

    if not rule_cue(text[:2000]):
        return ""
    states = _load(ws)
    state = states.setdefault(session, {"moments": 0, "asked": False, "proposals": _count(ws)})
    state["moments"] = _number(state.get("moments")) + 1
    _save(ws, states)
    return NUDGE if "nudge" in on else ""


def at_stop(ws: Workspace, session: str | None, *, already_active: bool) -> str:
    """The reflection request, once a session, when a moment came and nothing was proposed."""
    if not session or already_active or not enabled(ws, "reflect"):
        return ""
    states = _load(ws)
    state = states.get(session)
    if not state or state.get("asked") or not state.get("moments"):
        return ""
    state["asked"] = True
    _save(ws, states)
    return "" if _count(ws) > _number(state.get("proposals")) else REFLECT


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
