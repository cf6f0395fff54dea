"""Thin wrappers around the git command line, imported only by commands that need git."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


class GitUnavailable(Exception):
    """git is not installed, or the folder is not inside a git work tree."""


def run_git(root: str | Path, *args: str, check: bool = True, stdin: str | None = None) -> str:
    """git's output as text. Paths are bytes to git: one that is not UTF-8 (`café.py`
    saved as Latin-1) decodes as Python decodes file names (surrogate escapes), so it
    still names its file to `os` functions instead of failing the whole command."""
    if shutil.which("git") is None:
        raise GitUnavailable("git is not on PATH")
    proc = subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        encoding="utf-8",
        errors="surrogateescape",
        input=stdin,
        check=False,
    )
    if check and proc.returncode != 0:
        raise GitUnavailable(proc.stderr.strip() or f"git {' '.join(args)} failed")
    return proc.stdout


def is_repository(root: str | Path) -> bool:
    try:
        return run_git(root, "rev-parse", "--is-inside-work-tree").strip() == "true"
    except GitUnavailable:
        return False


def toplevel(folder: str | Path) -> Path | None:
    """The root of the git work tree holding `folder`, or None outside one."""
    try:
        top = run_git(folder, "rev-parse", "--show-toplevel").strip()
    except GitUnavailable:
        return None
    return Path(top) if top else None


def repository_files(root: str | Path) -> list[str]:
    """Tracked files plus untracked files that are not ignored, relative to `root`."""
    out = run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted({p for p in out.split("\0") if p})


def resolve_commits(root: str | Path, refs: Iterable[str]) -> dict[str, str]:
    """Each ref that names a commit -> its full SHA, in one `git cat-file --batch-check`
    (abbreviated SHAs resolve as `rev-parse` would: ambiguous and unknown ones do not)."""
    asked = sorted({ref for ref in refs if ref and "\n" not in ref and "\r" not in ref})
    if not asked:
        return {}
    stdin = "".join(f"{ref}^{{commit}}\n" for ref in asked)
    out = run_git(root, "cat-file", "--batch-check=%(objectname)", check=False, stdin=stdin)
    answers = out.split("\n")
    return {
        ref: answer
        for ref, answer in zip(asked, answers, strict=False)
        if _FULL_SHA.fullmatch(answer)
    }


_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def commits_on_branch(root: str | Path) -> set[str]:
    """The full SHA of every commit reachable from HEAD (none on an unborn branch): one walk
    answers for every cited commit, where a `merge-base --is-ancestor` each cost a process."""
    return set(run_git(root, "rev-list", "HEAD", check=False).split())


@dataclass(frozen=True)
class Moved:
    """One file git's rename detection saw move, in the commit `commit` (abbreviated)."""

    commit: str
    old: str
    new: str


def renames_touching(root: str | Path, paths: Sequence[str]) -> list[Moved]:
    """Renames in the commits on the current branch that touch any of `paths` (files or
    folders, taken literally), newest first: one `git log` for all of them. `--full-diff`
    lets rename detection see where a file went, outside the paths asked about."""
    limit = ["--", *paths] if sum(len(p) + 1 for p in paths) <= PATHSPEC_BUDGET else []
    args = ["--literal-pathspecs", "log", "--no-color", "--no-show-signature", "-M"]
    args += ["--full-diff", "--diff-filter=R"]
    args += ["--name-status", "-z", "--format=commit %h", "HEAD", *limit]
    return _parse_moves(run_git(root, *args, check=False))


PATHSPEC_BUDGET = 64_000  # characters of paths on one command line; more asks about all renames


def _parse_moves(out: str) -> list[Moved]:
    """`commit <hash>` records, each followed by `R<score> NUL old NUL new NUL` entries."""
    moves: list[Moved] = []
    tokens = out.split("\0")
    commit, position = "", 0
    while position < len(tokens):
        token = tokens[position].lstrip("\n")
        if token.startswith("commit "):
            commit = token.removeprefix("commit ")
        elif token.startswith(("R", "C")) and position + 2 < len(tokens):
            if token.startswith("R"):
                moves.append(Moved(commit, tokens[position + 1], tokens[position + 2]))
            position += 2
        position += 1
    return moves


def show(root: str | Path, revision_path: str) -> str | None:
    """`git show REV:PATH` (or `:N:PATH` for index stages); None when it does not exist."""
    try:
        return run_git(root, "show", revision_path)
    except GitUnavailable:
        return None


def rev_exists(root: str | Path, rev: str) -> bool:
    try:
        run_git(root, "rev-parse", "--verify", "--quiet", rev)
        return True
    except GitUnavailable:
        return False
