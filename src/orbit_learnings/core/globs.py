"""Compiling scope globs with pathspec, done once at write/index time.

The hot path never imports pathspec: the index stores each glob's regex and its
literal leading directory (the anchor) so lookups only need `re` and SQLite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.matching import ANY_SEGMENTS, GLOB_CHARS, MAX_SEGMENT_CHARS, compiled


@dataclass(frozen=True)
class CompiledGlob:
    glob: str
    regex: str
    anchor: str  # literal leading folders ("crates/orbit-engine/") or "" when it floats
    sql_glob: str  # a SQLite GLOB pattern matching a superset of what `regex` matches


class InvalidGlob(OrbitError):
    pass


def compile_glob(glob: str) -> CompiledGlob:
    """Translate one gitignore-style scope glob; refuse ones that can never match."""
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    text = glob.strip()
    if not text or text.startswith(("#", "!")):
        raise InvalidGlob(f"invalid scope glob {glob!r}: empty, comment or negation")
    reason = _never_matches(text)
    if reason:
        raise InvalidGlob(f"invalid scope glob {glob!r}: {reason}")
    try:
        regex, include = GitIgnoreBasicPattern.pattern_to_regex(text)
    except ValueError:  # pathspec's GitIgnorePatternError, e.g. for `\\/`
        raise InvalidGlob(f"invalid scope glob {glob!r}: not a gitignore pattern") from None
    if regex is None or not include:
        raise InvalidGlob(f"invalid scope glob {glob!r}")
    if "[" in text:  # only a class (`[z-a]`) can make pathspec's regex invalid; compiling
        try:  # every glob would add ~70 us each to a full index build
            compiled(regex)
        except re.error as exc:
            raise InvalidGlob(f"invalid scope glob {glob!r}: {exc.msg}") from None
    return CompiledGlob(text, regex, _anchor(text), sql_prefilter(text))


def sql_prefilter(glob: str) -> str:
    """A SQLite GLOB pattern that matches every path the gitignore glob matches (and more).

    SQLite's `*` also crosses `/`, so the translation only widens: the index can test
    thousands of globs in C, and Python compiles and runs the exact regex only for the
    few that pass. Floating globs get a leading `*`, and every glob a trailing `*` for
    the paths below a matching folder.
    """
    body = glob.strip()
    floating = "/" not in body.rstrip("/")
    body = body.lstrip("/").replace("**/", "*")  # `**/` may match nothing: a/**/b covers a/b
    out: list[str] = ["*"] if floating else []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(f"[{body[i + 1]}]")
            i += 2
            continue
        if ch == "[":
            end = body.find("]", i + 2)
            if end != -1:
                inner = body[i + 1 : end]
                out.append("[^" + inner[1:] + "]" if inner[:1] in ("!", "^") else "[" + inner + "]")
                i = end + 1
                continue
        out.append("*" if ch == "*" else ch)
        i += 1
    pattern = "".join(out)
    while "**" in pattern:
        pattern = pattern.replace("**", "*")
    return pattern if pattern.endswith("*") else pattern + "*"


def _never_matches(glob: str) -> str | None:
    """Why a glob can never match a repo-relative path, or None if it can."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in glob):
        return "control characters (a newline, a tab) never appear in a path"
    if any(len(part) > MAX_SEGMENT_CHARS for part in glob.split("/")):
        return f"a segment longer than {MAX_SEGMENT_CHARS} characters matches no file name"
    if (len(glob) - len(glob.rstrip("\\"))) % 2 == 1:  # an odd run: the last one escapes nothing
        return "trailing backslash"
    if any(part in ("..", ".") for part in glob.strip("/").split("/")):
        return "'.' and '..' segments never match repo-relative paths"
    depth = 0
    escaped = False
    for ch in glob:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
    if depth:
        return "unclosed '[' character class"
    return None


def _anchor(glob: str) -> str:
    body = glob.lstrip("/")
    parts = body.rstrip("/").split("/")
    if len(parts) == 1 and not glob.startswith("/"):
        return ""  # floats to any depth
    literal: list[str] = []
    for part in parts[:-1]:
        if part == ANY_SEGMENTS or any(ch in GLOB_CHARS or ch == "\\" for ch in part):
            break
        literal.append(part)
    return "/".join(literal) + "/" if literal else ""
