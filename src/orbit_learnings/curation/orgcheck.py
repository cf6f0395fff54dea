"""Curation across repositories: which org learnings no subscriber needs.

The org repository's CI checks out its subscribers and asks, for each active org
learning, whether its scope matches a file in any checkout where it applies (its
`scope.repos` names that repository, or it names none). A learning scoped only by
tags names no file, so it is never reported; one whose globs match nothing anywhere
is dead weight in every subscriber's hooks.
"""

from __future__ import annotations

import os

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.scope import repo_matches
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.staleness import RepoFiles, _walk_files
from orbit_learnings.index import reads
from orbit_learnings.index.build import open_fresh
from orbit_learnings.store.org.reponame import repo_name
from orbit_learnings.store.workspace import Workspace


class Checkout:
    """A subscriber's checkout: its repository name and its files, indexed for globs."""

    __slots__ = ("files", "name", "root")

    def __init__(self, root: str) -> None:
        if not os.path.isdir(root):
            raise OrbitError(f"{root}: no such folder (a subscriber's checkout)")
        self.root = os.path.abspath(root)
        self.name = repo_name(Workspace(self.root))
        in_git = gitutil.is_repository(self.root)
        self.files = RepoFiles(
            gitutil.repository_files(self.root) if in_git else _walk_files(self.root)
        )


def unmatched(org: Workspace, checkouts: list[Checkout]) -> list[tuple[str, str]]:
    """(id, summary) of every active org learning whose path globs match no file of any
    checkout it applies in."""
    with open_fresh(org) as index:
        rows = reads.evidence_of_active(index.conn)
        regexes = reads.glob_regexes(index.conn)
        scoped = reads.repo_scoped(index.conn)
    found = []
    for learning_id, summary, _ in rows:
        globs = regexes.get(learning_id)
        if not globs:
            continue  # tags only: no file to look for
        where = [c for c in checkouts if repo_matches(scoped.get(learning_id, ()), c.name)]
        if not any(c.files.any_match(r, g) for c in where for r, g in globs):
            found.append((learning_id, summary))
    return found
