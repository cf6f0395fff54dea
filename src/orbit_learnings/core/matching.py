"""Scope matching: does a learning apply to a path, a folder, a glob or a tag?

Stdlib only, because this runs on every file an agent touches. Learning globs
arrive here already compiled to regexes (see `globs.py`, done at index time);
this module adds *glob containment*: whether some path could match both a
learning's glob and a query glob or folder. That is decided on a segment model
of gitignore-style globs, which a property test keeps in agreement with the
compiled regexes.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

TYPE_CHECKING = False  # `typing` costs the hot path an import; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    T = TypeVar("T")

GLOB_CHARS = frozenset("*?[")
ANY_SEGMENTS = "**"  # zero or more whole path segments

Segment = str  # one path segment pattern, or "**"


class PathQuery:
    """A normalised `--path` argument: a concrete file, or a glob/folder to overlap with."""

    __slots__ = ("is_pattern", "segments", "text")

    def __init__(self, text: str, *, is_pattern: bool, segments: tuple[Segment, ...]) -> None:
        self.text = text
        self.is_pattern = is_pattern
        self.segments = segments

    def __repr__(self) -> str:
        return f"PathQuery({self.text!r}, {self.is_pattern}, {self.segments!r})"

    @property
    def label(self) -> str:
        return f"path:{self.text}"


def is_glob(text: str) -> bool:
    return any(ch in GLOB_CHARS for ch in text)


MAX_EXPANSIONS = 64  # `{a,b}{c,d}...` grows as a product: more is a mistake, not a scope


@lru_cache(maxsize=4096)
def expand_braces(glob: str) -> tuple[str, ...]:
    r"""`**/*.{ts,tsx}` -> (`**/*.ts`, `**/*.tsx`); nested groups expand too.

    Braces are the one extension to gitignore's dialect (Cursor, Copilot and Claude
    rules use them). A group needs a comma at its own level; `\{` is a literal brace,
    and so is an unmatched one. More than `MAX_EXPANSIONS` results raise ValueError.
    """
    start, end, parts = first_brace_group(glob)
    if start < 0:
        return (glob,)
    out: list[str] = []
    for part in parts:
        for tail in expand_braces(glob[:start] + part + glob[end + 1 :]):
            if tail not in out:
                out.append(tail)
            if len(out) > MAX_EXPANSIONS:
                raise ValueError(f"expands to more than {MAX_EXPANSIONS} globs")
    return tuple(out)


def first_brace_group(glob: str) -> tuple[int, int, list[str]]:
    """(start, end, alternatives) of the first brace group with a top-level comma."""
    i = 0
    while i < len(glob):
        if glob[i] == "\\":
            i += 2
            continue
        if glob[i] == "{":
            end, parts = _group_at(glob, i)
            if end >= 0 and len(parts) > 1:
                return i, end, parts
        i += 1
    return -1, -1, []


def _group_at(glob: str, start: int) -> tuple[int, list[str]]:
    depth, i, piece_start = 0, start, start + 1
    parts: list[str] = []
    while i < len(glob):
        ch = glob[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                parts.append(glob[piece_start:i])
                return i, parts
        elif ch == "," and depth == 1:
            parts.append(glob[piece_start:i])
            piece_start = i + 1
        i += 1
    return -1, []


_FILE_PATTERN = re.compile(r"\.[A-Za-z0-9_-]+$")  # ends in a literal extension: `*.py`, `x.test.ts`
MAX_QUERY_CHARS = 1024  # a path or glob longer than any real one: refused, not matched
MAX_SEGMENT_CHARS = 255  # no file system allows a longer name; the matchers rely on it


def utf8_text(path: str) -> str:
    """A file name as text that can be stored, bound and printed: a byte that is not UTF-8
    (a Latin-1 `café.py`, which Python hands over as a surrogate escape) becomes U+FFFD.
    Nothing is lost for matching: scopes are UTF-8, so no glob names that byte literally,
    and `?` or `*` match U+FFFD as they match the byte."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def make_query(
    repo_relative: str, *, is_directory: bool = False, literal: bool = False
) -> PathQuery:
    """Classify a repo-relative query; folders end in `/` or name an existing directory.

    `literal`: the text is a file's path even if it holds `[`, `*` or `?` (`[slug]` route
    folders): paths from agents, hooks and existing files are never read as globs.
    """
    from orbit_learnings.core.errors import UsageError

    text = repo_relative if repo_relative.isascii() else utf8_text(repo_relative)
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"a --path of {len(text)} characters is longer than {MAX_QUERY_CHARS}")
    if any(len(part) > MAX_SEGMENT_CHARS for part in text.split("/")):
        raise UsageError(f"a --path segment is longer than {MAX_SEGMENT_CHARS} characters")
    if text == "" or text.endswith("/") or is_directory:
        folder = text.rstrip("/")
        parts = tuple(p for p in folder.split("/") if p) if folder else ()
        segments = (*parts, "*", ANY_SEGMENTS)
        return PathQuery(folder + "/" if folder else "", is_pattern=True, segments=segments)
    if is_glob(text) and not literal:
        parts = tuple(text.rstrip("/").split("/"))
        if not _FILE_PATTERN.search(parts[-1]):
            # A query glob also reaches into the folders it matches: `crates/orbit-*` covers
            # `crates/orbit-engine/Cargo.toml` as `crates/orbit-engine/` would; `*.txt`
            # (a literal extension) names files only.
            parts = (*parts, ANY_SEGMENTS)
        return PathQuery(text, is_pattern=True, segments=_collapse(parts))
    return PathQuery(text, is_pattern=False, segments=tuple(text.split("/")))


def learning_glob_segments(glob: str) -> tuple[Segment, ...]:
    """Segment model of a gitignore-style scope glob.

    Mirrors git's gitignore rules: a pattern with no inner slash floats to any
    depth, a pattern also covers everything below a matching folder (`foo/*` too),
    a trailing `/` or `/**` requires at least one more segment.
    """
    text = glob.strip()
    anchored = text.startswith("/")
    text = text.lstrip("/")
    dir_only = text.endswith("/")
    parts = list(_collapse(tuple(p for p in text.rstrip("/").split("/") if p != "")))
    if not parts:
        return ("*", ANY_SEGMENTS)
    if len(parts) > 1:
        anchored = True
    if parts == [ANY_SEGMENTS]:  # "**" is everything; "**/" everything below the root
        return ("*", "*", ANY_SEGMENTS) if dir_only else ("*", ANY_SEGMENTS)
    segments: list[Segment] = [] if anchored else [ANY_SEGMENTS]
    if parts[-1] == ANY_SEGMENTS and dir_only:  # `src/**/`: the folders below src, so
        segments += [*parts[:-1], "*", "*", ANY_SEGMENTS]  # what is inside them (git)
    elif parts[-1] == ANY_SEGMENTS:
        segments += [*parts[:-1], "*", ANY_SEGMENTS]
    elif dir_only:
        segments += [*parts, "*", ANY_SEGMENTS]
    else:
        segments += [*parts, ANY_SEGMENTS]
    return _collapse(tuple(segments))


def _collapse(segments: tuple[Segment, ...]) -> tuple[Segment, ...]:
    out: list[Segment] = []
    for seg in segments:
        if seg == ANY_SEGMENTS and out and out[-1] == ANY_SEGMENTS:
            continue
        out.append(seg)
    return tuple(out)


@lru_cache(maxsize=4096)
def globs_overlap(learning_glob: str, query_segments: tuple[Segment, ...]) -> bool:
    """True when some path could match both the learning glob and the query."""
    return any(
        _segments_overlap(learning_glob_segments(glob), query_segments)
        for glob in _expansions(learning_glob)
    )


def _expansions(glob: str) -> tuple[str, ...]:
    try:
        return expand_braces(glob.replace("\\/", "/"))
    except ValueError:  # refused at write time; a hand edit matches nothing rather than fail
        return ()


def _segments_overlap(a: tuple[Segment, ...], b: tuple[Segment, ...]) -> bool:
    return wildcard_overlap(a, b, lambda s: s == ANY_SEGMENTS, segment_patterns_overlap)


def wildcard_overlap(
    a: Sequence[T], b: Sequence[T], is_wild: Callable[[T], bool], pair_ok: Callable[[T, T], bool]
) -> bool:
    """Whether two sequences with wildcards (each matching any run of items, or none) can
    describe a common sequence. Filled as a table from the ends backwards, so the work is
    bounded by len(a) * len(b) and no recursion depth grows with the input."""
    n, m = len(a), len(b)
    below = [False] * (m + 1)  # the row for i + 1
    for i in range(n, -1, -1):
        row = [False] * (m + 1)
        for j in range(m, -1, -1):
            a_wild = i < n and is_wild(a[i])
            b_wild = j < m and is_wild(b[j])
            right = j < m and row[j + 1]  # a wildcard consumes b[j] and stays
            down = i < n and below[j]  # a wildcard is done (or a[i] consumed by b's)
            if i == n and j == m:
                row[j] = True
            elif a_wild or b_wild:
                row[j] = (a_wild and (down or right)) or (b_wild and (right or down))
            elif i < n and j < m:
                row[j] = below[j + 1] and pair_ok(a[i], b[j])
        below = row
    return below[0]


# --- single-segment patterns -------------------------------------------------

_Token = tuple[str, object]  # ("lit", ch) | ("any", None) | ("star", None) | ("class", CharClass)


class CharClass:
    """A `[...]` set inside a glob segment."""

    __slots__ = ("chars", "negated", "ranges")

    def __init__(
        self, *, negated: bool, chars: frozenset[str], ranges: tuple[tuple[str, str], ...]
    ) -> None:
        self.negated = negated
        self.chars = chars
        self.ranges = ranges

    def contains(self, ch: str) -> bool:
        inside = ch in self.chars or any(lo <= ch <= hi for lo, hi in self.ranges)
        return inside != self.negated

    def candidates(self) -> set[str]:
        found = set(self.chars)
        for lo, hi in self.ranges:
            span = ord(hi) - ord(lo)
            found.update(chr(c) for c in range(ord(lo), ord(lo) + min(span, 255) + 1))
        return found


@lru_cache(maxsize=4096)
def _tokens(pattern: str) -> tuple[_Token, ...]:
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            tokens.append(("lit", pattern[i + 1]))
            i += 2
        elif ch == "*":
            if not tokens or tokens[-1][0] != "star":
                tokens.append(("star", None))
            i += 1
        elif ch == "?":
            tokens.append(("any", None))
            i += 1
        elif ch == "[" and (end := _class_end(pattern, i)) != -1:
            tokens.append(("class", _parse_class(pattern[i + 1 : end])))
            i = end + 1
        else:
            tokens.append(("lit", ch))
            i += 1
    return tuple(tokens)


def _class_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    return pattern.find("]", i)


def _parse_class(body: str) -> CharClass:
    negated = body[:1] in ("!", "^")
    body = body[1:] if negated else body
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            ranges.append((body[i], body[i + 2]))
            i += 3
        else:
            chars.add(body[i])
            i += 1
    return CharClass(negated=negated, chars=frozenset(chars), ranges=tuple(ranges))


def _one_char_overlap(x: _Token, y: _Token) -> bool:
    kind_x, val_x = x
    kind_y, val_y = y
    if kind_x == "any" or kind_y == "any":
        return True
    if kind_x == "lit" and kind_y == "lit":
        return val_x == val_y
    if kind_x == "lit":
        return isinstance(val_y, CharClass) and val_y.contains(str(val_x))
    if kind_y == "lit":
        return isinstance(val_x, CharClass) and val_x.contains(str(val_y))
    assert isinstance(val_x, CharClass) and isinstance(val_y, CharClass)
    if val_x.negated and val_y.negated:
        return True
    probe, other = (val_y, val_x) if val_x.negated else (val_x, val_y)
    return any(other.contains(ch) for ch in probe.candidates())


@lru_cache(maxsize=8192)
def segment_patterns_overlap(p: str, q: str) -> bool:
    """Whether one non-empty path segment can match both fnmatch-style patterns."""
    a, b = _tokens(p), _tokens(q)
    # A segment is never empty: two lone stars still overlap on any name.
    return (
        wildcard_overlap(a, b, lambda t: t[0] == "star", _one_char_overlap) and p != "" and q != ""
    )


# --- concrete paths against compiled regexes --------------------------------


@lru_cache(maxsize=8192)
def compiled(regex: str) -> re.Pattern[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # `[[a]` draws a FutureWarning meant for regex authors
        return re.compile(regex)


HEAVY_STARS = 3  # stars in one segment from which a backtracking regex can take seconds


@lru_cache(maxsize=8192)
def is_heavy(glob: str) -> bool:
    """Whether a regex for this glob could backtrack for seconds (`*a*a*a…b`: doubling per
    character); such globs are matched on the segment model, in polynomial time, instead."""
    return any(part.count("*") - 2 * part.count("**") >= HEAVY_STARS for part in glob.split("/"))


def path_matches(regex: str, path: str, glob: str | None = None) -> bool:
    """Whether a concrete path matches a learning glob (compiled to `regex`).

    Pass the glob too on anything that can be hostile: a heavy glob then never reaches
    the backtracking regex engine.
    """
    if glob is not None and is_heavy(glob):
        target = literal_segments(path)
        return any(_segments_overlap(learning_glob_segments(g), target) for g in _expansions(glob))
    return compiled(regex).search(path) is not None


def literal_segments(path: str) -> tuple[Segment, ...]:
    """A concrete path as segment patterns that match only itself (glob characters escaped)."""
    escaped = "".join(f"\\{ch}" if ch in "*?[\\" else ch for ch in path)
    return tuple(escaped.split("/"))


def anchor_candidates(path: str) -> list[str]:
    """Literal directory prefixes of a path, as stored in the index's glob anchors."""
    parts = path.split("/")
    prefixes = [""]
    for end in range(1, len(parts)):
        prefixes.append("/".join(parts[:end]) + "/")
    return prefixes
