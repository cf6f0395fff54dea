"""The disposable SQLite index at `.orbit/state/index.sqlite3`.

It mirrors what the read paths need (scope, tags, summaries, votes, FTS5) and is
kept fresh without anyone running `sync`: each read stats the bundle files,
compares one number folded from those stats, and only when it differs compares
per-bundle signatures and re-parses the bundles that changed. The
index never writes back to the YAML files, and deleting it is always safe.

Stdlib only at import time: YAML parsing is imported lazily, and only when a
bundle actually changed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

from orbit_learnings.core.errors import LegacyLayoutError, Problem, ValidationFailed
from orbit_learnings.index.freshness import Scan, current_signatures, file_signature, scan
from orbit_learnings.store.layout import LEARNING_FILE, VOTES_FILE
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INDEX_SCHEMA_VERSION = "7"

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
    record TEXT NOT NULL
);
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
                    PRIMARY KEY (learning_id, voter_model, task_id));
CREATE TABLE files (folder TEXT PRIMARY KEY, signature TEXT NOT NULL,
                    votes_signature TEXT NOT NULL DEFAULT '-');
CREATE TABLE problems (folder TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,
                       message TEXT NOT NULL, kind TEXT NOT NULL, learning_id TEXT);
CREATE INDEX problems_folder ON problems(folder);
CREATE VIRTUAL TABLE learnings_fts USING fts5(
    id UNINDEXED, summary, body, tags, tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE learnings_trigram USING fts5(
    id UNINDEXED, summary, body, tags, tokenize = 'trigram'
);
"""


# --- connection and schema ---------------------------------------------------


def _connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(os.fspath(path), timeout=30.0, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


TABLES = (
    "learnings_index",
    "globs",
    "tags",
    "votes",
    "files",
    "problems",
    "learnings_fts",
    "learnings_trigram",
)


def _create_schema(conn: sqlite3.Connection) -> None:
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


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else str(row[0])


def _open_usable(ws: Workspace) -> sqlite3.Connection:
    """Open the index, recreating it when missing, corrupt or of another schema version.

    The live database file is never swapped under other processes' connections
    (SQLite cannot survive that); rebuilds happen inside it, in transactions.
    """
    os.makedirs(ws.state_path, exist_ok=True)
    conn = _connect(ws.index_file)
    if _meta(conn, "schema_version") != INDEX_SCHEMA_VERSION:
        conn.close()
        conn = _recreate(ws)
    # The index is disposable: in WAL mode NORMAL keeps it consistent and skips the
    # fsync on every commit; a power cut can only lose a refresh that reruns anyway.
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _recreate(ws: Workspace) -> sqlite3.Connection:
    """Replace a missing, corrupt or outdated index file with an empty current one."""
    from orbit_learnings.store.fileops import posix_lock, remove_if_present

    with posix_lock(os.path.join(ws.state_path, "index.lock")):
        conn = _connect(ws.index_file)  # reopen: another process may have just made it
        if _meta(conn, "schema_version") == INDEX_SCHEMA_VERSION:
            return conn
        conn.close()
        for suffix in ("", "-journal", "-wal", "-shm"):
            remove_if_present(ws.index_file + suffix)
        conn = _connect(ws.index_file)
        conn.execute("PRAGMA journal_mode = WAL")
        _create_schema(conn)
    return conn


# --- loading bundles ---------------------------------------------------------


class Loaded:
    """One bundle as parsed from disk: its record (None if invalid), votes and problems."""

    __slots__ = ("folder", "problems", "record", "votes", "votes_signature")

    def __init__(self, folder: str, record: Any, votes: list[Any], problems: list[Problem]) -> None:
        self.folder = folder
        self.record = record
        self.votes = votes
        self.problems = problems
        self.votes_signature = ("-", "-")  # (current, storable)


def _load_folder(ws: Workspace, folder: str) -> Loaded:
    from orbit_learnings.core import model
    from orbit_learnings.store import bundles as store
    from orbit_learnings.store.votes import read_votes

    bundle = ws.learnings_dir / folder
    display = ws.relative(bundle / LEARNING_FILE)
    if not model.is_learning_id(folder):
        problem = Problem(
            display, 1, f"folder name {folder!r} is not a learning id", None, "layout"
        )
        return Loaded(folder, None, [], [problem])
    try:
        text = (bundle / LEARNING_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return Loaded(
            folder, None, [], [Problem(display, 1, "bundle has no learning.yaml", folder, "layout")]
        )
    except UnicodeDecodeError:
        return Loaded(
            folder, None, [], [Problem(display, 1, "file is not UTF-8 text", folder, "yaml")]
        )
    try:
        record = store.parse_learning(text, folder, display)
    except ValidationFailed as exc:
        return Loaded(folder, None, [], exc.problems)
    votes_sig = votes_signature(ws, folder)  # before reading: a later append is seen next time
    votes, vote_problems = read_votes(bundle, folder, ws.relative(bundle / VOTES_FILE))
    loaded = Loaded(folder, record, votes, vote_problems)
    loaded.votes_signature = votes_sig
    return loaded


def votes_signature(ws: Workspace, folder: str) -> tuple[str, str]:
    """(current, storable) signature of a bundle's votes.jsonl."""
    return file_signature(os.path.join(ws.learnings_path, folder, VOTES_FILE))


def refresh_votes(conn: sqlite3.Connection, ws: Workspace, ids: list[str]) -> None:
    """Bring the vote rows of these learnings up to date (spec: votes are read at query time).

    Only the matched rows pay: one stat per learning, a re-read when it changed.
    A stored racy signature never equals a current one, so such a file is re-read.
    """
    if not ids:
        return
    stored: dict[str, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT folder, votes_signature FROM files WHERE folder IN ({marks})", chunk
        )
        stored.update({r[0]: r[1] for r in rows})
    current = current_signatures(ws.learnings_path, [i for i in ids if i in stored], VOTES_FILE)
    stale = [i for i, sig in current.items() if stored[i] != sig]
    if not stale:
        return
    from orbit_learnings.store.votes import read_votes

    conn.execute("BEGIN IMMEDIATE")
    try:
        for folder in stale:
            bundle = os.path.join(ws.learnings_path, folder)
            display = f".orbit/learnings/{folder}/{VOTES_FILE}"
            _, storable = votes_signature(ws, folder)  # before reading: later appends show
            votes, problems = read_votes(bundle, folder, display)
            conn.execute("DELETE FROM votes WHERE learning_id = ?", (folder,))
            conn.executemany(
                "INSERT OR IGNORE INTO votes VALUES (?,?,?,?)",
                [(v.learning_id, v.voter_model, v.task_id, v.voted_at) for v in votes],
            )
            conn.execute("DELETE FROM problems WHERE folder = ? AND kind = 'votes'", (folder,))
            conn.executemany(
                "INSERT INTO problems VALUES (?,?,?,?,?,?)",
                [(folder, p.file, p.line, p.message, p.kind, p.id) for p in problems],
            )
            conn.execute(
                "UPDATE files SET votes_signature = ? WHERE folder = ?", (storable, folder)
            )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _delete_folder(conn: sqlite3.Connection, folder: str) -> None:
    # The full-text rows share their learning's rowid: FTS5 finds a row by rowid at
    # once, while its UNINDEXED id column would cost a scan of the whole table.
    for table in ("learnings_fts", "learnings_trigram"):
        conn.execute(
            f"DELETE FROM {table} WHERE rowid = (SELECT rowid FROM learnings_index WHERE id = ?)",
            (folder,),
        )
    for table, column in (
        ("learnings_index", "id"),
        ("globs", "learning_id"),
        ("tags", "learning_id"),
        ("votes", "learning_id"),
        ("files", "folder"),
        ("problems", "folder"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (folder,))


def _insert(conn: sqlite3.Connection, loaded: Loaded, signature: str) -> None:
    from orbit_learnings.core.globs import InvalidGlob, compile_glob

    conn.execute(
        "INSERT INTO files VALUES (?, ?, ?)",
        (loaded.folder, signature, loaded.votes_signature[1]),
    )
    problems = list(loaded.problems)
    record = loaded.record
    if record is not None:
        compiled = []
        for glob in record.paths:
            try:
                compiled.append(compile_glob(glob))
            except InvalidGlob as exc:
                problems.append(
                    Problem(
                        f".orbit/learnings/{record.id}/{LEARNING_FILE}",
                        1,
                        exc.message,
                        record.id,
                        "glob",
                    )
                )
        payload = record.to_dict()
        payload["extra"] = _jsonable(dict(record.extra))
        rowid = conn.execute(
            "INSERT INTO learnings_index VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                record.id,
                record.status,
                record.status,
                json.dumps(list(record.paths)),
                json.dumps(list(record.tags)),
                record.summary,
                record.body,
                record.priority,
                record.created_at,
                record.updated_at,
                record.supersedes,
                record.superseded_by,
                record.superseded_by,
                json.dumps(payload),
            ),
        ).lastrowid
        conn.executemany(
            "INSERT INTO globs VALUES (?,?,?,?,?)",
            [(record.id, c.glob, c.regex, c.anchor, c.sql_glob) for c in compiled],
        )
        conn.executemany(
            "INSERT INTO tags VALUES (?,?,?)", [(record.id, t, t.casefold()) for t in record.tags]
        )
        conn.executemany(
            "INSERT INTO votes VALUES (?,?,?,?)",
            [(v.learning_id, v.voter_model, v.task_id, v.voted_at) for v in loaded.votes],
        )
        for table in ("learnings_fts", "learnings_trigram"):
            conn.execute(
                f"INSERT INTO {table} (rowid, id, summary, body, tags) VALUES (?,?,?,?,?)",
                (rowid, record.id, record.summary, record.body, " ".join(record.tags)),
            )
    conn.executemany(
        "INSERT INTO problems VALUES (?,?,?,?,?,?)",
        [(loaded.folder, p.file, p.line, p.message, p.kind, p.id) for p in problems],
    )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _resolve_links(conn: sqlite3.Connection) -> None:
    """A one-sided supersede link still counts: either side saying so is enough."""
    # The WHERE matches the partial index learnings_linked, so only linked rows are read.
    conn.execute(
        "UPDATE learnings_index SET effective_status = status, "
        "effective_superseded_by = superseded_by"
        " WHERE effective_status IS NOT status OR effective_superseded_by IS NOT superseded_by"
    )
    conn.execute(
        """
        UPDATE learnings_index
        SET effective_status = 'superseded',
            effective_superseded_by = COALESCE(
                superseded_by,
                (SELECT n.id FROM learnings_index n WHERE n.supersedes = learnings_index.id
                 ORDER BY n.id LIMIT 1))
        WHERE status = 'active'
          AND id IN (SELECT supersedes FROM learnings_index WHERE supersedes IS NOT NULL)
        """
    )


def _stamp(conn: sqlite3.Connection, snapshot: Scan) -> None:
    """Record what was indexed. The quick number is kept only when no file was racy,
    so a racy state always takes the slow path (and is re-read) next time."""
    from orbit_learnings.core.timestamps import now_iso

    quick = snapshot.quick if snapshot.settled() else ""
    conn.execute("UPDATE meta SET value = ? WHERE key = 'quick'", (quick,))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'last_indexed'", (now_iso(),))


# --- building and refreshing -------------------------------------------------


def _populate(conn: sqlite3.Connection, ws: Workspace, snapshot: Scan) -> list[Problem]:
    """Replace the whole content from the files; the caller owns the transaction."""
    for table in TABLES:
        conn.execute(f"DELETE FROM {table}")
    problems: list[Problem] = []
    for folder in sorted(snapshot.signatures):
        loaded = _load_folder(ws, folder)
        problems.extend(loaded.problems)
        _insert(conn, loaded, snapshot.storable(folder))
    problems.extend(_stored_problems(conn, exclude=problems))
    _resolve_links(conn)
    _stamp(conn, snapshot)
    return problems


def _rebuild(conn: sqlite3.Connection, ws: Workspace, strict: bool, keep: bool) -> list[Problem]:
    """Rebuild in one transaction; roll back (keeping the previous index) when told to or
    when strict and anything is wrong."""
    snapshot = scan(ws)
    _refuse_legacy(snapshot)
    conn.execute("BEGIN IMMEDIATE")
    try:
        problems = _populate(conn, ws, snapshot)
        if strict and problems:
            raise ValidationFailed(problems)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT" if keep else "ROLLBACK")
    return problems


def _stored_problems(conn: sqlite3.Connection, exclude: list[Problem]) -> list[Problem]:
    seen = {(p.file, p.line, p.message) for p in exclude}
    return [p for p in _problems(conn) if (p.file, p.line, p.message) not in seen]


def _problems(conn: sqlite3.Connection) -> list[Problem]:
    rows = conn.execute(
        "SELECT file, line, message, learning_id, kind FROM problems ORDER BY file, line"
    ).fetchall()
    return [Problem(r["file"], r["line"], r["message"], r["learning_id"], r["kind"]) for r in rows]


def _refuse_legacy(snapshot: Scan) -> None:
    if snapshot.legacy:
        raise LegacyLayoutError.for_files(
            f".orbit/learnings/{snapshot.legacy[0]}", len(snapshot.legacy)
        )


def _refresh(conn: sqlite3.Connection, ws: Workspace, snapshot: Scan) -> None:
    """Re-parse only the bundles whose signature differs from the stored one.

    A stored racy signature never equals a current one, so a bundle written too
    recently to trust is re-read once more after it settles. When another process
    refreshed while this one waited for the lock, nothing differs and only the
    quick number is stamped.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        plain = conn.cursor()
        plain.row_factory = None  # plain tuples: this reads one row per learning
        stored = dict(plain.execute("SELECT folder, signature FROM files"))
        current = snapshot.signatures
        gone = stored.keys() - current.keys()
        changed = [folder for folder, sig in current.items() if stored.get(folder) != sig]
        for folder in gone:
            _delete_folder(conn, folder)
        for folder in changed:
            _delete_folder(conn, folder)
            _insert(conn, _load_folder(ws, folder), snapshot.storable(folder))
        for folder in snapshot.racy.difference(changed):  # unchanged, but too young to trust
            conn.execute(
                "UPDATE files SET signature = ? WHERE folder = ?",
                (snapshot.storable(folder), folder),
            )
        if gone or changed:
            _resolve_links(conn)
        _stamp(conn, snapshot)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


class Index:
    """An open, fresh index; `warnings` are the problems readers should mention.

    Use it as a context manager (`with open_fresh(ws) as index:`), which closes it.
    A class rather than @contextlib.contextmanager: every hot command opens the
    index, and importing contextlib costs about a millisecond.
    """

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @property
    def warnings(self) -> list[Problem]:
        return _problems(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.conn.close()


def open_fresh(ws: Workspace) -> Index:
    """Open the index, first bringing it up to date with the files if anything changed."""
    snapshot = scan(ws)
    _refuse_legacy(snapshot)
    conn = _open_usable(ws)
    try:
        # Fast path: one number, compared with the one stored at the last refresh.
        if not (snapshot.settled() and snapshot.quick == _meta(conn, "quick")):
            _refresh(conn, ws, snapshot)
    except BaseException:
        conn.close()
        raise
    return Index(conn)


def validate(ws: Workspace) -> list[Problem]:
    """Every problem `sync` would fail on, without changing the live index."""
    _refuse_legacy(scan(ws))
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        _create_schema(conn)
        return _rebuild(conn, ws, strict=False, keep=True)
    finally:
        conn.close()


def sync(ws: Workspace) -> SyncReport:
    """Rebuild from scratch, validating every bundle and sidecar.

    On any problem it fails and the previous index stays exactly as it was.
    """
    started = time.perf_counter()
    conn = _open_usable(ws)
    try:
        _rebuild(conn, ws, strict=True, keep=True)
        counts = dict(
            conn.execute(
                "SELECT effective_status, COUNT(*) FROM learnings_index GROUP BY effective_status"
            ).fetchall()
        )
        votes = conn.execute("SELECT COUNT(*) FROM votes").fetchone()[0]
    finally:
        conn.close()
    return SyncReport(
        learnings=sum(counts.values()),
        by_status={k: int(v) for k, v in counts.items()},
        votes=int(votes),
        seconds=time.perf_counter() - started,
    )


class SyncReport:
    __slots__ = ("by_status", "learnings", "seconds", "votes")

    def __init__(
        self, learnings: int, by_status: dict[str, int], votes: int, seconds: float
    ) -> None:
        self.learnings = learnings
        self.by_status = by_status
        self.votes = votes
        self.seconds = seconds

    def to_dict(self) -> dict[str, Any]:
        return {
            "learnings": self.learnings,
            "by_status": self.by_status,
            "votes": self.votes,
            "seconds": round(self.seconds, 4),
        }
