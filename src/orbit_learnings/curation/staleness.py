"""Staleness (spec 7.3): learnings whose paths, commits or tasks no longer exist.

A learning is stale when any of these holds:
- it has path globs and none matches a file in the repository (`git ls-files
  --cached --others --exclude-standard` in a git repository, else the file tree);
- it has commit evidence and none of those commits is on the current branch;
- it has task evidence and every one of those tasks is gone from `.orbit/tasks/`
  (without a task store, task evidence never makes a learning stale).
Only active learnings are candidates.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from orbit_learnings.core.matching import path_matches
from orbit_learnings.core.progress import report
from orbit_learnings.curation import gitutil
from orbit_learnings.index import reads
from orbit_learnings.index.build import open_fresh
from orbit_learnings.store.layout import ORBIT_DIR, TASKS_DIR
from orbit_learnings.store.workspace import Workspace

SKIP_DIRS = {".git", ORBIT_DIR, "node_modules", ".venv", "venv", "__pycache__"}


@dataclass
class Stale:
    id: str
    summary: str
    reasons: list[str]

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "summary": self.summary, "reasons": self.reasons}


@dataclass
class StaleReport:
    stale: list[Stale]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"stale": [s.to_dict() for s in self.stale], "notes": self.notes}

    def reasons_for(self, learning_id: str) -> list[str]:
        return next((s.reasons for s in self.stale if s.id == learning_id), [])


def _walk_files(root: str) -> list[str]:
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        rel = os.path.relpath(folder, root)
        for name in names:
            files.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return files


def find_stale(ws: Workspace, ids: list[str] | None = None) -> StaleReport:
    notes: list[str] = []
    in_git = gitutil.is_repository(ws.root_dir)
    files = gitutil.repository_files(ws.root_dir) if in_git else _walk_files(ws.root_dir)
    if not in_git:
        notes.append(
            "not a git repository (or git is not installed): commit evidence was not checked"
        )
    tasks_dir = os.path.join(ws.root_dir, ORBIT_DIR, TASKS_DIR)
    has_task_store = os.path.isdir(tasks_dir)
    with open_fresh(ws) as fresh:
        rows = reads.evidence_of_active(fresh.conn)
        regexes = reads.glob_regexes(fresh.conn)
    stale: list[Stale] = []
    for number, (learning_id, summary, evidence) in enumerate(rows, 1):
        if number % 25 == 0 or number == len(rows):
            report("checking for stale learnings", number, len(rows))
        if ids is not None and learning_id not in ids:
            continue
        reasons = []
        if regexes.get(learning_id) and not any(
            path_matches(r, f, g) for r, g in regexes[learning_id] for f in files
        ):
            reasons.append("paths-gone")
        commits = [e["ref"] for e in evidence if e["kind"] == "commit"]
        if commits and in_git and not any(_on_branch(ws, c) for c in commits):
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
    return StaleReport(stale, notes)


def _on_branch(ws: Workspace, sha: str) -> bool:
    return gitutil.commit_on_current_branch(ws.root_dir, sha)


def archive(ws: Workspace, report: StaleReport) -> list[str]:
    """Archive stale learnings: `status: archived`, kept on disk for history."""
    from orbit_learnings.store import bundles as store

    return [store.archive_learning(ws, s.id).id for s in report.stale]
