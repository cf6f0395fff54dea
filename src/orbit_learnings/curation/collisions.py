"""Learning IDs that collide across branches, and the commands that fix them.

Two branches that each `add` get the same next ID. `check --base REF` finds the
IDs this branch adds that REF also has with different content, before the
merge; `resolve-conflict` splits an add/add conflict after it; `renumber`
moves a learning to the next free ID.
"""

from __future__ import annotations

import json
import os
import re

from orbit_learnings.core import ids as model
from orbit_learnings.core.errors import NotFound, OrbitError, Problem
from orbit_learnings.curation import gitutil
from orbit_learnings.store import bundles as store
from orbit_learnings.store.allocation import allocate_id, store_lock
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.layout import LEARNING_FILE, LEARNINGS_PREFIX, SIDECARS, VOTES_FILE
from orbit_learnings.store.workspace import Workspace

LEARNINGS = LEARNINGS_PREFIX


def _ids_in_tree(ws: Workspace, rev: str) -> set[str]:
    out = gitutil.run_git(
        ws.root_dir, "ls-tree", "-d", "--name-only", f"{rev}:{LEARNINGS}", check=False
    )
    return {line.strip() for line in out.splitlines() if model.is_learning_id(line.strip())}


def collisions_with(ws: Workspace, base: str) -> list[Problem]:
    """IDs added on this branch (since the merge base) that `base` also has, differently."""
    try:
        if not gitutil.rev_exists(ws.root_dir, base):
            return [Problem(base, 1, f"unknown git revision {base!r}", None, "collision")]
        merge_base = gitutil.run_git(ws.root_dir, "merge-base", "HEAD", base).strip()
    except gitutil.GitUnavailable as exc:
        return [Problem(base, 1, f"cannot compare with {base}: {exc}", None, "collision")]
    ours = set(store.bundle_ids(ws)) - _ids_in_tree(ws, merge_base)
    theirs = _ids_in_tree(ws, base)
    problems = []
    for learning_id in sorted(ours & theirs):
        path = f"{LEARNINGS}/{learning_id}/{LEARNING_FILE}"
        their_text = gitutil.show(ws.root_dir, f"{base}:{path}")
        our_text = store.learning_file(ws, learning_id).read_text(encoding="utf-8")
        if their_text != our_text:
            problems.append(
                Problem(
                    path,
                    1,
                    f"{learning_id} is also added on {base} with different content; "
                    f"run `orbit learning renumber {learning_id}` on this branch",
                    learning_id,
                    "collision",
                )
            )
    return problems


def renumber(ws: Workspace, old_id: str) -> str:
    """Move a learning to the next free ID, with its sidecars and every link to it."""
    with store_lock(ws):
        store.read_learning(ws, old_id)
        new_id = allocate_id(ws)
        os.rename(ws.bundle_dir(old_id), ws.bundle_dir(new_id))  # onto the empty reserved folder
        _rewrite_id(ws, new_id, old_id)
        for other in store.bundle_ids(ws):
            if other != new_id:
                _repoint_links(ws, other, old_id, new_id)
    return new_id


def _rewrite_id(ws: Workspace, new_id: str, old_id: str) -> None:
    path = store.learning_file(ws, new_id)
    text = path.read_text(encoding="utf-8")
    atomic_write_text(
        path,
        re.sub(
            rf"^id:(\s*)['\"]?{re.escape(old_id)}['\"]?",
            rf"id:\g<1>{new_id}",
            text,
            count=1,
            flags=re.M,
        ),
    )
    for sidecar in SIDECARS:
        _rewrite_sidecar(ws.bundle_dir(new_id) / sidecar, new_id)


def _rewrite_sidecar(path: os.PathLike[str], new_id: str) -> None:
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        return
    out = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if isinstance(row, dict) and "learning_id" in row:
            row["learning_id"] = new_id
        out.append(json.dumps(row, ensure_ascii=False))
    atomic_write_text(path, "\n".join(out) + ("\n" if out else ""))


def _repoint_links(ws: Workspace, learning_id: str, old_id: str, new_id: str) -> None:
    path = store.learning_file(ws, learning_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    updated = re.sub(
        rf"^(supersedes|superseded_by):(\s*)['\"]?{re.escape(old_id)}['\"]?\s*$",
        rf"\g<1>:\g<2>{new_id}",
        text,
        flags=re.M,
    )
    if updated != text:
        atomic_write_text(path, updated)


# --- add/add conflicts ------------------------------------------------------------

_OTHER_HEADS = ("MERGE_HEAD", "REBASE_HEAD", "CHERRY_PICK_HEAD")


def split_conflict_markers(text: str) -> tuple[str, str]:
    """Ours and theirs from a file with git conflict markers (diff3 base sections dropped)."""
    ours: list[str] = []
    theirs: list[str] = []
    state = "both"
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<<"):
            state = "ours"
        elif line.startswith("|||||||") and state == "ours":
            state = "base"
        elif line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
        elif line.startswith(">>>>>>>") and state == "theirs":
            state = "both"
        elif state == "both":
            ours.append(line)
            theirs.append(line)
        elif state == "ours":
            ours.append(line)
        elif state == "theirs":
            theirs.append(line)
    return "".join(ours), "".join(theirs)


def resolve_conflict(ws: Workspace, learning_id: str) -> str:
    """Split an add/add conflict: ours keeps the ID and its votes, theirs gets the next free ID.

    Uses git's index stages when the merge is in progress, else the conflict markers.
    Stages nothing: the user reviews and commits.
    """
    path = store.learning_file(ws, learning_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFound(f"no learning {learning_id}") from None
    if not store.has_conflict_markers(text):
        raise OrbitError(f"{ws.relative(path)} has no conflict markers; nothing to resolve")
    relative = f"{LEARNINGS}/{learning_id}/{LEARNING_FILE}"
    ours = (
        gitutil.show(ws.root_dir, f":2:{relative}") if gitutil.is_repository(ws.root_dir) else None
    )
    theirs = gitutil.show(ws.root_dir, f":3:{relative}") if ours is not None else None
    if ours is None or theirs is None:
        ours, theirs = split_conflict_markers(text)
    for side, content in (("ours", ours), ("theirs", theirs)):
        store.parse_learning(content, learning_id, f"{relative} ({side})")
    with store_lock(ws):
        new_id = allocate_id(ws)
        their_text = re.sub(
            rf"^id:(\s*)['\"]?{re.escape(learning_id)}['\"]?",
            rf"id:\g<1>{new_id}",
            theirs,
            count=1,
            flags=re.M,
        )
        atomic_write_text(store.learning_file(ws, new_id), their_text)
        atomic_write_text(path, ours)
        _split_votes(ws, learning_id, new_id)
    return new_id


def _split_votes(ws: Workspace, learning_id: str, new_id: str) -> None:
    """Votes that arrived only with the incoming side follow it to its new ID."""
    relative = f"{LEARNINGS}/{learning_id}/{VOTES_FILE}"
    current = ws.bundle_dir(learning_id) / VOTES_FILE
    if not current.exists() or not gitutil.is_repository(ws.root_dir):
        return
    ours_rows = set((gitutil.show(ws.root_dir, f"HEAD:{relative}") or "").splitlines())
    other = next((h for h in _OTHER_HEADS if gitutil.rev_exists(ws.root_dir, h)), None)
    if other is None:
        return
    theirs_rows = [
        r
        for r in (gitutil.show(ws.root_dir, f"{other}:{relative}") or "").splitlines()
        if r.strip() and r not in ours_rows
    ]
    if not theirs_rows:
        return
    kept = [
        r for r in current.read_text(encoding="utf-8").splitlines() if r not in set(theirs_rows)
    ]
    atomic_write_text(current, "\n".join(kept) + ("\n" if kept else ""))
    moved = ws.bundle_dir(new_id) / VOTES_FILE
    atomic_write_text(moved, "\n".join(theirs_rows) + "\n")
    _rewrite_sidecar(moved, new_id)
