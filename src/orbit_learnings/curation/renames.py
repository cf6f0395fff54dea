"""Following renames: where git saw the files of a stale learning's path globs go.

After a refactor moves `src/old/` to `src/new/`, a learning scoped to `src/old/api.py` or
`src/old/**` matches nothing, yet git's rename detection knows the new place. This maps
such globs to their new form, for `prune`'s report and `prune --follow-renames`:
- a literal path (a file, or a folder with everything in it) follows its own move;
- a wildcard glob follows its literal leading folder, when every file git saw leave that
  folder in the commit that last moved any went to one new folder, at the same place
  below it (a folder rename).
Floating globs (`*.py`, `Makefile`) name no place and are never mapped, and a mapping is
only offered when the new glob matches a file today. Git is asked once per hop for every
glob together (a folder moved twice is two hops), never once per learning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from orbit_learnings.core.model import Learning
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.gitutil import Moved
from orbit_learnings.store.workspace import Workspace

MAX_HOPS = 3  # history queries per run, at most: a path moved more often is left alone
GLOB_SPECIAL = frozenset("*?[{\\")  # what makes a scope glob more than a literal path


@dataclass(frozen=True)
class Rename:
    """A dead glob and the glob that follows its files' move, in commit `commit` (the
    last one, when they moved more than once)."""

    old: str
    new: str
    commit: str

    def to_dict(self) -> dict[str, str]:
        return {"from": self.old, "to": self.new, "commit": self.commit}

    def describe(self) -> str:
        return f"{self.old} → {self.new}, renamed in {self.commit}"


class Files(Protocol):
    """What the mapping needs to know about the repository today (see `RepoFiles`)."""

    nodes: set[str]

    def any_match(self, regex: str, glob: str) -> bool: ...


@dataclass(frozen=True)
class _Place:
    """The path a glob hangs on, and the glob's text around it."""

    path: str  # a repository-relative file or folder
    before: str  # "/" when the glob is written anchored, else ""
    after: str  # the rest of the glob: "", "/", "/**/*.py"
    literal: bool  # the glob names the path itself (a file, or a folder and all below)


def _place(glob: str) -> _Place | None:
    text = glob.strip()
    before = "/" if text.startswith("/") else ""
    body = text.lstrip("/")
    if not any(ch in GLOB_SPECIAL for ch in body):
        path = body.rstrip("/")
        if not path or ("/" not in path and not before):  # floats to any depth
            return None
        return _Place(path, before, body[len(path) :], literal=True)
    lead: list[str] = []
    for part in body.split("/")[:-1]:
        if not part or part == "**" or any(ch in GLOB_SPECIAL for ch in part):
            break
        lead.append(part)
    if not lead:
        return None
    path = "/".join(lead)
    return _Place(path, before, body[len(path) :], literal=False)


class Moves:
    """One history query's renames, by file and by every folder they left."""

    def __init__(self, moves: Sequence[Moved]) -> None:
        self.files: dict[str, Moved] = {}
        self.folders: dict[str, tuple[str, list[Moved]]] = {}  # the newest commit's moves
        for move in moves:  # newest first
            self.files.setdefault(move.old, move)
            folder = move.old.rpartition("/")[0]
            while folder:
                seen = self.folders.setdefault(folder, (move.commit, []))
                if seen[0] == move.commit:
                    seen[1].append(move)
                folder = folder.rpartition("/")[0]

    def step(self, path: str, *, literal: bool) -> tuple[str, str] | None:
        """(where `path` went, in which commit); None when git saw no move to follow."""
        move = self.files.get(path) if literal else None
        if move is not None:
            return move.new, move.commit
        if path not in self.folders:
            return None
        commit, moves = self.folders[path]
        targets = set()
        for move in moves:
            rest = move.old[len(path) :]  # "/x/y.py"
            if not move.new.endswith(rest):
                return None
            targets.add(move.new[: -len(rest)])
        return (targets.pop(), commit) if len(targets) == 1 and "" not in targets else None


def follow(root: str, globs: Sequence[str], files: Files) -> dict[str, Rename]:
    """Each of these (dead) globs that git saw move -> its rename."""
    places = {glob: place for glob in globs if (place := _place(glob)) is not None}
    pending = {glob: place.path for glob, place in places.items()}
    arrived: dict[str, tuple[str, str]] = {}
    for _ in range(MAX_HOPS):
        if not pending:
            break
        moves = Moves(gitutil.renames_touching(root, sorted(set(pending.values()))))
        still: dict[str, str] = {}
        for glob, path in pending.items():
            moved = moves.step(path, literal=places[glob].literal)
            if moved is None:
                continue
            if moved[0] in files.nodes:
                arrived[glob] = moved
            else:
                still[glob] = moved[0]
        pending = still
    found = {glob: _rename(glob, places[glob], *where, files) for glob, where in arrived.items()}
    return {glob: rename for glob, rename in found.items() if rename is not None}


def _rename(glob: str, place: _Place, path: str, commit: str, files: Files) -> Rename | None:
    """The glob rewritten around its new path, if it is valid and matches a file today."""
    from orbit_learnings.core.globs import InvalidGlob, compile_glob

    try:
        compiled = compile_glob(place.before + _escaped(path, first=not place.before) + place.after)
    except InvalidGlob:
        return None
    if not files.any_match(compiled.regex, compiled.glob):
        return None
    return Rename(glob, compiled.glob, commit)


def _escaped(path: str, *, first: bool) -> str:
    """A file's path as glob text that matches only it (`app/[slug]` is no class)."""
    text = "".join(f"\\{ch}" if ch in GLOB_SPECIAL else ch for ch in path)
    return "\\" + text if first and text.startswith(("#", "!")) else text


def rewrite_scope(ws: Workspace, learning_id: str, renames: Sequence[Rename]) -> Learning | None:
    """Put each renamed glob's new form in the learning's scope, through the store's edit
    (only the paths' lines change, comments stay); None when none of them is there any more."""
    from orbit_learnings.store.changes import Changes, update_with

    mapping = {r.old: r.new for r in renames}

    def renamed(current: Learning) -> Changes | None:  # read under the store lock
        paths = [mapping.get(path.strip(), path) for path in current.paths]
        return None if paths == list(current.paths) else Changes(paths=paths)

    return update_with(ws, learning_id, renamed)
