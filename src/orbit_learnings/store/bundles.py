"""Learning bundles on disk: `.orbit/learnings/<id>/learning.yaml` and its sidecars.

The files are the only source of truth. Every write is atomic, ID allocation
and multi-file changes happen under a store-wide lock, and edits go through a
round-trip load so hand-written comments and `x-` extension keys survive.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbit_learnings.core import ids, model
from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.errors import NotFound, OrbitError, Problem, UsageError, ValidationFailed
from orbit_learnings.core.model import Evidence, Learning
from orbit_learnings.core.scope import EMPTY, Scope
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.store.allocation import (
    allocate_id,
    heal_before_write,
    refuse_legacy_layout,
    store_lock,
)
from orbit_learnings.store.allocation import legacy_files as legacy_files  # setup and check
from orbit_learnings.store.fileops import MAX_FILE_BYTES, atomic_write_text, read_regular_text
from orbit_learnings.store.layout import LEARNING_FILE
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.store.votes import Vote, VoteSummary

# --- layout -------------------------------------------------------------------


def bundle_ids(ws: Workspace) -> list[str]:
    if not ws.learnings_dir.is_dir():
        return []
    return sorted(
        entry.name
        for entry in os.scandir(ws.learnings_dir)
        if entry.is_dir() and ids.is_learning_id(entry.name)
    )


def missing(ws: Workspace, learning_id: str, detail: str = "") -> NotFound:
    """The error for an ID that names no learning, with a "did you mean" when one is close."""
    meant = ids.meant_id(learning_id, bundle_ids(ws))
    hint = f"; did you mean {meant}?" if meant else (f" ({detail})" if detail else "")
    return NotFound(f"no learning {learning_id}{hint}")


def learning_file(ws: Workspace, learning_id: str) -> Path:
    return ws.bundle_dir(learning_id) / LEARNING_FILE


# --- reading ------------------------------------------------------------------


def parse_learning(text: str, folder_id: str | None, display_path: str) -> Learning:
    """Validate one file's text; every problem is reported as `file:line: message`."""
    from orbit_learnings.store.yamlio import (
        YamlSyntaxError,
        conflict_problems,
        has_conflict_markers,
        line_of,
        safe_load,
    )

    if has_conflict_markers(text):
        raise ValidationFailed(conflict_problems(text, folder_id, display_path))
    try:
        data = safe_load(text)
    except YamlSyntaxError as exc:
        raise ValidationFailed(
            [Problem(display_path, exc.line, exc.message, folder_id, "yaml")]
        ) from None
    try:
        return model.validate(data, folder_id)
    except model.SchemaError as exc:
        problems = [
            Problem(display_path, line_of(text, fp.key_path), fp.message, folder_id, fp.kind)
            for fp in exc.problems
        ]
        raise ValidationFailed(problems) from None


def read_learning(ws: Workspace, learning_id: str) -> Learning:
    path = learning_file(ws, learning_id)
    return parse_learning(_text_of(ws, learning_id, path), learning_id, ws.relative(path))


def _text_of(ws: Workspace, learning_id: str, path: Path) -> str:
    """A learning file's text, refusing links, devices, huge files and bad UTF-8 cleanly."""
    if not ids.is_learning_id(learning_id):
        raise missing(ws, learning_id)  # never a path: `update /etc/passwd` names no learning
    try:
        return read_regular_text(path)
    except FileNotFoundError:
        raise missing(ws, learning_id, f"looked for {ws.relative(path)}") from None
    except UnicodeDecodeError:
        raise OrbitError(f"{ws.relative(path)} is not UTF-8 text") from None


def read_bundle_votes(ws: Workspace, learning_id: str) -> tuple[list[Vote], list[Problem]]:
    from orbit_learnings.store.votes import read_bundle_votes as read

    return read(ws, learning_id)


# --- writing ------------------------------------------------------------------


@dataclass(frozen=True)
class NewLearning:
    summary: str
    scope: Scope = EMPTY
    body: str = ""
    evidence: Sequence[Evidence] = ()
    priority: int = 0
    created_by: str | None = None
    anchors: Sequence[Anchor] = ()
    status: str = "active"  # "proposed": in the store for review, never read until approved
    repos: Sequence[str] = ()  # scope.repos: an org learning's repositories (`--repo`)


def refuse_oversized(text: str, learning_id: str) -> None:
    """The readers' bound, kept by every writer: refused before it is written, not skipped."""
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise UsageError(
            f"body too long: {learning_id} would be {size} bytes, and a learning is at most"
            f" {MAX_FILE_BYTES}"
        )


def check_content(summary: str, scope: Scope, *, anchored: bool = False) -> None:
    """Refuse content the schema would reject, before anything touches disk."""
    from orbit_learnings.core.globs import compile_glob

    # Worded for every door (the CLI, MCP, the page's API): fields, never a CLI flag.
    if not summary.strip():
        raise UsageError("a learning needs a non-empty summary")
    if len(" ".join(summary.split())) > model.MAX_SUMMARY_CHARS:
        raise UsageError(
            f"the summary is {len(summary)} characters; a summary is at most"
            f" {model.MAX_SUMMARY_CHARS} (put the rest in the body)"
        )
    scope = scope.cleaned()
    for tag in scope.tags:
        check_tag(tag)
    if not scope and not anchored:
        raise UsageError("a learning needs at least one path glob, tag or anchor")
    for glob in scope.paths:
        compile_glob(glob)


def check_repos(globs: Sequence[str]) -> None:
    """`scope.repos` entries as the format allows them: repository-name globs."""
    from orbit_learnings.core.scope import repo_glob_problem

    for glob in globs:
        problem = repo_glob_problem(glob) if glob.strip() else "is empty"
        if problem is not None:
            raise UsageError(f"repository glob {glob!r} {problem}")


def check_tag(tag: str) -> None:
    """A tag is one word: `--tag db`, `#db`; one with a space could never be typed back
    as one `--tag` in a lookup's `tag:a b` or matched by the page's tag list."""
    if len(tag) > model.MAX_TAG_CHARS:
        limit = model.MAX_TAG_CHARS
        raise UsageError(f"tag {tag[:40]!r}...: a tag is at most {limit} characters")
    if any(character.isspace() for character in tag):
        joined = "-".join(tag.split())
        raise UsageError(f"tag {tag!r} has a space; a tag is one word (say {joined!r})")


def create_learning(ws: Workspace, new: NewLearning, taken: Collection[str] = ()) -> Learning:
    """Allocate the next ID under the store lock and write the bundle atomically; `taken`
    are IDs held elsewhere that it must not reuse (`allocation.allocate_id`)."""
    from orbit_learnings.store.yamlio import dump_new

    check_content(new.summary, new.scope, anchored=bool(new.anchors))
    check_repos(new.repos)
    refuse_legacy_layout(ws)
    ws.learnings_dir.mkdir(parents=True, exist_ok=True)
    with store_lock(ws):
        heal_before_write(ws)
        learning_id = allocate_id(ws, taken)
        stamp = now_iso()
        try:
            text = dump_new(_new_document(learning_id, stamp, new, ws.root))
            refuse_oversized(text, learning_id)
            learning = parse_learning(text, learning_id, f"<new {learning_id}>")
            atomic_write_text(ws.bundle_dir(learning_id) / LEARNING_FILE, text)
        except BaseException:
            ws.bundle_dir(learning_id).rmdir()
            raise
    return learning


def _new_document(
    learning_id: str, stamp: str, new: NewLearning, ws_root: Path | None = None
) -> dict[str, Any]:
    from ruamel.yaml.scalarstring import LiteralScalarString

    from orbit_learnings.store.yamlio import timestamp_value

    body = new.body.strip("\n")
    document: dict[str, Any] = {
        "id": learning_id,
        "schemaVersion": model.SCHEMA_VERSION,
        "status": new.status,
        "created_at": timestamp_value(stamp),
        "updated_at": timestamp_value(stamp),
        "created_by": new.created_by or default_author(ws_root),
        "scope": new.scope.cleaned().to_dict() | _repos(new.repos),
        "summary": " ".join(new.summary.split()),
        "body": LiteralScalarString(body + "\n") if body else "",
        "evidence": [e.to_dict() for e in new.evidence],
        "supersedes": None,
        "priority": new.priority,
    }
    if new.anchors:
        document["anchors"] = [a.to_dict() for a in new.anchors]
    return document


def _repos(globs: Sequence[str]) -> dict[str, list[str]]:
    kept = list(dict.fromkeys(g.strip() for g in globs))
    return {"repos": kept} if kept else {}


def default_author(root: Path | None = None) -> str:
    """Who a learning is by when nobody said: $ORBIT_CREATED_BY, else git's `user.name`
    (the name on the commit that will carry it, not `root` in a container), else the
    OS user."""
    env = os.environ.get("ORBIT_CREATED_BY")
    if env:
        return env
    name = _git_user_name(root)
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _git_user_name(root: Path | None) -> str:
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "config", "--get", "user.name"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return ""
    return " ".join(proc.stdout.split()) if proc.returncode == 0 else ""


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
        current = read_learning(ws, learning_id)
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
        check_content(summary, scope, anchored=bool(anchors))
        check_repos(changes.repos or ())
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

    path = learning_file(ws, learning_id)
    text = _text_of(ws, learning_id, path)
    parse_learning(text, learning_id, ws.relative(path))  # refuse to edit an invalid file
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
    refuse_oversized(result, learning_id)
    learning = parse_learning(result, learning_id, ws.relative(path))
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
        old = read_learning(ws, old_id)
        new = read_learning(ws, new_id)
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
        current = [read_learning(ws, learning_id) for learning_id in learning_ids]
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
        current = [read_learning(ws, learning_id) for learning_id in learning_ids]
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
        new = read_learning(ws, new_id)
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
        current = read_learning(ws, learning_id)
        if current.status != "active" or current.superseded_by is not None:
            return None
        edits = [Edit(("status",), "superseded"), Edit(("superseded_by",), other_id, "supersedes")]
        return edit_keys(ws, learning_id, edits)


def set_status(
    ws: Workspace, learning_id: str, status: str, *, from_statuses: Sequence[str]
) -> Learning:
    """Move one learning to `status` under the store lock; already there is a no-op."""
    with store_lock(ws):
        current = read_learning(ws, learning_id)
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
        current = read_learning(ws, learning_id)
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


def add_vote(ws: Workspace, learning_id: str, model_name: str, task_id: str) -> VoteSummary:
    """Append a vote unless this (learning, model, task) already voted; idempotent
    (`votes.record_vote`, for a learning that exists)."""
    from orbit_learnings.store.votes import record_vote

    return record_vote(
        ws, learning_id, model_name, task_id, learning=lambda: read_learning(ws, learning_id)
    )
