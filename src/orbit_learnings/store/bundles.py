"""Learning bundles on disk: `.orbit/learnings/<id>/learning.yaml` and its sidecars.

The files are the only source of truth. Every write is atomic and ID allocation
happens under a store-wide lock. This module reads, parses and creates bundles and holds
the content rules every writer checks; changing a learning that exists (updates and
status changes, in place so hand-written comments and `x-` keys survive) is
`store.changes`.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Collection, Sequence
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
    return parse_learning(text_of(ws, learning_id, path), learning_id, ws.relative(path))


def text_of(ws: Workspace, learning_id: str, path: Path) -> str:
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


def add_vote(ws: Workspace, learning_id: str, model_name: str, task_id: str) -> VoteSummary:
    """Append a vote unless this (learning, model, task) already voted; idempotent
    (`votes.record_vote`, for a learning that exists)."""
    from orbit_learnings.store.votes import record_vote

    return record_vote(
        ws, learning_id, model_name, task_id, learning=lambda: read_learning(ws, learning_id)
    )
