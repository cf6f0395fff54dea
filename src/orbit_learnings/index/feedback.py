"""Feedback counts kept in the index, so that ranking reads rows instead of sidecar files.

A bundle's `feedback.jsonl` is summarised (times helpful, times not helpful, and the
helpfulness they give: `store.feedback`) when the index loads the bundle, and again
for the learnings a query ranks whose file changed since: one `stat` each, the way
votes are kept fresh. Learnings without a feedback file have no row (and the
starting helpfulness). Stdlib only at import time: the parser is imported when a
file changed.
"""

from __future__ import annotations

import sqlite3

from orbit_learnings.index.freshness import sidecar_signature, sidecar_signatures
from orbit_learnings.store.layout import FEEDBACK_FILE
from orbit_learnings.store.workspace import Workspace

START = 0.5  # `store.feedback.START`: the helpfulness of a learning nobody has rated
Counts = tuple[float, int, int]  # helpfulness, times helpful, times not helpful
NONE: Counts = (START, 0, 0)


def read(ws: Workspace, folder: str) -> tuple[str, Counts]:
    """(storable signature, counts) of one bundle's feedback file, read now."""
    _, storable = sidecar_signature(ws, folder, FEEDBACK_FILE)
    if storable == "-":
        return "-", NONE
    from orbit_learnings.store.feedback import summarise

    found = summarise(ws, folder)  # read after the stat: a later append is seen next time
    return storable, (found.helpfulness, found.times_helpful, found.times_not_helpful)


def insert(conn: sqlite3.Connection, folder: str, signature: str, counts: Counts) -> None:
    if signature != "-":
        conn.execute("INSERT INTO feedback VALUES (?,?,?,?,?)", (folder, signature, *counts))


def counts_for(conn: sqlite3.Connection, ws: Workspace, ids: list[str]) -> dict[str, Counts]:
    """Counts of each of these learnings as of their files right now: stored rows, and a
    re-read of the few files whose stat differs from the one stored."""
    stored: dict[str, tuple[str, Counts]] = {}
    plain = conn.cursor()
    plain.row_factory = None
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = plain.execute(
            "SELECT learning_id, signature, helpfulness, helpful, not_helpful FROM feedback"
            f" WHERE learning_id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        stored.update((r[0], (r[1], (float(r[2]), int(r[3]), int(r[4])))) for r in rows)
    current = sidecar_signatures(ws, ids, FEEDBACK_FILE)
    found = {i: stored[i][1] if i in stored else NONE for i in ids}
    stale = [i for i in ids if current[i] != stored.get(i, ("-",))[0]]
    if stale:
        found.update(_reread(conn, ws, stale))
    return found


def _reread(conn: sqlite3.Connection, ws: Workspace, folders: list[str]) -> dict[str, Counts]:
    """Read these feedback files again and store what they say. A stored racy signature
    never equals a current one, so a file written too recently to trust is read again."""
    fresh = {folder: read(ws, folder) for folder in folders}
    conn.execute("BEGIN IMMEDIATE")
    try:
        for folder, (signature, counts) in fresh.items():
            conn.execute("DELETE FROM feedback WHERE learning_id = ?", (folder,))
            # Only for a learning the index holds: its bundle's delete removes the row.
            if conn.execute("SELECT 1 FROM files WHERE folder = ?", (folder,)).fetchone():
                insert(conn, folder, signature, counts)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return {folder: counts for folder, (_, counts) in fresh.items()}
