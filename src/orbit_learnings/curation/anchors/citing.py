"""`--anchor` on `add` and `update`: from what the user typed to a fingerprinted anchor.

The cited file is read from the working tree as it is now, so the anchor records the
code the author is looking at, committed or not.
"""

from __future__ import annotations

from collections.abc import Sequence

from orbit_learnings.core.anchors.locate import record_anchor, record_symbol
from orbit_learnings.core.anchors.record import Anchor, parse_request
from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.store.workspace import Workspace, read_workspace_text, to_repo_relative


def cite(ws: Workspace, specs: Sequence[str], cwd: str | None = None) -> list[Anchor]:
    """One anchor per `--anchor` value; a UsageError names the first that cannot be cited."""
    today = now_iso()[:10]
    anchors: list[Anchor] = []
    for spec in specs:
        anchor = _cite_one(ws, spec, today, cwd)
        if anchor not in anchors:
            anchors.append(anchor)
    return anchors


def _cite_one(ws: Workspace, spec: str, today: str, cwd: str | None) -> Anchor:
    try:
        request = parse_request(spec)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    path = to_repo_relative(ws, request.path, cwd)
    if not path or path.endswith("/") or path.startswith(".orbit/"):
        raise UsageError(f"--anchor {spec!r}: cite a file of the code base, not {path or '.'}")
    text = read_workspace_text(ws, path)
    if text is None:
        raise UsageError(f"--anchor {spec!r}: no file {path} in the workspace")
    try:
        if request.symbol:
            return record_symbol(path, text, request.symbol, recorded=today)
        return record_anchor(path, text, request.start, request.end, recorded=today)
    except ValueError as exc:
        raise UsageError(f"--anchor {spec!r}: {exc}") from None
