"""Changing a learning that exists: field updates and status changes, in place.

`update` (and the page's edits, `anchors --fix`, `prune --follow-renames`), `supersede`,
`archive`/`restore`, approving, rejecting or removing a proposal: each reads the learning
under the store lock and rewrites only the keys it changes (`edit_keys`, a line-preserving
edit: hand-written comments and `x-` keys survive), then bumps `updated_at`. Reading and
creating bundles is `store.bundles`; supersede links repaired on both sides, `store.links`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from orbit_learnings.core import model
from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.errors import OrbitError, UsageError
from orbit_learnings.core.model import Evidence, Learning
from orbit_learnings.core.scope import Scope
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.store import bundles
from orbit_learnings.store.allocation import heal_before_write, store_lock
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.workspace import Workspace


@dataclass(frozen=True)
class Changes:
    """Fields an update replaces; None means "leave as is". `add_*`/`remove_*` change one
    entry of a list (after `paths`/`tags` replaced it, when both are given)."""

    summary: str | None = None
    body: str | None = None
    paths: Sequence[str] | None = None
    tags: Sequence[str] | None = None
    priority: int | None = None
    add_evidence: Sequence[Evidence] = ()
    anchors: Sequence[Anchor] | None = None  # replaces the list; () removes every anchor
    add_paths: Sequence[str] = ()
    remove_paths: Sequence[str] = ()
    add_tags: Sequence[str] = ()
    remove_tags: Sequence[str] = ()
    add_repos: Sequence[str] = ()  # scope.repos, one entry at a time
    remove_repos: Sequence[str] = ()
    repos: Sequence[str] | None = None  # the folded list `applied_to` writes

    def is_empty(self) -> bool:
        return (
            self.summary is None
            and self.body is None
            and self.paths is None
            and self.tags is None
            and self.priority is None
            and not self.add_evidence
            and self.anchors is None
            and not (self.add_paths or self.remove_paths or self.add_tags or self.remove_tags)
            and not (self.add_repos or self.remove_repos or self.repos is not None)
        )

    def applied_to(self, current: Learning) -> Changes:
        """The same changes with one-entry edits folded into whole lists, against `current`."""
        from dataclasses import replace

        paths, tags = self.paths, self.tags
        if self.add_paths or self.remove_paths:
            base = current.paths if paths is None else paths
            paths = _edited_list(current.id, "path", base, self.add_paths, self.remove_paths)
        if self.add_tags or self.remove_tags:
            base = current.tags if tags is None else tags
            tags = _edited_list(current.id, "tag", base, self.add_tags, self.remove_tags)
        repos = self.repos
        if self.add_repos or self.remove_repos:
            base = current.repos if repos is None else repos
            repos = _edited_list(current.id, "repo", base, self.add_repos, self.remove_repos)
        return replace(
            self, paths=paths, tags=tags, repos=repos, add_paths=(), remove_paths=(),
            add_tags=(), remove_tags=(), add_repos=(), remove_repos=(),
        )  # fmt: skip


def _edited_list(
    learning_id: str, what: str, values: Sequence[str], add: Sequence[str], remove: Sequence[str]
) -> list[str]:
    """`values` with `add` appended (once) and `remove` taken out; removing what is not
    there is refused, so a typo never passes for a change."""
    kept = [v.strip() for v in values]
    for value in (v.strip() for v in remove):
        if value not in kept:
            listed = ", ".join(kept) or "none"
            raise UsageError(f"{learning_id} has no {what} {value!r} (its {what}s: {listed})")
        kept.remove(value)
    kept += [v.strip() for v in add if v.strip() and v.strip() not in kept]
    return kept


def update_learning(ws: Workspace, learning_id: str, changes: Changes) -> Learning:
    if changes.is_empty():
        raise UsageError("nothing to update: pass at least one of --summary, --body, --path, ...")
    learning = update_with(ws, learning_id, lambda current: changes)
    assert learning is not None  # the changes are not empty
    return learning


def update_with(
    ws: Workspace, learning_id: str, change: Callable[[Learning], Changes | None]
) -> Learning | None:
    """Read, modify and write one learning under the store lock: `change` sees the
    learning as the lock found it, so two writers at once both land (the page's bulk
    add-tag, `prune --follow-renames`, `anchors --fix`). None from it writes nothing."""
    with store_lock(ws):
        heal_before_write(ws, learning_id)
        current = bundles.read_learning(ws, learning_id)
        changes = change(current)
        if changes is None or changes.is_empty():
            return None
        changes = changes.applied_to(current)
        scope = Scope(
            changes.paths if changes.paths is not None else current.paths,
            changes.tags if changes.tags is not None else current.tags,
        )
        anchors = changes.anchors if changes.anchors is not None else current.anchors
        summary = changes.summary if changes.summary is not None else current.summary
        bundles.check_content(summary, scope, anchored=bool(anchors))
        bundles.check_repos(changes.repos or ())
        return edit_keys(ws, learning_id, _edits_for(current, changes))


DROP = object()  # an `Edit` value that removes a top-level key instead of setting it


@dataclass(frozen=True)
class Edit:
    key_path: tuple[str, ...]
    value: Any
    after: str | None = None  # where a key that does not exist yet is inserted


def _edits_for(current: Learning, changes: Changes) -> list[Edit]:
    from ruamel.yaml.scalarstring import LiteralScalarString

    edits: list[Edit] = []
    if changes.summary is not None:
        edits.append(Edit(("summary",), " ".join(changes.summary.split()), "scope"))
    if changes.body is not None:
        body = changes.body.strip("\n")
        edits.append(Edit(("body",), LiteralScalarString(body + "\n") if body else "", "summary"))
    if changes.paths is not None:
        edits.append(Edit(("scope", "paths"), list(Scope(paths=changes.paths).cleaned().paths)))
    if changes.tags is not None:
        edits.append(
            Edit(("scope", "tags"), list(Scope(tags=changes.tags).cleaned().tags), "paths")
        )
    if changes.repos is not None:
        edits.append(Edit(("scope", "repos"), list(changes.repos), "tags"))
    if changes.priority is not None:
        edits.append(Edit(("priority",), changes.priority))
    if changes.add_evidence:
        merged = list(current.evidence)
        merged += [e for e in changes.add_evidence if e not in merged]
        edits.append(Edit(("evidence",), [e.to_dict() for e in merged], "body"))
    if changes.anchors is not None:
        edits.append(Edit(("anchors",), [a.to_dict() for a in changes.anchors], "evidence"))
    return edits


def edit_keys(
    ws: Workspace, learning_id: str, edits: list[Edit], stamp: str | None = None
) -> Learning:
    """Edit one file in place: only the changed keys' lines change, then bump updated_at.

    Validates the result before an atomic write. Callers hold the store lock.
    """
    from orbit_learnings.store.yamlio import SurgicalEditor, YamlSyntaxError, timestamp_value

    path = bundles.learning_file(ws, learning_id)
    text = bundles.text_of(ws, learning_id, path)
    bundles.parse_learning(text, learning_id, ws.relative(path))  # refuse to edit an invalid file
    crlf = "\r\n" in text  # a Windows checkout's line endings survive the edit
    editor = SurgicalEditor(text.replace("\r\n", "\n") if crlf else text)
    bump = Edit(("updated_at",), timestamp_value(stamp or now_iso()), "created_at")
    try:
        for edit in [*edits, bump]:
            if edit.value is DROP:
                editor.put_block(edit.key_path[0], "")
            else:
                editor.set(edit.key_path, edit.value, edit.after)
    except (ValueError, KeyError, YamlSyntaxError) as exc:  # what it cannot edit in place
        where = ws.relative(path)
        raise OrbitError(f"{where} cannot be edited in place ({exc}); edit it by hand") from None
    result = editor.text.replace("\n", "\r\n") if crlf else editor.text
    bundles.refuse_oversized(result, learning_id)
    learning = bundles.parse_learning(result, learning_id, ws.relative(path))
    atomic_write_text(path, result)
    return learning


def supersede(ws: Workspace, old_id: str, new_id: str) -> tuple[Learning, Learning]:
    """Mark OLD superseded by NEW and link NEW back, both under one lock.

    NEW is written first: a crash in between leaves `supersedes` set on NEW,
    which reads already honour, and re-running completes the link.
    """
    if old_id == new_id:
        raise UsageError(f"a learning cannot supersede itself ({old_id})")
    with store_lock(ws):
        old = bundles.read_learning(ws, old_id)
        new = bundles.read_learning(ws, new_id)
        _check_supersede(old, new)
        stamp = now_iso()
        new = edit_keys(ws, new_id, [Edit(("supersedes",), old_id, "evidence")], stamp)
        old = edit_keys(
            ws,
            old_id,
            [Edit(("status",), "superseded"), Edit(("superseded_by",), new_id, "supersedes")],
            stamp,
        )
    return old, new


def archive_learning(ws: Workspace, learning_id: str, reason: str | None = None) -> Learning:
    """Retire a learning without deleting it: excluded from lists, search and injection.
    The one door `archive`, `prune --archive` and the dashboard all go through."""
    return archive_learnings(ws, [learning_id], reason)[0]


def archive_learnings(
    ws: Workspace, learning_ids: Sequence[str], reason: str | None = None
) -> list[Learning]:
    """Archive each learning (already archived: its reason is updated, if one is given),
    recording `reason` as `archived_reason`; every ID is read before any file is written,
    so one that names no learning changes nothing."""
    reason = " ".join((reason or "").split()) or None
    if reason is not None and len(reason) > model.MAX_SUMMARY_CHARS:
        raise UsageError(f"--reason is at most {model.MAX_SUMMARY_CHARS} characters")
    with store_lock(ws):
        current = [bundles.read_learning(ws, learning_id) for learning_id in learning_ids]
        done: list[Learning] = []
        for learning in current:
            edits = [Edit(("status",), "archived")] if learning.status != "archived" else []
            if reason is not None and reason != learning.archived_reason:
                edits.append(Edit(("archived_reason",), reason, "status"))
            done.append(edit_keys(ws, learning.id, edits) if edits else learning)
    return done


def restore_learnings(ws: Workspace, learning_ids: Sequence[str]) -> list[Learning]:
    """Bring archived learnings back: `superseded` when a `superseded_by` link survives,
    else `active`; the archive reason goes. One not archived is left as it is."""
    with store_lock(ws):
        current = [bundles.read_learning(ws, learning_id) for learning_id in learning_ids]
        done: list[Learning] = []
        for learning in current:
            if learning.status != "archived":
                done.append(learning)
                continue
            status = "superseded" if learning.superseded_by else "active"
            edits = [Edit(("status",), status), Edit(("archived_reason",), DROP)]
            done.append(edit_keys(ws, learning.id, edits))
    return done


def supersede_from_elsewhere(ws: Workspace, old: Learning, new_id: str) -> Learning:
    """Replace a learning of another store (an org learning) with one of this store: only
    this store's file changes (`supersedes: O-0012`), which hides the other one here."""
    with store_lock(ws):
        new = bundles.read_learning(ws, new_id)
        if new.status != "active":
            raise OrbitError(f"{new.id} is {new.status}; only an active learning can supersede")
        if new.supersedes == old.id:
            raise OrbitError(f"{old.id} is already superseded by {new.id} here")
        if new.supersedes is not None:
            raise OrbitError(f"{new.id} already supersedes {new.supersedes}")
        return edit_keys(ws, new_id, [Edit(("supersedes",), old.id, "evidence")])


def mark_replaced(ws: Workspace, learning_id: str, other_id: str) -> Learning | None:
    """Mark an active learning superseded by one of another store (its promoted org
    copy); None when it is not active here or is already linked."""
    with store_lock(ws):
        current = bundles.read_learning(ws, learning_id)
        if current.status != "active" or current.superseded_by is not None:
            return None
        edits = [Edit(("status",), "superseded"), Edit(("superseded_by",), other_id, "supersedes")]
        return edit_keys(ws, learning_id, edits)


def set_status(
    ws: Workspace, learning_id: str, status: str, *, from_statuses: Sequence[str]
) -> Learning:
    """Move one learning to `status` under the store lock; already there is a no-op."""
    with store_lock(ws):
        current = bundles.read_learning(ws, learning_id)
        if current.status == status:
            return current
        if current.status not in from_statuses:
            allowed = " or ".join(from_statuses)
            raise OrbitError(
                f"{learning_id} is {current.status}; only {allowed} can become {status}"
            )
        return edit_keys(ws, learning_id, [Edit(("status",), status)])


def remove_proposal(ws: Workspace, learning_id: str) -> None:
    """Delete a proposal's bundle (git keeps its history); any other status is refused."""
    import shutil

    with store_lock(ws):
        current = bundles.read_learning(ws, learning_id)
        if current.status != "proposed":
            raise OrbitError(
                f"{learning_id} is {current.status}, not a proposal; archive it instead"
            )
        shutil.rmtree(ws.bundle_dir(learning_id))


def _check_supersede(old: Learning, new: Learning) -> None:
    if new.status != "active":
        raise OrbitError(f"{new.id} is {new.status}; only an active learning can supersede another")
    if new.supersedes not in (None, old.id):
        raise OrbitError(f"{new.id} already supersedes {new.supersedes}")
    if old.status == "archived":
        raise OrbitError(f"{old.id} is archived; restore it before superseding it")
    if old.superseded_by not in (None, new.id):
        raise OrbitError(f"{old.id} is already superseded by {old.superseded_by}")
    if old.status == "superseded" and old.superseded_by is None:
        raise OrbitError(f"{old.id} is already superseded")
    fully_linked = old.status == "superseded" and new.supersedes == old.id
    if fully_linked:
        raise OrbitError(f"{old.id} is already superseded by {new.id}")
