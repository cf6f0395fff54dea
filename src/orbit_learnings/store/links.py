"""Supersede links set or cleared on both sides at once (`update --supersedes/--superseded-by`).

A link is a pair: the old learning's `superseded_by` and the new one's `supersedes`. A
one-sided link (two branches that both superseded one learning, a crash between the two
writes of `supersede`) is what `check` reports; these functions are how it is repaired
without editing YAML. Whatever a change unhooks is unhooked on its other side too: the
learning that loses its replacement is `active` again, the one that loses what it
replaced stops claiming it. Every file is read before any is written, under one lock.
"""

from __future__ import annotations

from orbit_learnings.core.errors import OrbitError, UsageError
from orbit_learnings.core.model import Learning
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.store import bundles as store
from orbit_learnings.store.allocation import store_lock
from orbit_learnings.store.changes import Edit, edit_keys
from orbit_learnings.store.workspace import Workspace

NONE = "none"  # what `--supersedes none` / `--superseded-by none` clear a link with


def set_supersedes(ws: Workspace, new_id: str, old_id: str | None) -> list[Learning]:
    """`new_id` supersedes `old_id` (None: supersedes nothing); returns what changed."""
    with store_lock(ws):
        new = store.read_learning(ws, new_id)
        if old_id is None:
            return _write(ws, [*_unhook_old(ws, new), (new, _supersedes(None))])
        old = _partner(ws, new, old_id)
        return _link(ws, old, new)


def set_superseded_by(ws: Workspace, old_id: str, new_id: str | None) -> list[Learning]:
    """`old_id` is superseded by `new_id` (None: by nothing, so active again)."""
    with store_lock(ws):
        old = store.read_learning(ws, old_id)
        if new_id is None:
            edits = [*_superseded_by(None), *_status_back(old)]
            return _write(ws, [*_unhook_new(ws, old), (old, edits)])
        new = _partner(ws, old, new_id)
        return _link(ws, old, new)


def _partner(ws: Workspace, learning: Learning, other_id: str) -> Learning:
    if other_id == learning.id:
        raise UsageError(f"a learning cannot supersede itself ({other_id})")
    return store.read_learning(ws, other_id)


def _link(ws: Workspace, old: Learning, new: Learning) -> list[Learning]:
    if old.supersedes == new.id:
        raise OrbitError(f"{old.id} supersedes {new.id}; a link cannot point both ways")
    plan = _unhook_old(ws, new, keep=old.id) + _unhook_new(ws, old, keep=new.id)
    status = [] if old.status in ("archived", "superseded") else [Edit(("status",), "superseded")]
    plan += [(new, _supersedes(old.id)), (old, [*status, *_superseded_by(new.id)])]
    return _write(ws, plan)


Plan = list[tuple[Learning, list[Edit]]]


def _unhook_old(ws: Workspace, new: Learning, keep: str | None = None) -> Plan:
    """The learning `new` superseded until now stops pointing back at it."""
    previous = _existing(ws, new.supersedes)
    if previous is None or previous.id == keep or previous.superseded_by != new.id:
        return []
    return [(previous, [*_superseded_by(None), *_status_back(previous)])]


def _unhook_new(ws: Workspace, old: Learning, keep: str | None = None) -> Plan:
    """The learning that superseded `old` until now stops claiming it."""
    previous = _existing(ws, old.superseded_by)
    if previous is None or previous.id == keep or previous.supersedes != old.id:
        return []
    return [(previous, _supersedes(None))]


def _existing(ws: Workspace, learning_id: str | None) -> Learning | None:
    """The learning a link names, or None when it names none (a dangling link)."""
    if learning_id is None or not store.learning_file(ws, learning_id).is_file():
        return None
    return store.read_learning(ws, learning_id)


def _supersedes(target: str | None) -> list[Edit]:
    return [Edit(("supersedes",), target, "evidence")]


def _superseded_by(target: str | None) -> list[Edit]:
    return [Edit(("superseded_by",), target, "supersedes")]


def _status_back(learning: Learning) -> list[Edit]:
    """A learning nothing supersedes any more is active again (an archived one stays so)."""
    return [Edit(("status",), "active")] if learning.status == "superseded" else []


def _write(ws: Workspace, plan: Plan) -> list[Learning]:
    """One stamp for every file of the change; each file's edits merged in plan order."""
    stamp = now_iso()
    merged: dict[str, list[Edit]] = {}
    for learning, edits in plan:
        merged.setdefault(learning.id, []).extend(edits)
    return [edit_keys(ws, lid, edits, stamp) for lid, edits in merged.items() if edits]
