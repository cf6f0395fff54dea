"""Layer 2: learnings attached to tool results that mention files (MCP's, or any server's).

(Not the bundle's sidecar files: those are `votes.jsonl` and its kind, in `store/`.)

`attach_learnings(ws, result, arguments)` finds the repo-relative file paths a
tool call mentions (in its arguments and its result), looks them up with the
same caps and session dedup as `orbit learning inject`, and returns the result
with a `learnings: [{id, summary}]` field. Any MCP server — this one or an
engine's — can call it in-process; a server in another language can run
`orbit learning inject --path P --session S --format json` instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.matching import is_glob
from orbit_learnings.core.scope import EMPTY, FILE, RepoPath
from orbit_learnings.push import inject
from orbit_learnings.store.workspace import Workspace, literal_path

_PATH_TOKEN = re.compile(r"[\w.@+\-/\\]+")
_HAS_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,12}$")
MAX_CANDIDATES = 50


def mentioned_paths(ws: Workspace, *values: object) -> list[RepoPath]:
    """Files named anywhere in nested JSON-like values, in order seen (each read once)."""
    found: dict[RepoPath, None] = {}
    for text in _strings(values):
        for token in _PATH_TOKEN.findall(text):
            path = _as_repo_path(ws, token)
            if path is not None:
                found.setdefault(path, None)
            if len(found) >= MAX_CANDIDATES:
                return list(found)
    return list(found)


def _strings(values: Iterable[object]) -> Iterable[str]:
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield from _strings(value.values())
        elif isinstance(value, list | tuple):
            yield from _strings(value)


def _as_repo_path(ws: Workspace, token: str) -> RepoPath | None:
    token = token.lstrip("([{'\"`").rstrip(".,;:)]}'\"`")
    if not token or is_glob(token) or token.startswith(("http:", "https:")):
        return None
    looks_like_file = ("/" in token or "\\" in token) and bool(_HAS_EXTENSION.search(token))
    if not looks_like_file and not os.path.isfile(os.path.join(ws.root_str, token)):
        return None
    try:
        path = literal_path(ws, token, ws.root_str)
    except OrbitError:
        return None  # outside the workspace
    return path if path.text and path.kind == FILE and not path.text.endswith("/") else None


def attach_learnings(
    ws: Workspace,
    result: dict[str, object],
    arguments: dict[str, object] | None = None,
    *,
    session_id: str | None = None,
    limit: int | None = None,
    exclude: Iterable[str] = (),
) -> dict[str, object]:
    """Return `result` plus `learnings`, honouring per-call and session caps and dedup."""
    paths = mentioned_paths(ws, arguments or {}, result)
    learnings: list[dict[str, str]] = []
    if paths:
        chosen = inject.select(
            ws,
            EMPTY,
            limit=limit,
            session_id=session_id,
            layer="mcp",
            trigger={"paths": [p.text for p in paths]},
            exclude=set(exclude),
            resolved=paths,  # read from the call already: never parsed again
        )
        learnings = [
            {"id": h.id, "summary": h.summary} | ({"note": h.note} if h.note else {})
            for h in chosen.hits
        ]
    return {**result, "learnings": learnings}
