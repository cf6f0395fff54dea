"""What an anchor's lines were: the newest version of the cited file in git's history
that still holds them exactly (modulo formatting), for `show` to set beside today's."""

from __future__ import annotations

from orbit_learnings.core.anchors.locate import MOVED, OK, locate
from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.curation import gitutil
from orbit_learnings.store.workspace import Workspace

MAX_COMMITS = 50  # versions of the cited file looked at, newest first


class Recorded:
    """The cited lines as recorded, and the commit they were read from."""

    __slots__ = ("commit", "lines", "start")

    def __init__(self, commit: str, start: int, lines: list[str]) -> None:
        self.commit = commit
        self.start = start
        self.lines = lines


def recorded_lines(ws: Workspace, anchor: Anchor) -> Recorded | None:
    """None when git has no version holding the lines (never committed, or no git)."""
    root = ws.root_str
    if not gitutil.is_repository(root):
        return None
    out = gitutil.run_git(
        root,
        "log",
        "--no-color",
        f"-n{MAX_COMMITS}",
        "--format=commit %h",
        "--follow",
        "--name-only",
        "HEAD",
        "--",
        anchor.path,
        check=False,
    )
    for commit, path in _versions(out):
        text = gitutil.show(root, f"{commit}:{path}")
        if text is None:
            continue
        found = locate(anchor, text, path=anchor.path)
        if found.state in (OK, MOVED):
            lines = text.splitlines()[found.start - 1 : found.end]
            return Recorded(commit, found.start, lines)
    return None


def _versions(out: str) -> list[tuple[str, str]]:
    """(commit, path at that commit) pairs from `git log --format='commit %h' --name-only`."""
    versions: list[tuple[str, str]] = []
    commit = ""
    for line in out.splitlines():
        if line.startswith("commit "):
            commit = line.removeprefix("commit ").strip()
        elif line.strip() and commit:
            versions.append((commit, line.strip()))
    return versions
