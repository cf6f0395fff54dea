"""What one repository sees of its org store.

An org learning is hidden here when its `scope.repos` names other repositories, or
when a project learning replaces it (`orbit learning supersede O-0012 --with L-0042`
writes `supersedes: O-0012` into the project learning only; the org file is never
touched). Both are read from the indexes the lookup already opened: the project's
links from its rows, the org's repository globs from a partial index of the few rows
that carry them.
"""

from __future__ import annotations

import sqlite3

from orbit_learnings.core.errors import Problem
from orbit_learnings.index import reads
from orbit_learnings.store.workspace import Workspace


class OrgView:
    """The org learnings one repository hides, gathered while its stores are read."""

    __slots__ = ("project", "replaced")

    def __init__(self, project: Workspace) -> None:
        self.project = project
        self.replaced: dict[str, str] = {}  # org ID -> the project learning replacing it

    def note_project(self, conn: sqlite3.Connection) -> None:
        """The project's links into the org store, from the project's index."""
        self.replaced = reads.superseded_elsewhere(conn, self.project.prefix)

    def hidden(self, conn: sqlite3.Connection) -> set[str]:
        """The org learnings this repository does not see, from the org store's index."""
        hidden = set(self.replaced)
        scoped = reads.repo_scoped(conn)
        if scoped:
            from orbit_learnings.core.scope import repo_matches
            from orbit_learnings.store.org.reponame import repo_name

            name = repo_name(self.project)
            hidden.update(i for i, globs in scoped.items() if not repo_matches(globs, name))
        return hidden


def hint_problem(hint: str) -> Problem:
    """A hint about the org store (its commit is not in the cache) as a read's warning."""
    from orbit_learnings.store.layout import ORBIT_DIR, ORG_LOCK_FILE

    return Problem(f"{ORBIT_DIR}/{ORG_LOCK_FILE}", 1, hint, None, "org")
