"""How each anchor of a set of learnings fares now, cheaply enough for every hook.

A verdict is cached in the index with the stat signature of the file it was judged on
(the cited file, or the one git saw it renamed to); it is recomputed (read the file, find
the lines) only when that file changed. A file that is gone stays broken here unless a
curation run (`anchors`, `check --stale`) found where git saw it renamed and cached that.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence

from orbit_learnings.core.anchors.locate import BROKEN, DRIFTED, CodeText, Location, locate
from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.results import Hit
from orbit_learnings.index.anchors import AnchorRow, Verdict, anchor_rows, save_verdicts
from orbit_learnings.index.freshness import file_signature
from orbit_learnings.store.workspace import Workspace, read_workspace_text

MISSING = "-"  # the signature of a file that is not there


class AnchorState:
    """One anchor of one learning and where it stands."""

    __slots__ = ("anchor", "learning_id", "location", "position")

    def __init__(self, learning_id: str, position: int, anchor: Anchor, location: Location) -> None:
        self.learning_id = learning_id
        self.position = position  # the anchor's place in the learning's `anchors:` list
        self.anchor = anchor
        self.location = location

    @property
    def state(self) -> str:
        return self.location.state

    def note(self) -> str | None:
        """What a pushed line says about it: `anchor drifted: src/x.py:120-140 changed
        since 2026-10-02`, or None when the cited code is as recorded."""
        if self.state == DRIFTED:
            return f"anchor drifted: {self.anchor.cited} changed since {self.anchor.recorded}"
        if self.state == BROKEN:
            return f"anchor broken: {self.anchor.cited} is gone"
        return None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.learning_id,
            "path": self.anchor.path,
            "lines": self.anchor.lines,
            "symbol": self.anchor.symbol,
            "recorded": self.anchor.recorded,
        } | self.location.to_dict()


def cited_signature(ws: Workspace, path: str) -> tuple[str, str]:
    """(current, storable) stat signature of a cited file, by the index's own rule: a file
    written too recently to trust is stored poisoned, so its verdict is judged again.
    A path the file system cannot even stat (a link loop, a name too long) is missing."""
    try:
        return file_signature(os.path.join(ws.root_str, path))
    except OSError:
        return MISSING, MISSING


def states_for(
    ws: Workspace, conn: sqlite3.Connection, ids: Sequence[str] | None = None
) -> list[AnchorState]:
    """Every anchor of `ids` (of the whole store when None), recomputing stale verdicts.

    A verdict holds while the file it was judged on is unchanged: the cited file, or the
    one git saw it renamed to (then the cited path must still be gone). A renamed file
    that changed is judged again where it is; one that is gone too leaves the anchor broken."""
    states: list[AnchorState] = []
    verdicts: list[Verdict] = []
    files: dict[str, CodeText | None] = {}  # each changed file read and parsed once
    signatures: dict[str, tuple[str, str]] = {}

    def signature(path: str) -> tuple[str, str]:  # many anchors cite one file: one stat
        if path not in signatures:
            signatures[path] = cited_signature(ws, path)
        return signatures[path]

    for row in anchor_rows(conn, ids):
        anchor = Anchor.stored(row.recorded)
        judged = _judged_path(row, anchor.path, signature)
        cached = _cached(row) if row.file_signature == signature(judged)[0] else None
        location = cached or locate(anchor, _code(ws, judged, files))
        state = AnchorState(row.learning_id, row.position, anchor, location)
        if cached is None:
            verdicts.append(_verdict(signature(location.path)[1], state))
        states.append(state)
    save_verdicts(conn, verdicts)
    return states


def _judged_path(row: AnchorRow, cited: str, signature: Callable[[str], tuple[str, str]]) -> str:
    """The file the cached verdict was reached on: the renamed file when the verdict found
    the lines there and the cited path is still gone, else the cited path."""
    now = row.now_path
    if row.state in (None, BROKEN) or not now or now == cited:
        return cited
    return now if signature(cited)[0] == MISSING else cited


def _code(ws: Workspace, path: str, files: dict[str, CodeText | None]) -> CodeText | None:
    if path not in files:
        text = read_workspace_text(ws, path)
        files[path] = None if text is None else CodeText(path, text)
    return files[path]


def _cached(row: AnchorRow) -> Location | None:
    if row.state is None:
        return None
    start, _, end = (row.now_lines or "0").partition("-")
    return Location(
        row.state,
        row.now_path or "",
        int(start),
        int(end or start),
        row.similarity or 0.0,
    )


def _verdict(signature: str, state: AnchorState) -> Verdict:
    where = state.location
    return (
        signature,
        where.state,
        where.path,
        where.lines,
        where.similarity,
        state.learning_id,
        state.position,
    )


def cache_verdicts(conn: sqlite3.Connection, ws: Workspace, states: Sequence[AnchorState]) -> None:
    """Keep verdicts found with more help than a hook has (git's rename detection), each
    with the signature of the file it was reached on: when that file changes or goes,
    the verdict is judged again."""
    save_verdicts(conn, [_verdict(cited_signature(ws, s.location.path)[1], s) for s in states])


def judge_hits(ws: Workspace, hits: list[Hit], *, include_stale: bool = False) -> list[Hit]:
    """Before a push: a learning whose anchor is broken is held back (unless asked for),
    one whose anchor drifted keeps its place and carries a note saying so."""
    if not any(hit.anchored for hit in hits):
        return hits
    from orbit_learnings.index.schema import open_usable

    conn = open_usable(ws)  # the caller's read just made it fresh: no second freshness scan
    try:
        states = states_for(ws, conn, [h.id for h in hits if h.anchored])
    finally:
        conn.close()
    worst: dict[str, AnchorState] = {}
    for state in states:
        held = worst.get(state.learning_id)
        if state.state in _RANK and (held is None or _RANK[state.state] > _RANK[held.state]):
            worst[state.learning_id] = state
    kept: list[Hit] = []
    for hit in hits:
        judged = worst.get(hit.id)
        if judged is not None and judged.state == BROKEN and not include_stale:
            continue
        hit.note = judged.note() if judged is not None else None
        kept.append(hit)
    return kept


_RANK = {BROKEN: 2, DRIFTED: 1}
