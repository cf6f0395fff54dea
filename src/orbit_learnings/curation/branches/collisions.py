"""Learning IDs that collide across branches: found before the merge, fixed by renumbering.

Two branches that each `add` get the same next ID. `check --base REF` finds the
IDs this branch adds that REF also holds as a different learning, before the
merge; `renumber` moves this branch's newcomer to the next free ID, with its
sidecars and every link to it. By the ID rule (`idrule`) the learning published
on the target branch never moves: `renumber` refuses it unless forced.
`resolve-conflict` (after the merge) lives in `conflicts`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence

from orbit_learnings.core.errors import OrbitError, Problem
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.branches import idrule
from orbit_learnings.store import bundles as store
from orbit_learnings.store.allocation import allocate_id, store_lock
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.layout import LEARNING_FILE, LEARNINGS_PREFIX, SIDECARS
from orbit_learnings.store.workspace import Workspace

LEARNINGS = LEARNINGS_PREFIX


def collisions_with(ws: Workspace, base: str) -> list[Problem]:
    """IDs added on this branch (since the merge base) that `base` also has, differently."""
    try:
        if not gitutil.rev_exists(ws.root_str, base):
            return [Problem(base, 1, f"unknown git revision {base!r}", None, "collision")]
        merge_base = gitutil.run_git(ws.root_str, "merge-base", "HEAD", base).strip()
    except gitutil.GitUnavailable as exc:
        return [Problem(base, 1, f"cannot compare with {base}: {exc}", None, "collision")]
    ours = set(store.bundle_ids(ws)) - idrule.ids_on(ws, merge_base)
    theirs = idrule.ids_on(ws, base)
    problems = []
    target = "" if _is_default_target(ws, base) else f" --target {base}"
    for learning_id in sorted(ours & theirs):
        path = f"{LEARNINGS}/{learning_id}/{LEARNING_FILE}"
        their_text = idrule.text_at(ws, base, learning_id)
        our_text = store.learning_file(ws, learning_id).read_text(encoding="utf-8")
        if their_text == our_text:
            continue
        problems.append(
            Problem(
                path,
                1,
                f"{learning_id} on {base} is a different learning, and the published one keeps "
                f"its ID; run `orbit learning renumber {learning_id}{target}` on this branch",
                learning_id,
                "collision",
            )
        )
    return problems


def _is_default_target(ws: Workspace, base: str) -> bool:
    """Whether `renumber` without `--target` judges by `base` (and so avoids its IDs)."""
    try:
        return idrule.target_ref(ws) == base
    except OrbitError:  # a bad target_branch: name the base explicitly
        return False


def renumber(ws: Workspace, old_id: str, *, target: str | None = None, force: bool = False) -> str:
    """Move a learning to the next ID free here and on the target branch, with its
    sidecars and every link to it."""
    store.read_learning(ws, old_id)
    if not force and gitutil.is_repository(ws.root_str):
        ref = idrule.target_ref(ws, target)
        text = store.learning_file(ws, old_id).read_text(encoding="utf-8")
        if idrule.is_published(ws, ref, old_id, text):
            raise OrbitError(
                f"{old_id} is published on {ref}, and a published learning keeps its ID (votes, "
                "links and citations point at it); renumber the other learning, or pass --force"
            )
    taken = idrule.taken_on_target(ws, target)
    with store_lock(ws):
        store.read_learning(ws, old_id)
        new_id = allocate_id(ws, taken)
        os.rename(ws.bundle_dir(old_id), ws.bundle_dir(new_id))  # onto the empty reserved folder
        rewrite_id(ws, new_id, old_id)
        for other in store.bundle_ids(ws):
            if other != new_id:
                repoint_links(ws, other, old_id, new_id)
    return new_id


def rewrite_id(ws: Workspace, new_id: str, old_id: str, *, sidecars: bool = True) -> None:
    """The `id:` line of the learning now in `new_id`'s folder, and its sidecars' rows."""
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
    for sidecar in SIDECARS if sidecars else ():
        rewrite_sidecar(ws.bundle_dir(new_id) / sidecar, new_id)


def rewrite_sidecar(path: os.PathLike[str], new_id: str) -> None:
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


LINK_KEYS = ("supersedes", "superseded_by")


def link_line(learning_id: str, keys: Sequence[str] = LINK_KEYS) -> re.Pattern[str]:
    """The line of a `learning.yaml` that links to `learning_id` under one of `keys`: the one
    definition `repoint_links` rewrites and `resolve-conflict` looks for."""
    names = "|".join(re.escape(k) for k in keys)
    return re.compile(rf"^({names}):(\s*)['\"]?{re.escape(learning_id)}['\"]?\s*$", re.M)


def repoint_links(
    ws: Workspace,
    learning_id: str,
    old_id: str,
    new_id: str,
    *,
    keys: Sequence[str] = LINK_KEYS,
) -> bool:
    """Point `learning_id`'s links at `new_id` instead of `old_id`; True when one changed."""
    path = store.learning_file(ws, learning_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    updated = link_line(old_id, keys).sub(rf"\g<1>:\g<2>{new_id}", text)
    if updated != text:
        atomic_write_text(path, updated)
    return updated != text
