"""Promoting a project learning to the org: a commit on a `promote/<ID>` branch of the
org repository's cached clone, made with git plumbing (no work tree, nothing checked
out), for the author to push and the org to review like any change.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import LEARNING_FILE, LEARNINGS_PREFIX
from orbit_learnings.store.org.cache import clone_dir, declared_prefix, git, tip

PROMOTE_PREFIX = "promote/"


def next_org_id(clone: str, base: str, prefix: str) -> str:
    """The next sequential ID with the org's prefix on the org branch at `base`."""
    listing = git(["ls-tree", "--name-only", "-z", base, "--", LEARNINGS_PREFIX + "/"], cwd=clone)
    highest = 0
    for raw in listing.stdout.split(b"\0"):
        name = raw.decode(errors="replace").rsplit("/", 1)[-1]
        number = ids.sequential_number(name, prefix)
        if number is not None:
            highest = max(highest, number)
    return ids.format_sequential_id(highest + 1, prefix)


def commit_promotion(
    url: str, branch: str, source_id: str, make: Callable[[str], str]
) -> tuple[str, str, str]:
    """Commit the learning `make(new_id)` returns as a new org bundle on `promote/<ID>`,
    on top of the org branch's tip as last fetched. Returns (branch, new ID, commit)."""
    clone = clone_dir(url)
    base = tip(clone, branch)
    if base is None:
        raise OrbitError(f"the org branch {branch!r} is not in the cache; `orbit org fetch` first")
    new_id = next_org_id(clone, base, declared_prefix(clone, base)[0])
    blob = git(["hash-object", "-w", "--stdin"], cwd=clone, stdin=make(new_id).encode())
    index = {"GIT_INDEX_FILE": os.path.join(clone, f"orbit-promote-{os.getpid()}.index")}
    try:
        git(["read-tree", base], cwd=clone, env=index)
        entry = f"100644,{blob.stdout.decode().strip()},{LEARNINGS_PREFIX}/{new_id}/{LEARNING_FILE}"
        git(["update-index", "--add", "--cacheinfo", entry], cwd=clone, env=index)
        tree = git(["write-tree"], cwd=clone, env=index).stdout.decode().strip()
    finally:
        if os.path.exists(index["GIT_INDEX_FILE"]):
            os.unlink(index["GIT_INDEX_FILE"])
    message = f"Promote {source_id} as {new_id}"
    commit = (
        git([*_identity(clone), "commit-tree", tree, "-p", base, "-m", message], cwd=clone)
        .stdout.decode()
        .strip()
    )
    name = PROMOTE_PREFIX + source_id
    git(["update-ref", f"refs/heads/{name}", commit], cwd=clone)
    return name, new_id, commit


def _identity(clone: str) -> list[str]:
    """Git's configured author, or orbit's default one when none is configured."""
    configured = git(["config", "user.email"], cwd=clone, check=False).stdout.strip()
    if configured or os.environ.get("GIT_COMMITTER_EMAIL"):
        return []
    from orbit_learnings.store.bundles import default_author

    return ["-c", f"user.name={default_author()}", "-c", "user.email=orbit@localhost"]


def push_command(url: str, name: str) -> list[str]:
    """The push that publishes a promotion branch, as the author would type it."""
    return ["git", "--git-dir", clone_dir(url), "push", url, f"refs/heads/{name}:refs/heads/{name}"]


def promoted_text(text: str, new_id: str, evidence: list[dict[str, str]], ref: str) -> str:
    """The project learning's file as an org learning: its new ID, active, unlinked, with
    the source repository and ID kept as evidence (`kind: learning`). Every other line,
    comments and `x-` keys included, stays as written."""
    from orbit_learnings.core.timestamps import now_iso
    from orbit_learnings.store.bundles import parse_learning
    from orbit_learnings.store.yamlio import SurgicalEditor, timestamp_value

    editor = SurgicalEditor(text)
    editor.set(("id",), new_id)
    editor.set(("status",), "active")
    editor.set(("updated_at",), timestamp_value(now_iso()))
    editor.set(("evidence",), [*evidence, {"kind": "learning", "ref": ref}])
    for link in ("supersedes", "superseded_by"):
        if link in editor.doc:
            editor.set((link,), None)
    parse_learning(editor.text, new_id, f"{LEARNINGS_PREFIX}/{new_id}/{LEARNING_FILE}")
    return editor.text
