"""The index's schema and connection: every table and column name the SQL uses.

The index is disposable: a missing, corrupt or older-version file is replaced by an
empty current one and refilled from the files. Bump `INDEX_SCHEMA_VERSION` with any
change below and every existing index rebuilds itself on its next read.
"""

from __future__ import annotations

import os
import sqlite3

from orbit_learnings.store.workspace import Workspace

INDEX_SCHEMA_VERSION = "15"

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE learnings_index (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    effective_status TEXT NOT NULL,
    paths TEXT NOT NULL,
    tags TEXT NOT NULL,
    summary TEXT NOT NULL,
    body TEXT NOT NULL,
    priority INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    supersedes TEXT,
    superseded_by TEXT,
    effective_superseded_by TEXT,
    record TEXT NOT NULL,
    anchored INTEGER NOT NULL,
    repos TEXT
);
CREATE INDEX learnings_repos ON learnings_index(id) WHERE repos IS NOT NULL;
CREATE INDEX learnings_active ON learnings_index(effective_status)
    WHERE effective_status = 'active';
CREATE INDEX learnings_supersedes ON learnings_index(supersedes) WHERE supersedes IS NOT NULL;
CREATE INDEX learnings_linked ON learnings_index(id)
    WHERE effective_status IS NOT status OR effective_superseded_by IS NOT superseded_by;
CREATE TABLE globs (learning_id TEXT NOT NULL, glob TEXT NOT NULL, regex TEXT NOT NULL,
                    anchor TEXT NOT NULL, sql_glob TEXT NOT NULL);
CREATE INDEX globs_anchor ON globs(anchor);
CREATE INDEX globs_learning ON globs(learning_id);
CREATE TABLE tags (learning_id TEXT NOT NULL, tag TEXT NOT NULL, folded TEXT NOT NULL);
CREATE INDEX tags_folded ON tags(folded);
CREATE INDEX tags_learning ON tags(learning_id);
CREATE TABLE votes (learning_id TEXT NOT NULL, voter_model TEXT NOT NULL,
                    task_id TEXT NOT NULL, voted_at TEXT NOT NULL,
                    weight INTEGER NOT NULL DEFAULT 1,
                    PRIMARY KEY (learning_id, voter_model, task_id));
CREATE TABLE vote_digests (learning_id TEXT PRIMARY KEY, count INTEGER NOT NULL,
                           newest REAL NOT NULL, decayed REAL NOT NULL, half_life REAL NOT NULL);
CREATE TABLE files (folder TEXT PRIMARY KEY, signature TEXT NOT NULL,
                    votes_signature TEXT NOT NULL DEFAULT '-');
CREATE TABLE problems (folder TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,
                       message TEXT NOT NULL, kind TEXT NOT NULL, learning_id TEXT);
CREATE INDEX problems_folder ON problems(folder);
CREATE TABLE code_anchors (learning_id TEXT NOT NULL, position INTEGER NOT NULL,
                           path TEXT NOT NULL, anchor TEXT NOT NULL,
                           file_signature TEXT, state TEXT, now_path TEXT,
                           now_lines TEXT, similarity REAL,
                           PRIMARY KEY (learning_id, position));
CREATE VIRTUAL TABLE learnings_fts USING fts5(
    id UNINDEXED, summary, body, tags, tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE learnings_trigram USING fts5(
    id UNINDEXED, summary, body, tags, tokenize = 'trigram'
);
CREATE TABLE feedback (learning_id TEXT PRIMARY KEY, signature TEXT NOT NULL,
                       helpfulness REAL NOT NULL, helpful INTEGER NOT NULL,
                       not_helpful INTEGER NOT NULL);
"""


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(os.fspath(path), timeout=30.0, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


TABLES = (
    "learnings_index",
    "globs",
    "tags",
    "votes",
    "vote_digests",
    "files",
    "problems",
    "code_anchors",
    "learnings_fts",
    "learnings_trigram",
    "feedback",
)


def create_schema(conn: sqlite3.Connection) -> None:
    """Create every table in one transaction; schema_version is written last, so a
    concurrent reader never mistakes a half-made index for a usable one."""
    conn.executescript(
        "BEGIN IMMEDIATE;\n"
        + SCHEMA
        + "INSERT INTO meta VALUES ('quick', '');\n"
        + "INSERT INTO meta VALUES ('last_indexed', '');\n"
        + f"INSERT INTO meta VALUES ('schema_version', '{INDEX_SCHEMA_VERSION}');\n"
        + "COMMIT;"
    )


def meta(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else str(row[0])


def open_usable(ws: Workspace) -> sqlite3.Connection:
    """Open the index, recreating it when missing, corrupt or of another schema version.

    The live database file is never swapped under other processes' connections
    (SQLite cannot survive that); rebuilds happen inside it, in transactions.
    """
    try:
        reclaim_state(ws)
        os.makedirs(ws.state_dir_str, exist_ok=True)
        conn = connect(ws.index_file_str)
        conn.execute("PRAGMA user_version").fetchone()  # fails at once when read-only
    except (OSError, sqlite3.OperationalError):
        ws.relocate_state()  # reads answer from the files through an index kept elsewhere
        conn = connect(ws.index_file_str)
    if meta(conn, "schema_version") != INDEX_SCHEMA_VERSION:
        conn.close()
        conn = recreate(ws)
    # The index is disposable: in WAL mode NORMAL keeps it consistent and skips the
    # fsync on every commit; a power cut can only lose a refresh that reruns anyway.
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def reclaim_state(ws: Workspace) -> None:
    """`.orbit/state/` is derived and ours: a link there (committed by anyone) is removed,
    never followed, and the state is recreated beside the files. Two lstats on a read."""
    for path in (ws.state_dir_str, ws.index_file_str):
        if os.path.islink(path):
            os.unlink(path)


def discard(ws: Workspace) -> sqlite3.Connection:
    """Throw a damaged index away and start an empty one ("database disk image is
    malformed" on a page the schema check never read): the files can always refill it."""
    from orbit_learnings.store.fileops import posix_lock, remove_if_present

    with posix_lock(os.path.join(ws.state_dir_str, "index.lock")):
        for suffix in ("", "-journal", "-wal", "-shm"):
            remove_if_present(ws.index_file_str + suffix)
        conn = connect(ws.index_file_str)
        conn.execute("PRAGMA journal_mode = WAL")
        create_schema(conn)
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def recreate(ws: Workspace) -> sqlite3.Connection:
    """Replace a missing, corrupt or outdated index file with an empty current one."""
    from orbit_learnings.store.fileops import posix_lock, remove_if_present

    with posix_lock(os.path.join(ws.state_dir_str, "index.lock")):
        conn = connect(ws.index_file_str)  # reopen: another process may have just made it
        if meta(conn, "schema_version") == INDEX_SCHEMA_VERSION:
            return conn
        conn.close()
        for suffix in ("", "-journal", "-wal", "-shm"):
            remove_if_present(ws.index_file_str + suffix)
        conn = connect(ws.index_file_str)
        conn.execute("PRAGMA journal_mode = WAL")
        create_schema(conn)
    return conn
