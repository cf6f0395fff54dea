"""Scope levels: the project store (`.orbit/`, shared through git), a personal store,
and the org store a repository subscribes to.

The personal store lives in the user's data folder (platformdirs, or
`ORBIT_USER_HOME`), holds learnings that follow a developer across projects,
and uses the `U-` prefix so its IDs never collide with a project's `L-` IDs.
The org store is another repository's learnings (`O-`), read at the commit the
project pins in `.orbit/org.lock`, from the user cache (`store.org.pin`); the project's
votes and feedback on them live in its own `.orbit/org-feedback/` (`Workspace.home_str`).
"""

from __future__ import annotations

import os
import sys

from orbit_learnings.core import ids
from orbit_learnings.core.errors import UsageError
from orbit_learnings.store.layout import LEARNINGS_DIR, ORBIT_DIR
from orbit_learnings.store.workspace import Workspace, declare_prefixes

LEVELS = ids.LEVEL_CHOICES
USER_HOME_ENV = "ORBIT_USER_HOME"


APP_NAME = "orbit-learnings"


def user_root() -> str:
    """platformdirs' user data folder; on Linux computed directly (the XDG rule), because
    importing platformdirs costs more than the whole lookup on the hook's hot path."""
    explicit = os.environ.get(USER_HOME_ENV)
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")
        return os.path.join(base, APP_NAME)
    from platformdirs import user_data_dir

    return user_data_dir(APP_NAME, appauthor=False)


def user_workspace(*, create: bool = False) -> Workspace | None:
    """The personal store, or None when it was never created (and `create` is False)."""
    root = user_root()
    if not os.path.isdir(os.path.join(root, ORBIT_DIR, LEARNINGS_DIR)):
        if not create:
            return None
        from orbit_learnings.store.setup import init_store

        init_store(__import__("pathlib").Path(root))
    return Workspace(root, level="user")


def check_level(level: str | None) -> str:
    value = (level or "all").strip().lower()
    if value not in LEVELS:
        raise UsageError(f"unknown --level {level!r}; choose project, user, org or all")
    return value


def stores(
    project: Workspace | None, level: str, hints: list[str] | None = None
) -> list[Workspace]:
    """The stores a read should consult, project first. When the org store cannot be
    read (its pinned commit is not in the cache), a one-line hint goes to `hints`."""
    chosen: list[Workspace] = []
    if project is not None:  # a long-lived server reads its org's prefix as pinned now
        declare_prefixes(project)
    if level in ("project", "all") and project is not None:
        chosen.append(project)
    if level in ("user", "all"):
        user = user_workspace()
        if user is not None and (project is None or user.root_str != project.root_str):
            chosen.append(user)
    if level in ("org", "all") and project is not None and project.level == "project":
        org, hint = org_store(project)
        if org is not None:
            chosen.append(org)
        elif hint and hints is not None:
            hints.append(hint)
    return chosen


def org_store(project: Workspace) -> tuple[Workspace | None, str | None]:
    """The org store `project` reads at its pin, or (None, a one-line hint) when the pinned
    commit is not in the cache; (None, None) when it subscribes to no org."""
    from orbit_learnings.store.org.pin import org_tree

    folder, hint = org_tree(project.root_str)
    if folder is None:
        return None, hint
    return Workspace(folder, level="org", home=project.root_str), None  # its feedback: here


def for_id(project: Workspace, learning_id: str) -> Workspace:
    """The store an ID belongs to (U- IDs live in the personal store, O- IDs in the org
    store, unless this repository is the org repository and holds it)."""
    declare_prefixes(project)  # `ACME-0012` is the org's when the pinned org declares ACME
    if ids.level_of(learning_id) == "org" and not os.path.isdir(
        os.path.join(project.learnings_dir_str, learning_id)
    ):
        from orbit_learnings.core.errors import NotFound

        org, hint = org_store(project)
        if org is None:
            raise NotFound(f"no learning {learning_id}: {hint or 'this repository reads no org'}")
        return org
    if ids.level_of(learning_id) == "user":
        user = user_workspace()
        if user is None:
            from orbit_learnings.core.errors import NotFound

            raise NotFound(f"no learning {learning_id}: there is no personal store yet")
        return user
    return project
