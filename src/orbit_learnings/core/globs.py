"""Compiling scope globs with pathspec, done once at write/index time.

The dialect is gitignore's (what `git check-ignore` does, tested against git itself)
plus brace groups, `**/*.{ts,tsx}`, which Cursor, Copilot and Claude rules use: each
expansion is compiled by pathspec and the regexes are joined. The hot path never
imports pathspec: the index stores each glob's regex and its literal leading
directory (the anchor) so lookups only need `re` and SQLite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.matching import (
    ANY_SEGMENTS,
    GLOB_CHARS,
    MAX_SEGMENT_CHARS,
    compiled,
    expand_braces,
    first_brace_group,
)


@dataclass(frozen=True)
class CompiledGlob:
    glob: str
    regex: str
    anchor: str  # literal leading folders ("crates/orbit-engine/") or "" when it floats
    sql_glob: str  # a SQLite GLOB pattern matching a superset of what `regex` matches


class InvalidGlob(UsageError):
    """A scope glob that can never match, or that the dialect cannot honour (exit 2 when
    typed; a problem with file and line when found in a learning.yaml)."""

    code = "invalid-glob"


_POSIX_CLASS = re.compile(r"\[:[a-z]*:\]")
_BACKSLASH_IN_CLASS = re.compile(r"(?<!\\)\[[^\]]*\\")  # `[\]]`, `[\-_]`


def compile_glob(glob: str) -> CompiledGlob:
    """Translate one scope glob (gitignore's dialect plus `{a,b}`); refuse ones that can
    never match or that the dialect cannot honour, with the reason."""
    text = glob.strip()
    if not text or text.startswith(("#", "!")):
        raise InvalidGlob(f"invalid scope glob {glob!r}: empty, comment or negation")
    plain = text.replace("\\/", "/")  # git reads an escaped slash as a slash
    if not plain.strip("/"):
        raise InvalidGlob(f"invalid scope glob {glob!r}: names no path ('**' means every path)")
    if _BACKSLASH_IN_CLASS.search(plain):
        raise InvalidGlob(
            f"invalid scope glob {glob!r}: a backslash inside [...] is not supported; "
            "put ']' first or '-' last in the class instead"
        )
    if _POSIX_CLASS.search(plain):
        raise InvalidGlob(
            f"invalid scope glob {glob!r}: POSIX classes such as [[:digit:]] are not "
            "supported; write a range such as [0-9]"
        )
    try:
        expansions = expand_braces(plain)
    except ValueError as exc:
        raise InvalidGlob(f"invalid scope glob {glob!r}: {exc}") from None
    regexes = [_regex(glob, expansion) for expansion in expansions]
    regex = regexes[0] if len(regexes) == 1 else "|".join(f"(?:{r})" for r in regexes)
    anchor = _common_anchor([_anchor(e) for e in expansions])
    return CompiledGlob(text, regex, anchor, sql_prefilter(_braces_as_stars(plain)))


def _regex(glob: str, expansion: str) -> str:
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    reason = _never_matches(expansion)
    if reason:
        raise InvalidGlob(f"invalid scope glob {glob!r}: {reason}")
    if expansion.endswith("/**/") and expansion != "/**/":
        expansion = expansion[:-4] + "/*/"  # git: a folder *below* it, not the folder itself
    try:
        regex, include = GitIgnoreBasicPattern.pattern_to_regex(expansion)
    except ValueError:  # pathspec's GitIgnorePatternError
        raise InvalidGlob(f"invalid scope glob {glob!r}: not a gitignore pattern") from None
    if regex is None or not include:
        raise InvalidGlob(f"invalid scope glob {glob!r}")
    regex = _as_git_reads_it(str(regex))
    if "[" in expansion:  # only a class (`[z-a]`) can make pathspec's regex invalid; compiling
        try:  # every glob would add ~70 us each to a full index build
            compiled(regex)
        except re.error as exc:
            raise InvalidGlob(f"invalid scope glob {glob!r}: {exc.msg}") from None
    return str(regex)


_LONE_STAR_END = "[^/]+/?$"


def _as_git_reads_it(regex: str) -> str:
    """Two places where pathspec's regex and git part ways (git's wildmatch vectors show
    both): a negated class never matches `/` in git, and `foo/*` matches the folders in
    `foo` too, so, as with any pattern that matches a folder, everything below them."""
    if regex.endswith(_LONE_STAR_END):
        regex = regex[: -len(_LONE_STAR_END)] + "[^/]+(?:/|$)"
    return _slash_out_of_negated_classes(regex)


def _slash_out_of_negated_classes(regex: str) -> str:
    out, i = [], 0
    while i < len(regex):
        if regex[i] == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if regex.startswith("[^", i):
            end = i + 2 + (regex[i + 2 : i + 3] == "]")  # a leading `]` is a member
            while end < len(regex) and regex[end] != "]":
                end += 2 if regex[end] == "\\" else 1
            body = regex[i + 2 : end]
            guard = "" if body == "/" else "(?!/)"  # a lookahead leaves the class untouched
            out.append(guard + "[^" + body + "]")
            i = end + 1
            continue
        out.append(regex[i])
        i += 1
    return "".join(out)


def _common_anchor(anchors: list[str]) -> str:
    """The literal folders every expansion starts with ("" when they differ at the top)."""
    common = anchors[0].split("/")[:-1] if anchors[0] else []
    for anchor in anchors[1:]:
        parts = anchor.split("/")[:-1] if anchor else []
        size = 0
        while size < min(len(common), len(parts)) and common[size] == parts[size]:
            size += 1
        common = common[:size]
    return "/".join(common) + "/" if common else ""


def _braces_as_stars(glob: str) -> str:
    """Each brace group as `*`: the SQL prefilter only has to match a superset."""
    while True:
        start, end, _ = first_brace_group(glob)
        if start < 0:
            return glob
        glob = glob[:start] + "*" + glob[end + 1 :]


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


def literal_glob(path: str) -> str:
    """The glob that matches exactly one repo-relative file (an anchor's path as scope):
    rooted, with every glob character escaped, so `app/[slug]/page.tsx` means itself."""
    import re

    return "/" + re.sub(r"([\\*?\[\]{}])", r"\\\1", path)
