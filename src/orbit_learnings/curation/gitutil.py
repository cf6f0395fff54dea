"""Thin wrappers around the git command line, imported only by commands that need git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


class GitUnavailable(Exception):
    """git is not installed, or the folder is not inside a git work tree."""


def run_git(root: str | Path, *args: str, check: bool = True, stdin: str | None = None) -> str:
    if shutil.which("git") is None:
        raise GitUnavailable("git is not on PATH")
    proc = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, input=stdin, check=False
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


def commit_on_current_branch(root: str | Path, sha: str) -> bool:
    """True when `sha` names a commit reachable from HEAD (unknown SHAs are not)."""
    try:
        full = run_git(root, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}").strip()
    except GitUnavailable:
        return False
    if not full:
        return False
    proc = subprocess.run(
        ["git", "merge-base", "--is-ancestor", full, "HEAD"], cwd=root, capture_output=True
    )
    return proc.returncode == 0


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
