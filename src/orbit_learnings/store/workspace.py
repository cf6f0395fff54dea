"""Locating the workspace and speaking in repo-relative paths.

On the hot path (every file an agent touches), so it uses `os.path` strings
rather than pathlib; the `Path` accessors import pathlib only when used.
"""

from __future__ import annotations

import os

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError, WorkspaceNotFound
from orbit_learnings.core.matching import is_glob
from orbit_learnings.core.scope import FILE, FOLDER, GLOB, RepoPath
from orbit_learnings.store.layout import (
    INDEX_FILE,
    LEARNINGS_DIR,
    LOCKS_DIR,
    ORBIT_DIR,
    ORG_FEEDBACK_DIR,
    ORG_STATE_DIR,
    STATE_DIR,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_RELOCATED: dict[str, str] = {}  # workspace root -> where its derived state lives instead
INIT_HINT = "run `orbit init` to create one"


class Workspace:
    """The folder holding `.orbit/`, and the well-known paths inside it.

    An org store read by a subscribing repository knows that repository (`home_str`):
    the org tree in the cache is shared by every subscriber and replaced at each
    `org update`, so the subscriber's votes and feedback on org learnings live in its
    own `.orbit/org-feedback/<ID>/`, and its index of the org store (which counts them)
    in its own `.orbit/state/org/`."""

    __slots__ = ("home_str", "level", "root_str")

    def __init__(
        self, root: str | os.PathLike[str], level: str = "project", home: str | None = None
    ) -> None:
        self.root_str = os.path.abspath(os.fspath(root))
        self.level = level  # "project" for a repository's store, "user" for the personal one
        self.home_str = os.path.abspath(home) if home is not None else None

    @property
    def prefix(self) -> str:
        """The ID prefix of this store's learnings (`L` for a project, `U` personal)."""
        return ids.PREFIXES[self.level]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Workspace) and (other.root_str, other.home_str) == (
            self.root_str,
            self.home_str,
        )

    def __hash__(self) -> int:
        return hash((self.root_str, self.home_str))

    def __repr__(self) -> str:
        home = f", home={self.home_str!r}" if self.home_str is not None else ""
        return f"Workspace({self.root_str!r}{home})"

    # String paths, for the hot path: every one ends in `_str`; the pathlib accessors
    # below have the plain names (`index_file` is a Path, `index_file_str` a str).
    @property
    def learnings_dir_str(self) -> str:
        return os.path.join(self.root_str, ORBIT_DIR, LEARNINGS_DIR)

    @property
    def org_feedback_dir_str(self) -> str | None:
        """The subscriber's `.orbit/org-feedback/` this org store's feedback goes to; None
        for any other store (its feedback lives in its bundles)."""
        if self.home_str is None:
            return None
        return os.path.join(self.home_str, ORBIT_DIR, ORG_FEEDBACK_DIR)

    def sidecar_dirs_str(self, learning_id: str) -> tuple[str, ...]:
        """Every folder whose `votes.jsonl` and `feedback.jsonl` count for this learning:
        its bundle, and for an org store read by a subscriber, the subscriber's own."""
        bundle = os.path.join(self.learnings_dir_str, learning_id)
        org = self.org_feedback_dir_str
        return (bundle,) if org is None else (bundle, os.path.join(org, learning_id))

    def sidecar_home_str(self, learning_id: str) -> str:
        """Where a new vote or feedback row on this learning is written: the last of
        `sidecar_dirs_str`, never an org tree a subscriber reads from the cache."""
        return self.sidecar_dirs_str(learning_id)[-1]

    @property
    def _state_key(self) -> str:
        return self.root_str if self.home_str is None else f"{self.home_str}\0{self.root_str}"

    @property
    def state_dir_str(self) -> str:
        moved = _RELOCATED.get(self._state_key)
        if moved is not None:
            return moved
        if self.home_str is not None:  # the subscriber's, under its own (maybe moved) state
            return os.path.join(Workspace(self.home_str).state_dir_str, ORG_STATE_DIR)
        return os.path.join(self.root_str, ORBIT_DIR, STATE_DIR)

    def relocate_state(self) -> str:
        """Keep derived state in the user's cache instead: `.orbit/state/` cannot be written
        (a read-only checkout, a CI cache, a full disk), and reads must still answer."""
        import hashlib
        import tempfile

        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        key = self._state_key.encode("utf-8", "surrogateescape")
        digest = hashlib.sha1(key, usedforsecurity=False).hexdigest()[:16]
        private = os.path.join(tempfile.gettempdir(), f"orbit-learnings-{os.geteuid()}")
        for top in (os.path.join(base, "orbit-learnings"), private):
            folder = os.path.join(top, "state", digest)
            try:  # a CI runner's HOME may be read-only too: then a private temp folder
                os.makedirs(top, mode=0o700, exist_ok=True)
                if top == private and not _owned_privately(top):
                    continue
                os.makedirs(folder, exist_ok=True)
            except OSError:
                continue
            _RELOCATED[self._state_key] = folder
            return folder
        raise OrbitError(
            f"cannot write {os.path.join(ORBIT_DIR, STATE_DIR)}, the user cache {base}"
            f" or {private}: orbit has nowhere to keep its index"
        )

    @property
    def index_file_str(self) -> str:
        return os.path.join(self.state_dir_str, INDEX_FILE)

    # pathlib accessors, for everything else.
    @property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self.root_str)

    @property
    def orbit_dir(self) -> Path:
        return self.root / ORBIT_DIR

    @property
    def learnings_dir(self) -> Path:
        return self.orbit_dir / LEARNINGS_DIR

    @property
    def state_dir(self) -> Path:
        from pathlib import Path

        return Path(self.state_dir_str)

    @property
    def index_file(self) -> Path:
        return self.state_dir / INDEX_FILE

    @property
    def locks_dir(self) -> Path:
        return self.state_dir / LOCKS_DIR

    def bundle_dir(self, learning_id: str) -> Path:
        return self.learnings_dir / learning_id

    def relative(self, path: str | os.PathLike[str]) -> str:
        """Display form of a path inside the workspace (POSIX, repo-relative); a file of
        the subscriber an org store is read by, relative to that repository."""
        text = os.path.abspath(os.fspath(path))
        for root in (self.root_str, self.home_str):
            if root is not None and (text == root or text.startswith(root + os.sep)):
                return os.path.relpath(text, root).replace(os.sep, "/")
        return text


def find_workspace(root: str | os.PathLike[str] | None = None, cwd: str | None = None) -> Workspace:
    """Resolve the workspace: explicit root, then ORBIT_ROOT, then walk up from cwd.

    An explicit root must already hold `.orbit/`; guessing a parent instead would
    silently write into the wrong repository.
    """
    explicit = root if root is not None else os.environ.get("ORBIT_ROOT") or None
    if explicit is not None:
        candidate = os.path.realpath(os.path.expanduser(os.fspath(explicit)))
        if not os.path.isdir(os.path.join(candidate, ORBIT_DIR)):
            raise WorkspaceNotFound(f"no {ORBIT_DIR}/ in {candidate}; {INIT_HINT}")
        return _own_store(candidate)
    start = os.path.realpath(cwd or os.getcwd())
    folder = start
    while True:
        if os.path.isdir(os.path.join(folder, ORBIT_DIR)):
            return _own_store(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    raise WorkspaceNotFound(f"no {ORBIT_DIR}/ found in {start} or any parent; {INIT_HINT}")


def _own_store(folder: str) -> Workspace:
    refuse_linked_store(folder)
    ws = Workspace(folder)
    declare_prefixes(ws)
    return ws


def declare_prefixes(ws: Workspace) -> None:
    """Judge IDs by the prefixes `ws` declares or reads (an org's, `ACME-0012`), looked
    up only when such an ID is met (`store.org.prefix`); costs a hook nothing."""

    def lookup() -> list[str]:
        from orbit_learnings.store.org.prefix import declared

        return declared(ws.root_str, ws.level)

    ids.declare_source(lookup)


def refuse_linked_store(folder: str | os.PathLike[str]) -> None:
    """Refuse a `.orbit` that is a committed link out of `folder`: every learning, state
    file and `.gitignore` would then be read and written elsewhere. One lstat."""
    orbit = os.path.join(os.fspath(folder), ORBIT_DIR)
    if os.path.islink(orbit):
        real = os.path.realpath(orbit)
        if not _is_within(real, os.path.realpath(folder)):
            raise OrbitError(
                f"{orbit} is a link out of the repository (to {real}); orbit does not follow it"
            )


def to_repo_relative(ws: Workspace, raw: str, cwd: str | os.PathLike[str] | None = None) -> str:
    """Normalise a user-supplied path or glob to a repo-relative POSIX string.

    Relative input is taken relative to the current directory when that is inside
    the workspace (as git does); absolute input must lie inside the workspace.
    A trailing slash is kept because it marks a folder query; the workspace root
    itself comes back as "".
    """
    text = raw.strip().replace("\\", "/")
    if not text:
        raise OrbitError("empty path")
    trailing = text.endswith("/") and text != "/"
    here = os.path.realpath(os.fspath(cwd) if cwd is not None else os.getcwd())
    if os.path.isabs(text):
        absolute = os.path.normpath(text)
        if not _is_within(absolute, ws.root_str):
            absolute = os.path.normpath(os.path.realpath(text))
    else:
        base = here if _is_within(here, ws.root_str) else ws.root_str
        absolute = os.path.normpath(os.path.join(base, text))
    if not _is_within(absolute, ws.root_str):
        raise OrbitError(f"path {raw!r} is outside the workspace {ws.root_str}")
    relative = os.path.relpath(absolute, ws.root_str).replace(os.sep, "/")
    if relative == ".":
        return ""
    return relative + "/" if trailing else relative


GLOB_PREFIX = "glob:"  # `--path 'glob:web/[ab]*'`: a glob even if a file has that name
LITERAL_PREFIX = "literal:"  # `--path 'literal:web/app/[slug]/new.tsx'`: a path, even if new


def typed_path(ws: Workspace, raw: str, cwd: str | os.PathLike[str] | None = None) -> RepoPath:
    """A path a person typed (`--path`, MCP, the dashboard), read once into a value.

    A path that names an existing file or folder is that path, even with `[`, `*` or `?`
    in it (`web/app/[slug]/page.tsx`); otherwise glob characters make a glob. A `glob:` or
    `literal:` prefix forces either reading: typed syntax, read here and nowhere else.
    """
    forced_glob = raw.startswith(GLOB_PREFIX)
    forced_literal = raw.startswith(LITERAL_PREFIX)
    relative = to_repo_relative(ws, raw.removeprefix(GLOB_PREFIX).removeprefix(LITERAL_PREFIX), cwd)
    if forced_glob:
        return RepoPath(relative, GLOB)
    on_disk = os.path.join(ws.root_str, relative)
    if relative and os.path.isdir(on_disk):
        return RepoPath(relative, FOLDER)
    if is_glob(relative) and not forced_literal and not os.path.lexists(on_disk):
        return RepoPath(relative, GLOB)
    return RepoPath(relative, FILE)


def literal_path(ws: Workspace, raw: str, cwd: str | os.PathLike[str] | None = None) -> RepoPath:
    """A path an agent named (a hook's payload, a tool's arguments), read once into a value:
    always a file or folder, never a glob (`[slug]` is a folder name). One `isdir`."""
    relative = to_repo_relative(ws, raw, cwd)
    is_folder = bool(relative) and os.path.isdir(os.path.join(ws.root_str, relative))
    return RepoPath(relative, FOLDER if is_folder else FILE)


def _owned_privately(folder: str) -> bool:
    """A shared temp folder may hold another user's link or folder under our name: use
    it only when it is a real folder of ours that no one else can write."""
    import stat

    info = os.lstat(folder)
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def scope_glob(ws: Workspace, raw: str, cwd: str | os.PathLike[str] | None = None) -> str:
    """A scope glob typed at a terminal, as the store keeps it (repo-relative, POSIX).

    Like git, a relative glob is read from the current folder: in `src/`, `api/**` is
    `src/api/**` and a floating `*.py` is `src/**/*.py` (every depth below `src/`, as it
    floats everywhere from the root). An absolute path must lie inside the workspace.
    Backslashes are glob escapes here (`\\[slug\\]`), never folder separators.
    """
    import posixpath

    text = raw.strip()
    if os.path.isabs(text):
        for root in (ws.root_str, os.path.realpath(ws.root_str)):
            if text == root or text.startswith(root.rstrip("/") + "/"):
                return text[len(root) :].lstrip("/") or "**"
        raise OrbitError(f"path {raw!r} is outside the workspace {ws.root_str}")
    here = os.path.realpath(os.fspath(cwd) if cwd is not None else os.getcwd())
    root = os.path.realpath(ws.root_str)
    if not _is_within(here, root) or here == root:
        return text
    folder = os.path.relpath(here, root).replace(os.sep, "/")
    joined = f"{folder}/**/{text}" if "/" not in text.rstrip("/") else f"{folder}/{text}"
    normal = posixpath.normpath(joined) + ("/" if joined.endswith("/") else "")
    if normal.startswith("../") or normal == "..":
        raise OrbitError(f"path {raw!r} is outside the workspace {ws.root_str}")
    return normal


MAX_CITED_BYTES = 4 * 1024 * 1024


def read_workspace_text(ws: Workspace, path: str) -> str | None:
    """A code file of the workspace (repo-relative path) as text, None when it is not a
    regular file inside the repository (a link out of it, a loop, a FIFO, a name too
    long) or is too large. Undecodable bytes are replaced: a fingerprint needs lines, not
    a perfect decoding."""
    from orbit_learnings.store.fileops import read_repo_text

    full = os.path.join(ws.root_str, path)
    try:
        return read_repo_text(full, within=ws.root_str, limit=MAX_CITED_BYTES, errors="replace")
    except (OSError, OrbitError):
        return None
