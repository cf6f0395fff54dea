"""What a learning is about, and what a lookup asks for: one value instead of parallel lists.

(`RepoPath`, below, is one path a lookup asks about, already read where it entered.)

A scope has kinds: path globs and tags today. A learning matches a lookup when any
kind matches (spec 3.3: path OR tag). Adding a kind means a field here, its
validation in `model`, its rows in the index (`index/schema` and `index/build`), its
match in `index/reads` and its rendering; callers that pass a `Scope` along do not
change.

A plain class with slots rather than a dataclass: it is built on every hook call,
and importing dataclasses costs more than the lookup it describes.
"""

from __future__ import annotations

from collections.abc import Iterable

KINDS = ("paths", "tags")


def _cleaned(values: Iterable[str], *, strip: str = "") -> tuple[str, ...]:
    """Stripped, non-empty, first occurrence kept: the order an author wrote is kept."""
    seen: dict[str, None] = {}
    for value in values:
        text = value.strip().lstrip(strip).strip()
        if text:
            seen.setdefault(text, None)
    return tuple(seen)


def tag_name(text: str) -> str:
    """A tag as stored and compared: `#database` (as lists print it) is `database`."""
    return text.strip().lstrip("#").strip()


class Scope:
    """Path globs and tags; immutable, compared by value."""

    __slots__ = ("paths", "tags")

    paths: tuple[str, ...]
    tags: tuple[str, ...]

    def __init__(self, paths: Iterable[str] = (), tags: Iterable[str] = ()) -> None:
        object.__setattr__(self, "paths", tuple(paths))
        object.__setattr__(self, "tags", tuple(tags))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Scope is immutable; build a new one with merged()")

    def __bool__(self) -> bool:
        return bool(self.paths or self.tags)

    def cleaned(self) -> Scope:
        """Entries stripped, blanks dropped, repeats dropped (first kept): how it is stored.

        Lookups keep what they were given instead, so a blank `--path` is still refused.
        """
        return Scope(_cleaned(self.paths), _cleaned(self.tags, strip="#"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scope) and (self.paths, self.tags) == (other.paths, other.tags)

    def __hash__(self) -> int:
        return hash((self.paths, self.tags))

    def __repr__(self) -> str:
        return f"Scope(paths={list(self.paths)!r}, tags={list(self.tags)!r})"

    def merged(self, other: Scope) -> Scope:
        """Both scopes' entries, this one's first."""
        return Scope([*self.paths, *other.paths], [*self.tags, *other.tags])

    def to_dict(self) -> dict[str, list[str]]:
        return {"paths": list(self.paths), "tags": list(self.tags)}


EMPTY = Scope()


FILE, FOLDER, GLOB = "file", "folder", "glob"
PATH_KINDS = (FILE, FOLDER, GLOB)


class RepoPath:
    """A path a lookup asks about, as a value: normalised once where it entered (a hook's
    payload, a `--path` argument) to repo-relative POSIX text (`""` is the root), with what
    it names: a file (which may not exist yet), a folder, or a glob.

    Layers pass these on and never parse or normalise the text again: a file literally
    named `glob:notes.md` stays that file, and no prefix on a string says what it is. A
    plain slotted class, like `Scope`: one is built for every path of every hook call.
    """

    __slots__ = ("kind", "text")

    kind: str
    text: str

    def __init__(self, text: str, kind: str = FILE) -> None:
        if kind not in PATH_KINDS:
            raise ValueError(f"a path is one of {', '.join(PATH_KINDS)}, not {kind!r}")
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "kind", kind)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("RepoPath is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RepoPath) and (self.text, self.kind) == (other.text, other.kind)

    def __hash__(self) -> int:
        return hash((self.text, self.kind))

    def __repr__(self) -> str:
        return f"RepoPath({self.text!r}, {self.kind!r})"


# `scope.repos`: which repositories an org learning applies in, by name (`payments-*`,
# `web`). Shell-style globs (`*`, `?`, `[...]`), case-sensitive, over a name without
# folders; a learning without it applies in every subscribing repository.
MAX_REPO_GLOB_CHARS = 100


def repo_glob_problem(glob: str) -> str | None:
    """Why a `scope.repos` entry cannot be a repository glob, or None when it can: a name
    holds no `/`, and an unclosed `[` (which fnmatch would quietly take as a letter) is
    refused rather than guessed at."""
    if len(glob) > MAX_REPO_GLOB_CHARS:
        return f"is longer than {MAX_REPO_GLOB_CHARS} characters"
    if "/" in glob or "\\" in glob:
        return "names a repository, never a folder (no '/')"
    depth = 0
    for char in glob:
        if char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
    if depth:
        return "has an unclosed '['"
    return None


def repo_matches(globs: Iterable[str], name: str) -> bool:
    """Whether a repository called `name` is in scope (no globs: every repository)."""
    from fnmatch import fnmatchcase

    patterns = list(globs)
    return not patterns or any(fnmatchcase(name, pattern) for pattern in patterns)
