"""Locating the workspace and speaking in repo-relative paths.

Stdlib only: the hot commands resolve the workspace on every call.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from orbit_learnings.errors import OrbitError, WorkspaceNotFound

ORBIT_DIR = ".orbit"
INIT_HINT = "run `orbit init` to create one"


@dataclass(frozen=True)
class Workspace:
    """The folder holding `.orbit/`, and the well-known paths inside it."""

    root: Path

    @property
    def orbit_dir(self) -> Path:
        return self.root / ORBIT_DIR

    @property
    def learnings_dir(self) -> Path:
        return self.orbit_dir / "learnings"

    @property
    def state_dir(self) -> Path:
        return self.orbit_dir / "state"

    @property
    def index_path(self) -> Path:
        return self.state_dir / "index.sqlite3"

    @property
    def locks_dir(self) -> Path:
        return self.state_dir / "locks"

    def bundle_dir(self, learning_id: str) -> Path:
        return self.learnings_dir / learning_id

    def relative(self, path: Path) -> str:
        """Display form of a path inside the workspace (POSIX, repo-relative)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def find_workspace(
    root: str | os.PathLike[str] | None = None, cwd: Path | None = None
) -> Workspace:
    """Resolve the workspace: explicit root, then ORBIT_ROOT, then walk up from cwd.

    An explicit root must already hold `.orbit/`; guessing a parent instead would
    silently write into the wrong repository.
    """
    explicit = root if root is not None else os.environ.get("ORBIT_ROOT") or None
    if explicit is not None:
        candidate = Path(explicit).expanduser().resolve()
        if not (candidate / ORBIT_DIR).is_dir():
            raise WorkspaceNotFound(f"no {ORBIT_DIR}/ in {candidate}; {INIT_HINT}")
        return Workspace(candidate)
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / ORBIT_DIR).is_dir():
            return Workspace(folder)
    raise WorkspaceNotFound(f"no {ORBIT_DIR}/ found in {start} or any parent; {INIT_HINT}")


def to_repo_relative(ws: Workspace, raw: str, cwd: Path | None = None) -> str:
    """Normalise a user-supplied path or glob to a repo-relative POSIX string.

    Relative input is taken relative to the current directory when that is inside
    the workspace (as git does); absolute input must lie inside the workspace.
    A trailing slash is kept because it marks a folder query.
    """
    text = raw.strip().replace("\\", "/")
    if not text:
        raise OrbitError("empty path")
    trailing = text.endswith("/") and text != "/"
    here = (cwd or Path.cwd()).resolve()
    if os.path.isabs(text):
        absolute = Path(os.path.normpath(text))
    else:
        base = here if _is_within(here, ws.root) else ws.root
        absolute = Path(os.path.normpath(base / text))
    if not _is_within(absolute, ws.root):
        raise OrbitError(f"path {raw!r} is outside the workspace {ws.root}")
    relative = PurePosixPath(absolute.relative_to(ws.root).as_posix()).as_posix()
    if relative == ".":
        return ""  # the workspace root itself: a folder query covering everything
    return relative + "/" if trailing else relative


def _is_within(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True
