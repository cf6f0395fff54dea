"""The embeddings cache: one vector per active learning, keyed by a hash of its text.

Lives in the index (`.orbit/state/`, never in git) and is filled by `orbit learning
embed`; a vector whose text changed since is ignored until embedded again. The
model itself is `retrieval.semantic`'s business; this module only stores bytes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence

from orbit_learnings.index.reads import marks

TABLE = """CREATE TABLE IF NOT EXISTS embeddings (
    learning_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL, vector BLOB NOT NULL)"""


def content_hash(summary: str, body: str, tags: str, model: str) -> str:
    """The text and the model that embedded it: a vector of another model (another
    dimension, another space) is stale, never compared with this one's."""
    text = f"{model}\n{summary}\n{tags}\n{body}"
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def embedding_text(summary: str, body: str, tags: str) -> str:
    return f"{summary}\n{tags}\n{body}"[:2000]


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(TABLE)


def missing(conn: sqlite3.Connection, model: str) -> list[tuple[str, str, str]]:
    """(id, hash, text) of active learnings without a vector for their current text."""
    ensure_table(conn)
    rows = conn.execute(
        "SELECT l.id, l.summary, l.body, l.tags, e.content_hash FROM learnings_index l"
        " LEFT JOIN embeddings e ON e.learning_id = l.id WHERE l.effective_status = 'active'"
    ).fetchall()
    out = []
    for learning_id, summary, body, tags, known in rows:
        digest = content_hash(summary, body, tags, model)
        if digest != known:
            out.append((learning_id, digest, embedding_text(summary, body, tags)))
    return out


def store(conn: sqlite3.Connection, rows: Sequence[tuple[str, str, bytes]]) -> None:
    """Write (id, content hash, vector bytes) rows in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", rows)
    conn.execute("COMMIT")


def has_vectors(conn: sqlite3.Connection) -> bool:
    try:
        return conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def current(
    conn: sqlite3.Connection, statuses: Sequence[str], model: str
) -> list[tuple[str, bytes]]:
    """(id, vector bytes) of learnings whose cached vector matches their text today."""
    rows = conn.execute(
        "SELECT l.id, l.summary, l.body, l.tags, e.content_hash, e.vector FROM learnings_index l"
        " JOIN embeddings e ON e.learning_id = l.id"
        f" WHERE l.effective_status IN ({marks(len(statuses))})",
        list(statuses),
    ).fetchall()
    return [(r[0], r[5]) for r in rows if content_hash(r[1], r[2], r[3], model) == r[4]]
