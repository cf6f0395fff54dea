"""Which git operation stopped on a conflict, what continues it, and staging a resolution.

`resolve-conflict` runs in the middle of a merge, a rebase or a cherry-pick, and each is
continued differently (`git commit`, `git rebase --continue`, `git cherry-pick
--continue`). What it writes is staged while one is in progress: the conflict is then
marked resolved as a `git add` would mark it, and the operation's `--abort` takes every
file it wrote away again, the new bundle folder included (untracked, it would survive the
abort and wait to be committed by mistake).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orbit_learnings.curation import gitutil


@dataclass(frozen=True)
class Operation:
    """A git operation stopped on a conflict."""

    name: str  # "merge", "rebase" or "cherry-pick"
    other_head: str | None  # the side coming in: MERGE_HEAD, REBASE_HEAD, CHERRY_PICK_HEAD

    @property
    def continue_command(self) -> str:
        return "git commit" if self.name == "merge" else f"git {self.name} --continue"

    @property
    def abort_command(self) -> str:
        return f"git {self.name} --abort"


def in_progress(root: str | Path) -> Operation | None:
    """The operation stopped in this work tree, or None (no git, or nothing in progress).
    A rebase is told by its state folder (`rebase-merge`, `rebase-apply`), before any
    head, since a rebase replays commits with merges of its own."""
    try:
        paths = gitutil.run_git(
            root, "rev-parse", "--git-path", "rebase-merge", "--git-path", "rebase-apply"
        ).splitlines()
    except gitutil.GitUnavailable:
        return None
    if any(os.path.isdir(os.path.join(root, p)) for p in paths):
        return Operation("rebase", _head(root, "REBASE_HEAD"))
    for name, head in (("merge", "MERGE_HEAD"), ("cherry-pick", "CHERRY_PICK_HEAD")):
        if gitutil.rev_exists(root, head):
            return Operation(name, head)
    return None


def _head(root: str | Path, head: str) -> str | None:
    return head if gitutil.rev_exists(root, head) else None


def stage(root: str | Path, paths: Sequence[str]) -> None:
    """`git add` exactly these repository-relative paths (files or folders)."""
    if paths:
        gitutil.run_git(root, "add", "--", *sorted(set(paths)))
