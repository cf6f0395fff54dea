"""`anchors --fix`: rewrite the anchors whose lines merely moved, never the drifted ones.

Only the place changes (path and lines); the fingerprint and the recorded date stay, so
an anchor keeps measuring drift from what its author saw. A drifted anchor waits for a
human to re-read the lesson and re-record it with `update --anchor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from orbit_learnings.core.anchors.locate import MOVED, OK, CodeText, locate
from orbit_learnings.core.model import Learning
from orbit_learnings.retrieval.anchors import AnchorState
from orbit_learnings.store.changes import Changes, update_with
from orbit_learnings.store.workspace import Workspace, read_workspace_text


class Move:
    """One anchor to rewrite: `L-0007 src/a.py:10-20 -> src/b.py:14-24`."""

    __slots__ = ("learning_id", "new", "old")

    def __init__(self, learning_id: str, old: str, new: str) -> None:
        self.learning_id = learning_id
        self.old = old
        self.new = new

    def to_dict(self) -> dict[str, str]:
        return {"id": self.learning_id, "from": self.old, "to": self.new}


def planned_moves(states: Sequence[AnchorState]) -> list[Move]:
    return [
        Move(s.learning_id, s.anchor.cited, f"{s.location.path}:{s.location.lines}")
        for s in states
        if s.state == MOVED
    ]


def apply_moves(ws: Workspace, states: Sequence[AnchorState]) -> list[Move]:
    """Rewrite each learning's moved anchors in one in-place edit per learning. Each move
    is checked again on the file as it is now, so a stale verdict (the file changed or
    went since it was judged) never points an anchor at lines that are not there."""
    done: list[Move] = []
    by_learning: dict[str, list[AnchorState]] = {}
    files: dict[str, CodeText | None] = {}
    for state in states:
        if state.state == MOVED and _still_there(ws, state, files):
            by_learning.setdefault(state.learning_id, []).append(state)
    for learning_id, moved in by_learning.items():
        applied: list[AnchorState] = []
        update_with(ws, learning_id, partial(_moved, moved=moved, applied=applied))
        done += planned_moves(applied)
    return done


def _still_there(ws: Workspace, state: AnchorState, files: dict[str, CodeText | None]) -> bool:
    """Whether the anchor's lines are, today, exactly where the verdict says they went."""
    where = state.location
    if where.path not in files:
        text = read_workspace_text(ws, where.path)
        files[where.path] = None if text is None else CodeText(where.path, text)
    code = files[where.path]
    if code is None:
        return False
    now = locate(state.anchor, code)
    return now.state in (OK, MOVED) and (now.start, now.end) == (where.start, where.end)


def _moved(
    current: Learning, *, moved: list[AnchorState], applied: list[AnchorState]
) -> Changes | None:
    """The anchors as read under the store lock, with each still-recorded move applied
    (the file may have changed since the index saw it); None when none applies."""
    anchors = list(current.anchors)
    for state in moved:
        if state.position < len(anchors) and anchors[state.position] == state.anchor:
            where = state.location
            anchors[state.position] = state.anchor.moved_to(where.path, where.start, where.end)
            applied.append(state)
    return Changes(anchors=anchors) if applied else None
