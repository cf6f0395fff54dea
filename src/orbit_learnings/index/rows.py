"""From a bundle on disk to its rows in the index, and back out again.

Stdlib only at import time: YAML parsing (through `store.bundles.parse_learning`)
is imported lazily, and only when a bundle actually changed.
"""

from __future__ import annotations

import json
import sqlite3

from orbit_learnings.core.errors import OrbitError, Problem, ValidationFailed
from orbit_learnings.core.ranking import digest, half_life_days
from orbit_learnings.index.freshness import Scan, sidecar_signature, sidecar_signatures
from orbit_learnings.store.layout import LEARNING_FILE, VOTES_FILE, bundle_display
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from orbit_learnings.core.model import Learning


class Loaded:
    """One bundle as parsed from disk: its record (None if invalid), votes and problems."""

    __slots__ = ("feedback", "folder", "problems", "record", "text", "votes", "votes_signature")

    def __init__(self, folder: str, record: Any, votes: list[Any], problems: list[Problem]) -> None:
        self.folder = folder
        self.record = record
        self.votes = votes
        self.problems = problems
        self.votes_signature = ("-", "-")  # (current, storable)
        self.text = ""  # the learning.yaml as read, for problems' line numbers
        self.feedback: Any = None  # (signature, counts) of its feedback.jsonl: `index.feedback`


def load_folder(ws: Workspace, folder: str) -> Loaded:
    from orbit_learnings.core import ids as model
    from orbit_learnings.store import bundles as store
    from orbit_learnings.store.fileops import read_regular_text
    from orbit_learnings.store.votes import read_learning_votes

    bundle = ws.learnings_dir / folder
    display = ws.relative(bundle / LEARNING_FILE)
    if not model.is_learning_id(folder):
        problem = Problem(
            display, 1, f"folder name {folder!r} is not a learning id", None, "layout"
        )
        return Loaded(folder, None, [], [problem])
    try:
        text = read_regular_text(bundle / LEARNING_FILE)
    except FileNotFoundError:
        return Loaded(
            folder, None, [], [Problem(display, 1, "bundle has no learning.yaml", folder, "layout")]
        )
    except UnicodeDecodeError:
        return Loaded(
            folder, None, [], [Problem(display, 1, "file is not UTF-8 text", folder, "yaml")]
        )
    except OrbitError as exc:  # a link, a device, an oversized file: reported, never read
        return Loaded(folder, None, [], [Problem(display, 1, exc.message, folder, "layout")])
    try:
        record = store.parse_learning(text, folder, display)
    except ValidationFailed as exc:
        return Loaded(folder, None, [], exc.problems)
    votes_sig = votes_signature(ws, folder)  # before reading: a later append is seen next time
    votes, vote_problems = read_learning_votes(ws, folder)
    loaded = Loaded(folder, record, votes, vote_problems)
    loaded.votes_signature = votes_sig
    from orbit_learnings.index import feedback  # not on the hot path: only when a bundle is read

    loaded.feedback = feedback.read(ws, folder)
    loaded.text = text
    return loaded


def votes_signature(ws: Workspace, folder: str) -> tuple[str, str]:
    """(current, storable) signature of a learning's votes.jsonl (both, for an org
    learning a subscriber also voted on)."""
    return sidecar_signature(ws, folder, VOTES_FILE)


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
    current = sidecar_signatures(ws, [i for i in ids if i in stored], VOTES_FILE)
    stale = [i for i, sig in current.items() if stored[i] != sig]
    if not stale:
        return
    from orbit_learnings.store.votes import read_learning_votes

    conn.execute("BEGIN IMMEDIATE")
    try:
        for folder in stale:
            _, storable = votes_signature(ws, folder)  # before reading: later appends show
            votes, problems = read_learning_votes(ws, folder)
            for table in ("votes", "vote_digests"):
                conn.execute(f"DELETE FROM {table} WHERE learning_id = ?", (folder,))
            insert_votes(conn, folder, votes)
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


def delete_folder(conn: sqlite3.Connection, folder: str) -> None:
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
        ("vote_digests", "learning_id"),
        ("files", "folder"),
        ("problems", "folder"),
        ("code_anchors", "learning_id"),
        ("feedback", "learning_id"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (folder,))


def insert(conn: sqlite3.Connection, loaded: Loaded, signature: str) -> None:
    """Every row of one bundle: its file signature, the record and its scope, votes, text."""
    conn.execute(
        "INSERT INTO files VALUES (?, ?, ?)",
        (loaded.folder, signature, loaded.votes_signature[1]),
    )
    problems = list(loaded.problems)
    if loaded.record is not None:
        problems += _insert_record(conn, loaded.record, loaded.votes, loaded.text)
        if loaded.feedback is not None:
            from orbit_learnings.index import feedback

            feedback.insert(conn, loaded.folder, *loaded.feedback)
    conn.executemany(
        "INSERT INTO problems VALUES (?,?,?,?,?,?)",
        [(loaded.folder, p.file, p.line, p.message, p.kind, p.id) for p in problems],
    )


def _insert_record(
    conn: sqlite3.Connection, record: Learning, votes: list[Any], text: str = ""
) -> list[Problem]:
    """The record's rows; a glob that does not compile is skipped and reported, with the
    line it is on."""
    from orbit_learnings.core.globs import InvalidGlob, compile_glob
    from orbit_learnings.store.yamlio import line_containing

    compiled, problems = [], []
    for glob in _scope_globs(record):
        try:
            compiled.append(compile_glob(glob))
        except InvalidGlob as exc:
            line = line_containing(text, glob.strip())
            problems.append(
                Problem(bundle_display(record.id), line, exc.message, record.id, "glob")
            )
    payload = record.to_dict()
    payload["extra"] = _jsonable(dict(record.extra))
    rowid = conn.execute(
        "INSERT INTO learnings_index VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            record.id,
            record.status,
            record.status,
            json.dumps(list(dict.fromkeys([*record.paths, *(a.path for a in record.anchors)]))),
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
            len(record.anchors),
            json.dumps(list(record.repos)) if record.repos else None,
        ),
    ).lastrowid
    conn.executemany(
        "INSERT INTO globs VALUES (?,?,?,?,?)",
        [(record.id, c.glob, c.regex, c.anchor, c.sql_glob) for c in compiled],
    )
    conn.executemany(
        "INSERT INTO tags VALUES (?,?,?)", [(record.id, t, t.casefold()) for t in record.tags]
    )
    insert_votes(conn, record.id, votes)
    conn.executemany(
        "INSERT INTO code_anchors (learning_id, position, path, anchor) VALUES (?,?,?,?)",
        [(record.id, n, a.path, json.dumps(a.to_dict())) for n, a in enumerate(record.anchors)],
    )
    for table in ("learnings_fts", "learnings_trigram"):
        conn.execute(
            f"INSERT INTO {table} (rowid, id, summary, body, tags) VALUES (?,?,?,?,?)",
            (rowid, record.id, record.summary, record.body, " ".join(record.tags)),
        )
    return problems


def insert_votes(conn: sqlite3.Connection, learning_id: str, votes: list[Any]) -> None:
    """One learning's vote rows and their digest (`core.ranking.digest`), which ranking
    reads instead of the rows. A repeated vote counts once, as the table keeps it."""
    rows = [(v.learning_id, v.voter_model, v.task_id, v.voted_at, v.weight) for v in votes]
    conn.executemany("INSERT OR IGNORE INTO votes VALUES (?,?,?,?,?)", rows)
    kept = {(model, task): (at, n) for _, model, task, at, n in reversed(rows)}  # the first
    life = half_life_days()
    stamps, weights = [at for at, _ in kept.values()], [n for _, n in kept.values()]
    count, newest, decayed = digest(stamps, life, weights)
    if count:
        conn.execute(
            "INSERT INTO vote_digests VALUES (?,?,?,?,?)",
            (learning_id, count, newest, decayed, life),
        )


def _scope_globs(record: Learning) -> list[str]:
    """The record's globs, and each anchored file as one more: an anchor's path is scope."""
    if not record.anchors:
        return list(record.paths)
    from orbit_learnings.core.globs import literal_glob

    anchored = [literal_glob(a.path) for a in record.anchors]
    return list(dict.fromkeys([*record.paths, *anchored]))


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def resolve_links(conn: sqlite3.Connection) -> None:
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


def stamp(conn: sqlite3.Connection, snapshot: Scan) -> None:
    """Record what was indexed. The quick number is kept only when no file was racy,
    so a racy state always takes the slow path (and is re-read) next time."""
    from orbit_learnings.core.timestamps import now_iso

    quick = snapshot.quick if snapshot.settled() else ""
    conn.execute("UPDATE meta SET value = ? WHERE key = 'quick'", (quick,))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'last_indexed'", (now_iso(),))
