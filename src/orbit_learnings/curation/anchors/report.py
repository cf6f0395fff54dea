"""Every anchor's state across the store, with the help a hook cannot afford: when a
cited file is gone, git's rename detection is asked (once for all such files) where it
went, and the verdict found there is cached in the index for the hooks to use, with the
signature of the file it was reached on: a renamed file that is deleted later is broken
again, in a warm run as in a cold one.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from orbit_learnings.core.anchors.locate import BROKEN, CodeText, locate
from orbit_learnings.curation import gitutil
from orbit_learnings.curation.renames import MAX_HOPS, Moves
from orbit_learnings.index.build import open_fresh
from orbit_learnings.retrieval.anchors import (
    MISSING,
    AnchorState,
    cache_verdicts,
    cited_signature,
    states_for,
)
from orbit_learnings.store.bundles import missing
from orbit_learnings.store.workspace import Workspace, read_workspace_text


def anchor_report(ws: Workspace, ids: Sequence[str] | None = None) -> list[AnchorState]:
    """The anchors of active learnings (or of `ids`), in ID and citation order. Git is
    asked (once for all) only about cited files that are gone with no verdict found
    elsewhere yet; each file it names is read and parsed once for all its anchors."""
    with open_fresh(ws) as index:
        active = _active_ids(ws, index.conn, ids)
        states = states_for(ws, index.conn, active)
        gone = [s for s in states if s.state == BROKEN and _missing(ws, s.anchor.path)]
        renamed = renamed_paths(ws.root_str, sorted({s.anchor.path for s in gone})) if gone else {}
        files: dict[str, CodeText | None] = {}
        followed: list[AnchorState] = []
        for state in gone:
            new_path = renamed.get(state.anchor.path)
            if new_path is not None:
                if new_path not in files:
                    text = read_workspace_text(ws, new_path)
                    files[new_path] = None if text is None else CodeText(new_path, text)
                state.location = locate(state.anchor, files[new_path], path=new_path)
                followed.append(state)
        cache_verdicts(index.conn, ws, followed)
    return states


def _missing(ws: Workspace, path: str) -> bool:
    return cited_signature(ws, path)[0] == MISSING


def _active_ids(ws: Workspace, conn: sqlite3.Connection, ids: Sequence[str] | None) -> list[str]:
    """Every active learning, or exactly the ones asked for (whatever their status)."""
    from orbit_learnings.core.ids import STATUSES
    from orbit_learnings.index.reads import all_ids

    if ids is None:
        return all_ids(conn, ("active",))
    known = set(all_ids(conn, STATUSES))
    for learning_id in ids:
        if learning_id not in known:
            raise missing(ws, learning_id)
    return list(dict.fromkeys(ids))


def renamed_paths(root: str, paths: Sequence[str]) -> dict[str, str]:
    """Each gone path that git saw renamed -> where it is now (following up to
    MAX_HOPS moves, as `prune` follows scopes)."""
    if not paths or not gitutil.is_repository(root):
        return {}
    found: dict[str, str] = {}
    pending = {path: path for path in paths}
    for _ in range(MAX_HOPS):
        if not pending:
            break
        moves = Moves(gitutil.renames_touching(root, sorted(set(pending.values()))))
        still: dict[str, str] = {}
        for original, current in pending.items():
            step = moves.step(current, literal=True)
            if step is None:
                continue
            new = step[0]
            if os.path.isfile(os.path.join(root, new)):
                found[original] = new
            else:
                still[original] = new
        pending = still
    return found
