"""What the end of a live session shows, for the hooks that ask the agent to propose.

A hook at a prompt or at the end of a turn reads the end of the transcript its payload names
(Claude Code's session file, Codex's rollout) with `extract`'s own moment finders, and says
each moment in one line the agent can place. The read is bounded (`END_BYTES`) and never
waits: the file must be a regular file, opened without blocking, so a path swapped for a
FIFO or a device gives nothing rather than a hung hook.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from orbit_learnings.curation.capture.moments import Moment, find_moments
from orbit_learnings.curation.capture.moments.base import ANSI, failed
from orbit_learnings.curation.capture.sessions import TOOL_RESULT, TOOL_USE, Turn

END_BYTES = 4 << 20  # the end of the session read: a turn's worth and more, however long it is


@dataclass
class Noticed:
    lines: list[str] = field(default_factory=list)  # each moment in one line, oldest first
    proposed: bool = False  # the session (in what was read) proposed a learning


def read_end(path: str | None) -> Noticed | None:
    """The moments in the end of the session at `path`, and whether it proposed; None when
    there is no regular file to read there."""
    from orbit_learnings.curation.capture.readers import session_of_text

    if not path:
        return None
    text = end_of(path, max_bytes=END_BYTES)
    if text is None:
        return None
    session = session_of_text(path, text)
    results = {t.tool_id: t for t in session.turns if t.kind == TOOL_RESULT and t.tool_id}
    proposed = any(
        _proposes(turn) and not failed(results.get(turn.tool_id)) for turn in session.turns
    )
    ordered = sorted(find_moments(session), key=lambda m: m.lines[0])
    return Noticed([described(m) for m in ordered], proposed)


def end_of(path: str, *, max_bytes: int) -> str | None:
    """The last `max_bytes` of a regular file, from the start of a record (the line cut in
    half is left out); None for anything else, without blocking on it."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        return None
    with os.fdopen(descriptor, "rb") as handle:
        start = max(0, status.st_size - max_bytes - 1)  # a record starting at the cut stays
        handle.seek(start)
        raw = handle.read(max_bytes + 1)
    if start > 0:
        raw = raw.partition(b"\n")[2]
    return raw.decode("utf-8", errors="replace")


def _proposes(turn: Turn) -> bool:
    """A call of `orbit learning propose`, by the CLI (not its `--help`) or the MCP tool."""
    if turn.kind != TOOL_USE:
        return False
    if turn.tool.replace("_", ".").lower().endswith("learning.propose"):
        return True
    from orbit_learnings.curation.capture import commands

    for segment in commands.segments(str(turn.tool_input.get("command", ""))):
        words = commands.program_words(segment)  # `uv run orbit …`, `ORBIT_X=1 orbit …`
        if words[:3] == ["orbit", "learning", "propose"]:
            return not {"--help", "-h"} & set(words[3:])
    return False


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
    error = _short(ANSI.sub("", moment.error), 70)
    if moment.kind == "error-fix" and moment.failed:
        failed_command, fixed = _short(moment.failed, 60), _short(moment.fixed, 60)
        passed = f"then `{fixed}` passed" if fixed and fixed != failed_command else "then it passed"
        return f"`{failed_command}` failed ({error}); {passed}"
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
