"""Three-way merge of one learning's `learning.yaml`, field by field (git's merge driver).

Git merges text line by line, and every edit rewrites `updated_at`, so two
branches that edit different fields of one learning always conflicted. Here the
unit is a field: a field changed on one side takes that side's lines as written;
`updated_at` takes the later time; list fields (`scope.paths`, `scope.tags`,
`evidence`) keep what either side added and drop what either side removed. Only
a field both sides changed differently is left between standard conflict
markers, labelled with the field, for `check` to name with its line.

Two different learnings under one ID (an add/add conflict) are not field-merged:
the whole file is left in conflict for `resolve-conflict` to split.
"""

from __future__ import annotations

from typing import Any

from orbit_learnings.core.timestamps import normalise_ts
from orbit_learnings.store.yamlio import FIELD_CONFLICT, SurgicalEditor, YamlSyntaxError, safe_load

MISSING: Any = object()
LIST_FIELDS = {("scope", "paths"), ("scope", "tags"), ("evidence",)}


class Merged:
    """The merged text and the fields left in conflict (empty: a clean merge)."""

    def __init__(self, text: str, conflicts: list[str], *, whole: bool = False) -> None:
        self.text = text
        self.conflicts = conflicts
        self.whole = whole  # two different learnings: the file as one conflict

    @property
    def clean(self) -> bool:
        return not self.conflicts


def merge_learning(base: str, ours: str, theirs: str) -> Merged:
    """Merge `theirs` into `ours` given their common `base` (all three file texts)."""
    if ours == theirs:
        return Merged(ours, [])
    try:
        old, mine, other = (safe_load(t) if t.strip() else None for t in (base, ours, theirs))
    except YamlSyntaxError:
        return _whole_conflict(ours, theirs)
    if not (isinstance(old, dict) and isinstance(mine, dict) and isinstance(other, dict)):
        return _whole_conflict(ours, theirs)
    if not _same_learning(old, mine) or not _same_learning(old, other):
        return _whole_conflict(ours, theirs)
    editor = SurgicalEditor(ours)
    theirs_editor = SurgicalEditor(theirs)
    conflicts: list[str] = []
    for key in [*mine, *(k for k in other if k not in mine)]:
        was, now, incoming = old.get(key, MISSING), mine.get(key, MISSING), other.get(key, MISSING)
        if now == incoming or incoming == was:
            continue
        if key == "updated_at":
            if _later(incoming, now):
                editor.put_block(key, theirs_editor.block(key))
        elif now == was:
            editor.put_block(key, theirs_editor.block(key))
        elif key == "scope" and all(isinstance(v, dict) for v in (was, now, incoming)):
            conflicts += _merge_scope(editor, was, now, incoming)
        elif (key,) in LIST_FIELDS and isinstance(now, list) and isinstance(incoming, list):
            editor.set((key,), merge_list(_as_list(was), now, incoming))
        else:
            conflicts.append(key)
    return Merged(_with_markers(editor, theirs_editor, conflicts), conflicts)


def merge_list(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    """Ours in its order, without what theirs removed, then what only theirs added."""
    kept = [item for item in ours if item not in base or item in theirs]
    return kept + [item for item in theirs if item not in base and item not in kept]


def _merge_scope(
    editor: SurgicalEditor, was: dict[str, Any], now: dict[str, Any], incoming: dict[str, Any]
) -> list[str]:
    merged = dict(now)
    for key in [*now, *(k for k in incoming if k not in now)]:
        b, o, t = was.get(key, MISSING), now.get(key, MISSING), incoming.get(key, MISSING)
        if o == t or t == b:
            continue
        if o == b:
            merged[key] = t
        elif ("scope", key) in LIST_FIELDS and isinstance(o, list) and isinstance(t, list):
            merged[key] = merge_list(_as_list(b), o, t)
        else:
            return ["scope"]
    editor.set(("scope",), {k: v for k, v in merged.items() if v is not MISSING})
    return []


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _same_learning(base: dict[str, Any], side: dict[str, Any]) -> bool:
    """One learning on both sides of the merge: same ID and birth record as the base."""
    return all(base.get(key) == side.get(key) for key in ("id", "created_at"))


def _later(incoming: Any, now: Any) -> bool:
    try:
        return normalise_ts(incoming) > normalise_ts(now)
    except (TypeError, ValueError):
        return False


def _with_markers(editor: SurgicalEditor, theirs: SurgicalEditor, conflicts: list[str]) -> str:
    """Standard conflict markers around each conflicting field, bottom up so spans hold."""
    lines = list(editor.lines)
    spans = sorted(((editor.line_span(key), key) for key in conflicts), reverse=True)
    for (start, end), key in spans:
        label = f"{FIELD_CONFLICT}{key} changed on both branches)"
        marked = [
            f"<<<<<<< ours {label}\n",
            *lines[start:end],
            "=======\n",
            *theirs.block(key).splitlines(keepends=True),
            ">>>>>>> theirs\n",
        ]
        lines[start:end] = marked
    return "".join(lines)


def _whole_conflict(ours: str, theirs: str) -> Merged:
    def ended(text: str) -> str:
        return text if text.endswith("\n") or not text else text + "\n"

    text = f"<<<<<<< ours\n{ended(ours)}=======\n{ended(theirs)}>>>>>>> theirs\n"
    return Merged(text, ["*"], whole=True)
