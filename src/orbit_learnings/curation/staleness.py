"""Staleness (spec 7.3): learnings whose paths, commits or tasks no longer exist.

A learning is stale when any of these holds:
- it has path globs and none matches a file in the repository (`git ls-files
  --cached --others --exclude-standard` in a git repository, else the file tree);
- it has commit evidence and none of those commits is on the current branch;
- it has task evidence and every one of those tasks is gone from `.orbit/tasks/`
  (without a task store, task evidence never makes a learning stale).
Only active learnings are candidates.

Git is asked a fixed number of times per run, never once per learning: one file list,
one resolution of every cited commit and one walk of the branch, and (only when some
learning lost its paths) one history query per rename hop (see `renames.py`).
"""

from __future__ import annotations

import os
import sys
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

from orbit_learnings.core.matching import (
    ANY_SEGMENTS,
    expand_braces,
    learning_glob_segments,
    path_matches,
)
from orbit_learnings.core.progress import report
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.renames import Rename, follow, rewrite_scope
from orbit_learnings.index import reads
from orbit_learnings.index.build import open_fresh
from orbit_learnings.store.layout import ORBIT_DIR, TASKS_DIR
from orbit_learnings.store.workspace import Workspace

SKIP_DIRS = {".git", ORBIT_DIR, "node_modules", ".venv", "venv", "__pycache__"}
PATHS_GONE = "paths-gone"
FEW = 32  # candidate files cheaper to try with the regex than to narrow down further


@dataclass
class Stale:
    id: str
    summary: str
    reasons: list[str]
    renames: list[Rename] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "summary": self.summary,
            "reasons": self.reasons,
            "renames": [r.to_dict() for r in self.renames],
        }

    def describe(self) -> str:
        """`paths-gone (src/a.py → src/b.py, renamed in 3f2a1c9), commits-gone`."""
        moved = "; ".join(r.describe() for r in self.renames)
        return ", ".join(
            f"{reason} ({moved})" if reason == PATHS_GONE and moved else reason
            for reason in self.reasons
        )


@dataclass
class StaleReport:
    stale: list[Stale]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"stale": [s.to_dict() for s in self.stale], "notes": self.notes}


def _walk_files(root: str) -> list[str]:
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        rel = os.path.relpath(folder, root)
        for name in names:
            files.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return files


class RepoFiles:
    """The repository's files, indexed so that "does any file match this glob?" is cheap.

    Trying every glob's regex on every file costs learnings × files (17 s for 5,000
    learnings in 20,000 files). Here a glob only meets the files that could match it: those
    below its literal leading folders, holding a segment that starts or ends like the glob's
    most literal segment (a bisect in the sorted names). The compiled regex still has the
    last word (`path_matches`), so no glob changes meaning; the pruning relies only on the
    segment model (`learning_glob_segments`), which tests keep in agreement with the regexes.
    Each distinct glob is answered once: learnings share globs.
    """

    def __init__(self, files: Iterable[str]) -> None:
        self.files = sorted(set(files))
        self._file_set = set(self.files)
        self.nodes: set[str] = set()  # every file and every folder that holds one
        self._by_name: dict[str, list[str]] = {}
        for path in self.files:
            node = path
            while node and node not in self.nodes:
                self.nodes.add(node)
                self._by_name.setdefault(node.rpartition("/")[2], []).append(node)
                node = node.rpartition("/")[0]
        self._names = sorted(self._by_name)
        self._reversed = sorted(name[::-1] for name in self._by_name)
        self._verdicts: dict[tuple[str, str], bool] = {}

    def any_match(self, regex: str, glob: str) -> bool:
        """Whether some file matches the glob (compiled to `regex`), as `path_matches` says."""
        key = (regex, glob)
        if key not in self._verdicts:
            candidates = self.candidates(glob)
            self._verdicts[key] = any(path_matches(regex, f, glob) for f in candidates)
        return self._verdicts[key]

    def below(self, node: str) -> Sequence[str]:
        """The file `node`, or the files in the folder `node` ("" for all), by bisection."""
        if not node:
            return self.files
        if node in self._file_set:
            return [node]
        start = bisect_left(self.files, node + "/")
        return self.files[start : bisect_left(self.files, node + "0", start)]  # "0" follows "/"

    def candidates(self, glob: str) -> Iterable[str]:
        """Every file the glob can match, and some it cannot: the regex sorts them."""
        try:
            expansions = expand_braces(glob.replace("\\/", "/"))
        except ValueError:  # refused at write time; the regex alone decides, on every file
            return self.files
        return chain.from_iterable(self._expansion_candidates(e) for e in expansions)

    def _expansion_candidates(self, glob: str) -> Iterable[str]:
        """A superset of the files that can match one brace expansion of a glob: those in its
        literal leading folders, or, when fewer, those at or below a path segment named like
        the glob's most literal segment pattern (some path segment must match it)."""
        segments = learning_glob_segments(glob)
        lead: list[str] = []
        for segment in segments:
            if segment == ANY_SEGMENTS or _literal_ends(segment) is not None:
                break
            lead.append(segment)
        folder = "/".join(lead)
        if folder and folder not in self.nodes:
            return ()
        inside = self.below(folder)
        rest = [s for s in segments[len(lead) :] if s != ANY_SEGMENTS]
        best = max(rest, key=_selectivity, default=None)
        if len(inside) <= FEW or best is None or _selectivity(best) == 0:
            return inside
        names = self._names_like(best, fewer_than=len(inside))
        if names is None or sum(len(self._by_name[name]) for name in names) >= len(inside):
            return inside
        prefix = folder + "/" if folder else ""
        nodes = (node for name in names for node in self._by_name[name])
        return chain.from_iterable(self.below(n) for n in nodes if n.startswith(prefix))

    def _names_like(self, segment: str, *, fewer_than: int) -> list[str] | None:
        """Segment names that could match the pattern (with its literal start and end), or
        None when the names sharing its longer literal end are not fewer than `fewer_than`."""
        ends = _literal_ends(segment)
        if ends is None:
            return [segment] if segment in self._by_name else []
        start, end = ends
        ordered, key = (
            (self._names, start) if len(start) >= len(end) else (self._reversed, end[::-1])
        )
        first, last = _prefix_span(ordered, key)
        if last - first >= fewer_than:
            return None
        pool = (
            ordered[first:last]
            if ordered is self._names
            else [n[::-1] for n in ordered[first:last]]
        )
        shortest = len(start) + len(end)
        return [n for n in pool if n.endswith(end) and n.startswith(start) and len(n) >= shortest]


_SPECIAL = frozenset("*?[]\\")


def _literal_ends(segment: str) -> tuple[str, str] | None:
    """(literal start, literal end) of a segment pattern; None when it is all literal."""
    if not any(ch in _SPECIAL for ch in segment):
        return None
    start = next(i for i, ch in enumerate(segment) if ch in _SPECIAL)
    end = next(i for i in range(len(segment), 0, -1) if segment[i - 1] in _SPECIAL)
    return segment[:start], segment[end:]


def _selectivity(segment: str) -> int:
    """How narrowly a segment pattern picks names: its longer literal end (all of it, and
    then some, when it has no wildcard)."""
    ends = _literal_ends(segment)
    return 2 * len(segment) + 1 if ends is None else max(len(ends[0]), len(ends[1]))


def _prefix_span(ordered: list[str], prefix: str) -> tuple[int, int]:
    """Where the strings starting with `prefix` (non-empty) lie in a sorted list."""
    first = bisect_left(ordered, prefix)
    if prefix[-1] == chr(sys.maxunicode):  # no character sorts after it
        return first, len(ordered)
    return first, bisect_left(ordered, prefix[:-1] + chr(ord(prefix[-1]) + 1))


def find_stale(ws: Workspace, ids: list[str] | None = None) -> StaleReport:
    notes: list[str] = []
    in_git = gitutil.is_repository(ws.root_str)
    files = RepoFiles(gitutil.repository_files(ws.root_str) if in_git else _walk_files(ws.root_str))
    if not in_git:
        notes.append(
            "not a git repository (or git is not installed): commit evidence was not checked"
        )
    tasks_dir = os.path.join(ws.root_str, ORBIT_DIR, TASKS_DIR)
    has_task_store = os.path.isdir(tasks_dir)
    with open_fresh(ws) as fresh:
        rows = reads.evidence_of_active(fresh.conn)
        regexes = reads.glob_regexes(fresh.conn)
    if ids is not None:
        rows = [row for row in rows if row[0] in ids]
    on_branch = _commits_on_branch(ws, rows) if in_git else set()
    stale: list[Stale] = []
    for number, (learning_id, summary, evidence) in enumerate(rows, 1):
        if number % 25 == 0 or number == len(rows):
            report("checking for stale learnings", number, len(rows))
        reasons = []
        globs = regexes.get(learning_id, [])
        if globs and not any(files.any_match(r, g) for r, g in globs):
            reasons.append(PATHS_GONE)
        commits = [e["ref"] for e in evidence if e["kind"] == "commit"]
        if commits and in_git and not any(c in on_branch for c in commits):
            reasons.append("commits-gone")
        tasks = [e["ref"] for e in evidence if e["kind"] == "task"]
        if (
            tasks
            and has_task_store
            and not any(os.path.isdir(os.path.join(tasks_dir, t)) for t in tasks)
        ):
            reasons.append("tasks-gone")
        if reasons:
            stale.append(Stale(learning_id, summary, reasons))
    if in_git:
        _add_renames(ws, stale, regexes, files)
    return StaleReport(stale, notes)


def _commits_on_branch(
    ws: Workspace, rows: list[tuple[str, str, list[dict[str, str]]]]
) -> set[str]:
    """The cited commit refs (as written) that name a commit on the current branch."""
    cited = {e["ref"] for _, _, evidence in rows for e in evidence if e["kind"] == "commit"}
    resolved = gitutil.resolve_commits(ws.root_str, cited)
    reachable = gitutil.commits_on_branch(ws.root_str) if resolved else set()
    return {ref for ref, sha in resolved.items() if sha in reachable}


def _add_renames(
    ws: Workspace,
    stale: list[Stale],
    regexes: dict[str, list[tuple[str, str]]],
    files: RepoFiles,
) -> None:
    """Where git saw the files of paths-gone learnings go, for the report and --follow-renames."""
    gone = [s for s in stale if PATHS_GONE in s.reasons]
    globs = sorted({g for s in gone for _, g in regexes.get(s.id, [])})
    if not globs:
        return
    found = follow(ws.root_str, globs, files)
    for item in gone:
        item.renames = [found[g] for _, g in regexes.get(item.id, []) if g in found]


def follow_renames(ws: Workspace, report: StaleReport) -> list[str]:
    """Rewrite the scope of each stale learning whose dead globs git saw move."""
    return [s.id for s in report.stale if s.renames and rewrite_scope(ws, s.id, s.renames)]


def archive(ws: Workspace, report: StaleReport) -> list[str]:
    """Archive stale learnings: `status: archived`, kept on disk for history, with why
    (`archived_reason`), through the same door as `orbit learning archive`."""
    from orbit_learnings.store.changes import archive_learning

    return [archive_learning(ws, s.id, f"stale: {s.describe()}").id for s in report.stale]
