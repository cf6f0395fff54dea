"""Which files did a tool call touch? File tools name them; shell commands, searches and
globs need reading. Shared by every agent's hook, whatever it calls its tools.

Shell commands are parsed, never run: the common read and diff commands (`cat`,
`head`, `tail`, `sed -n`, `less`, `wc`, `nl`, `bat`, `grep`/`rg`, `git diff|show|log|blame`,
`diff`), test runs (`pytest`, `python -m pytest`, `uv run pytest`) and whatever follows
`--`, each read from where the `cd` before it led. Codex's `apply_patch` bodies name their
files on `*** Update File:` lines. A word counts when it names something inside the
workspace that exists, or looks like a file path (a slash and an extension).
Stdlib only: this runs on every tool call an agent makes.
"""

from __future__ import annotations

import os
import re

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.matching import is_glob
from orbit_learnings.core.scope import GLOB, RepoPath
from orbit_learnings.store.workspace import Workspace, literal_path, to_repo_relative

MAX_PATHS = 20
_HAS_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,12}$")
# Commands whose first plain argument is a pattern or a script, not a file.
_PATTERN_FIRST = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk"}
_READERS = {"cat", "head", "tail", "less", "more", "wc", "nl", "bat", "file", "stat", "diff"}
_READERS |= _PATTERN_FIRST
_GIT_READS = {"diff", "show", "log", "blame", "cat-file"}
_TEST_RUNNERS = {"pytest", "py.test"}
_RUN_WRAPPERS = {"uv", "poetry", "pipenv", "hatch", "pdm", "rye"}
_PYTEST_VALUED = {"-k", "-m", "-p", "-c", "-n", "-o", "--deselect", "--rootdir", "--maxfail"}
# Options that take a value, by command, so the value is not read as a file.
_SEARCH_VALUED = {"-e", "-f", "-m", "-A", "-B", "-C", "-g", "-t", "--type", "--glob"}
_VALUED: dict[str, set[str]] = {
    "head": {"-n", "-c"},
    "tail": {"-n", "-c"},
    "sed": {"-e", "-f"},
    "awk": {"-f", "-v", "-F"},
    **{name: _SEARCH_VALUED for name in ("grep", "egrep", "fgrep", "rg", "ag", "ack")},
}


def repo_path(
    ws: Workspace, token: str, *, cwd: str | None = None, literal: bool = False
) -> RepoPath | None:
    """`token` as a repo-relative file or folder, or None when it is not one: the one
    place a path from an agent's payload is normalised (see `workspace.literal_path`).

    `literal`: the token comes from a field that always holds a path (`file_path`), so
    `web/app/[slug]/page.tsx` is that file even before it exists. A shell word with
    glob characters counts only when a file of that very name exists.
    """
    token = token.strip()
    if not literal:  # a word of prose or a shell line: shed the quotes and brackets around it
        token = token.lstrip("([{'\"`").rstrip(".,;:)]}'\"`")
    if not token or token.startswith(("-", "http:", "https:")):
        return None
    base = cwd or ws.root_str
    exists = os.path.exists(os.path.join(base, token))
    if is_glob(token) and not (literal or exists):
        return None
    looks_like_file = ("/" in token or "\\" in token) and bool(_HAS_EXTENSION.search(token))
    if not exists and not looks_like_file:
        return None
    try:
        path = literal_path(ws, token, base)
    except OrbitError:
        return None  # outside the workspace
    return path if path.text else None


def shell_paths(ws: Workspace, command: str, *, cwd: str | None = None) -> list[RepoPath]:
    """Files and folders a shell command reads, in order, without running it.

    A `cd X` moves where the following commands' words are read from, as the shell
    would (`cd services/api && cat v1/orders.py`); a `cd` we cannot follow (`cd -`,
    `cd ~`, `cd $DIR`) stops the reading, since a guess would name the wrong file.
    """
    found: dict[RepoPath, None] = {}
    here = cwd or ws.root_str
    for words in simple_commands(command):
        if _program(words) in ("cd", "pushd"):
            moved = _changed_dir(here, words)
            if moved is None:
                break
            here = moved
            continue
        for word in _file_words(words):
            path = repo_path(ws, word, cwd=here)
            if path is not None:
                found.setdefault(path, None)
    return list(found)[:MAX_PATHS]


def _program(words: list[str]) -> str:
    plain = _without_assignments(words)
    return os.path.basename(plain[0]) if plain else ""


def _changed_dir(here: str, words: list[str]) -> str | None:
    """Where `cd ARG` leads from `here`, or None when we cannot know."""
    args = [w for w in _without_assignments(words)[1:] if w not in ("-P", "-L", "--")]
    if len(args) != 1 or args[0] == "-" or args[0].startswith(("~", "$")):
        return None
    target = os.path.normpath(os.path.join(here, args[0]))
    return target if os.path.isdir(target) else None


def _without_assignments(words: list[str]) -> list[str]:
    """The words after leading `VAR=value` assignments."""
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]
    return words


PATCH_MARKER = "*** Begin Patch"
_PATCH_FILE_LINES = ("*** Update File:", "*** Add File:", "*** Delete File:", "*** Move to:")


def patch_paths(ws: Workspace, patch: str, *, cwd: str | None = None) -> list[RepoPath]:
    """The files a Codex `apply_patch` body names: its `*** Update File: path` lines and
    their kin (added, deleted, moved to), in order. A file being added need not exist."""
    found: dict[RepoPath, None] = {}
    for line in patch.splitlines():
        head = next((h for h in _PATCH_FILE_LINES if line.startswith(h)), None)
        if head is None:
            continue
        path = repo_path(ws, line[len(head) :].strip(), cwd=cwd, literal=True)
        if path:
            found.setdefault(path, None)
    return list(found)[:MAX_PATHS]


def simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command, split on `;`, `|`, `&&`, `||`, `&` and newlines
    outside quotes. A heredoc's body is data, not commands: reading stops at `<<`."""
    import shlex

    lexer = shlex.shlex(command.split("<<", 1)[0], posix=True, punctuation_chars=";|&()\n")
    lexer.whitespace = " \t\r"  # newlines separate commands, as in the shell
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and set(token) <= set(";|&()\n"):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:  # an unbalanced quote: keep what was read before it
        pass
    return [words for words in commands if words]


def _file_words(words: list[str]) -> list[str]:
    """The words of one simple command that name files, by the rules of that command."""
    words = _unwrapped(_without_assignments(words))
    if not words:
        return []
    program, args = os.path.basename(words[0]), words[1:]
    if program in _TEST_RUNNERS:  # `pytest tests/test_x.py::test_y -k slow`
        return [a.split("::", 1)[0] for a in _plain(args, _PYTEST_VALUED)]
    if "--" in args:
        return args[args.index("--") + 1 :]
    if program == "git" and args and args[0] in _GIT_READS:
        return [a.split(":", 1)[-1] for a in _plain(args[1:], set())]
    if program not in _READERS:
        return []
    plain = _plain(args, _VALUED.get(program, set()))
    explicit_pattern = any(a in ("-e", "-f") or a.startswith("--regexp") for a in args)
    if program in _PATTERN_FIRST and plain and not explicit_pattern:
        plain = plain[1:]
    return plain


def _unwrapped(words: list[str]) -> list[str]:
    """The command a runner wraps: `uv run X`, `poetry run X`, `python -m X`."""
    if len(words) > 2 and os.path.basename(words[0]) in _RUN_WRAPPERS and words[1] == "run":
        return _unwrapped(words[2:])
    is_python = re.fullmatch(r"python(\d(\.\d+)?)?", os.path.basename(words[0] if words else ""))
    if is_python and len(words) > 2 and words[1] == "-m":
        return words[2:]
    return words


def _plain(args: list[str], valued: set[str]) -> list[str]:
    """Arguments that are neither options nor the values of options."""
    plain: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in valued:
            skip = True
        elif not arg.startswith("-"):
            plain.append(arg)
    return plain


def search_paths(
    ws: Workspace, path: str | None, pattern: str | None, *, cwd: str | None
) -> list[RepoPath]:
    """What a search or glob tool looks at: its folder, narrowed by a glob pattern if any
    (the one place a hook's path is a pattern, read from that folder, else the root)."""
    base = repo_path(ws, path, cwd=cwd, literal=True) if path else None
    if pattern and is_glob(pattern) and not os.path.isabs(pattern):
        folder = os.path.join(ws.root_str, base.text) if base else ws.root_str
        try:  # the pattern is read from the search's folder, as the tool reads it
            return [RepoPath(to_repo_relative(ws, pattern, folder), GLOB)]
        except OrbitError:
            return []  # `../../**`: outside the workspace
    return [base] if base else []
