"""The anchors' rows: each anchor as recorded, and the last verdict on it with the stat
signature of the file it was reached from, so a verdict is recomputed only when that
file changed (a hot read then costs one `stat` per anchored hit)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class AnchorRow:
    """One anchor row: the recorded anchor (as stored in learning.yaml) and its verdict."""

    __slots__ = (
        "file_signature",
        "learning_id",
        "now_lines",
        "now_path",
        "position",
        "recorded",
        "similarity",
        "state",
    )

    def __init__(self, row: sqlite3.Row) -> None:
        self.learning_id: str = row["learning_id"]
        self.position: int = row["position"]
        self.recorded: dict[str, Any] = json.loads(row["anchor"])
        self.file_signature: str | None = row["file_signature"]
        self.state: str | None = row["state"]
        self.now_path: str | None = row["now_path"]
        self.now_lines: str | None = row["now_lines"]
        self.similarity: float | None = row["similarity"]


# (stat signature, state, now path, now lines, similarity, learning id, position)
Verdict = tuple[str, str, str | None, str, float, str, int]
_COLUMNS = "learning_id, position, anchor, file_signature, state, now_path, now_lines, similarity"


def anchor_rows(conn: sqlite3.Connection, ids: Sequence[str] | None = None) -> list[AnchorRow]:
    """The anchors of `ids` (every anchor when None), in ID then citation order."""
    if ids is None:
        sql = f"SELECT {_COLUMNS} FROM code_anchors ORDER BY learning_id, position"
        return [AnchorRow(r) for r in conn.execute(sql)]
    found: list[AnchorRow] = []
    for start in range(0, len(ids), 500):  # below SQLite's bound-variable limit
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT {_COLUMNS} FROM code_anchors WHERE learning_id IN ({marks})"
        found += [AnchorRow(r) for r in conn.execute(sql, chunk)]
    return sorted(found, key=lambda r: (r.learning_id, r.position))


def save_verdicts(conn: sqlite3.Connection, verdicts: Sequence[Verdict]) -> None:
    """Store verdicts. A verdict is a cache: when another process holds the index, it is
    simply not kept."""
    if not verdicts:
        return
    conn.execute("PRAGMA busy_timeout = 100")  # a hook does not wait long for a cache
    try:
        conn.executemany(
            "UPDATE code_anchors SET file_signature = ?, state = ?, now_path = ?, now_lines = ?,"
            " similarity = ? WHERE learning_id = ? AND position = ?",
            verdicts,
        )
    except sqlite3.OperationalError:  # locked or read-only: recomputed next time
        pass
    finally:
        conn.execute("PRAGMA busy_timeout = 30000")
