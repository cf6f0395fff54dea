"""`orbit doctor`: check the set-up end to end, in words a newcomer understands.

The store and the index first, then every registered integration's own checks:
nothing here names an agent.
"""

from __future__ import annotations

import os

from orbit_learnings import integrations
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.index import build as index
from orbit_learnings.index import reads
from orbit_learnings.integrations.base import Check
from orbit_learnings.retrieval import queries
from orbit_learnings.store.workspace import Workspace, find_workspace

SKIP_FOLDERS = ("node_modules", "venv")


def run_checks(root: str | None, sample_path: str | None = None) -> list[Check]:
    try:
        ws = find_workspace(root)
    except OrbitError as exc:
        return [Check("workspace", "fail", exc.message)]
    checks = [Check("workspace", "ok", f"found {ws.root_str}/.orbit")]
    checks.append(_store_check(ws))
    checks.append(_index_check(ws))
    for integration in integrations.every():
        checks += integration.doctor(ws, sample_path=sample_path)
    return checks


def _store_check(ws: Workspace) -> Check:
    try:
        problems = index.validate(ws)
    except OrbitError as exc:
        return Check("store", "fail", exc.message)
    if problems:
        detail = "\n".join(str(p) for p in problems[:10])
        return Check(
            "store", "fail", f"{len(problems)} problem(s); `orbit learning sync` lists them", detail
        )
    return Check("store", "ok", "every learning and votes file is valid")


def _index_check(ws: Workspace) -> Check:
    try:
        result = queries.list_learnings(ws, status="all")
    except OrbitError as exc:
        return Check("index", "fail", exc.message)
    active = sum(1 for h in result.hits if h.status == "active")
    return Check("index", "ok", f"fresh: {len(result.hits)} learning(s), {active} active")


def sample_path(ws: Workspace) -> str | None:
    """A real file in the repository that some active learning's glob matches, for dry runs."""
    from orbit_learnings.core.matching import path_matches

    with index.open_fresh(ws) as fresh:
        regexes = [r for found in reads.glob_regexes(fresh.conn).values() for r in found]
    for folder, dirs, files in os.walk(ws.root_str):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_FOLDERS)
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(folder, name), ws.root_str).replace(os.sep, "/")
            if any(path_matches(r, relative, g) for r, g in regexes):
                return relative
    return None
