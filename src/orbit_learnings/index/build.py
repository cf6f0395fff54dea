"""Keeping the index true to the files: incremental refresh, full rebuild, strict sync.

Each read stats the bundle files, compares one number folded from those stats with
the one stored at the last refresh, and only when it differs compares per-bundle
signatures and re-parses the bundles that changed. The index never writes back to
the YAML files, and deleting it is always safe.
"""

from __future__ import annotations

import sqlite3
import time

from orbit_learnings.core.errors import LegacyLayoutError, Problem, ValidationFailed
from orbit_learnings.index import reads
from orbit_learnings.index.freshness import Scan, scan
from orbit_learnings.index.rows import delete_folder, insert, load_folder, resolve_links, stamp
from orbit_learnings.index.schema import TABLES, create_schema, discard, meta, open_usable
from orbit_learnings.store.layout import LEARNINGS_PREFIX
from orbit_learnings.store.workspace import Workspace

PROGRESS_EVERY = 50  # bundles between progress reports
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")


def _populate(conn: sqlite3.Connection, ws: Workspace, snapshot: Scan) -> list[Problem]:
    """Replace the whole content from the files; the caller owns the transaction."""
    from orbit_learnings.core.progress import report  # rebuilds only: reads skip both
    from orbit_learnings.index.parallel import load_all

    for table in TABLES:
        conn.execute(f"DELETE FROM {table}")
    problems: list[Problem] = []
    folders = sorted(snapshot.signatures)
    for number, loaded in enumerate(load_all(ws, folders), 1):
        folder = loaded.folder
        problems.extend(loaded.problems)
        insert(conn, loaded, snapshot.storable(folder))
        if number % PROGRESS_EVERY == 0 or number == len(folders):
            report("indexing learnings", number, len(folders))
    problems.extend(_stored_problems(conn, exclude=problems))
    resolve_links(conn)
    stamp(conn, snapshot)
    return problems


def _rebuild(conn: sqlite3.Connection, ws: Workspace, *, strict: bool, keep: bool) -> list[Problem]:
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
            f"{LEARNINGS_PREFIX}/{snapshot.legacy[0]}", len(snapshot.legacy)
        )


def _refresh(conn: sqlite3.Connection, ws: Workspace, snapshot: Scan) -> None:
    """Re-parse only the bundles whose signature differs from the stored one.

    A stored racy signature never equals a current one, so a bundle written too
    recently to trust is re-read once more after it settles. When another process
    refreshed while this one waited for the lock, nothing differs and only the
    quick number is stamped.
    """
    from orbit_learnings.core.progress import report

    conn.execute("BEGIN IMMEDIATE")
    try:
        plain = conn.cursor()
        plain.row_factory = None  # plain tuples: this reads one row per learning
        stored = dict(plain.execute("SELECT folder, signature FROM files"))
        current = snapshot.signatures
        gone = stored.keys() - current.keys()
        changed = [folder for folder, sig in current.items() if stored.get(folder) != sig]
        for folder in gone:
            delete_folder(conn, folder)
        for number, folder in enumerate(changed, 1):
            delete_folder(conn, folder)
            insert(conn, load_folder(ws, folder), snapshot.storable(folder))
            if number % PROGRESS_EVERY == 0 or number == len(changed):
                report("indexing learnings", number, len(changed))
        for folder in snapshot.racy.difference(changed):  # unchanged, but too young to trust
            conn.execute(
                "UPDATE files SET signature = ? WHERE folder = ?",
                (snapshot.storable(folder), folder),
            )
        if gone or changed:
            resolve_links(conn)
        stamp(conn, snapshot)
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
    conn = open_usable(ws)
    try:
        # Fast path: one number, compared with the one stored at the last refresh.
        if not (snapshot.settled() and snapshot.quick == meta(conn, "quick")):
            _refresh(conn, ws, snapshot)
    except sqlite3.DatabaseError:  # a damaged page: start an empty index and refill it
        conn.close()
        conn = discard(ws)
        _refresh(conn, ws, snapshot)
    except BaseException:
        conn.close()
        raise
    return Index(conn)


def healing(ws: Workspace, read: Callable[[Index], T]) -> T:
    """Run a read on the fresh index; a damaged one is discarded, refilled, and read again."""
    try:
        with open_fresh(ws) as index:
            return read(index)
    except sqlite3.DatabaseError:
        discard(ws).close()
        with open_fresh(ws) as index:
            return read(index)


def validate(ws: Workspace) -> list[Problem]:
    """Every problem `sync` would fail on, without changing the live index."""
    _refuse_legacy(scan(ws))
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        create_schema(conn)
        return _rebuild(conn, ws, strict=False, keep=True)
    finally:
        conn.close()


def sync(ws: Workspace) -> SyncReport:
    """Rebuild from scratch, validating every bundle and sidecar.

    On any problem it fails and the previous index stays exactly as it was. What a
    killed write left behind is cleared first: it is debris, not a problem to report.
    """
    from orbit_learnings.store.allocation import clear_crash_leftovers

    started = time.perf_counter()
    healed = clear_crash_leftovers(ws)
    conn = open_usable(ws)
    try:
        try:
            _rebuild(conn, ws, strict=True, keep=True)
        except sqlite3.DatabaseError:  # a damaged index: start an empty one and refill it
            conn.close()
            conn = discard(ws)
            _rebuild(conn, ws, strict=True, keep=True)
        counts = reads.counts_by_status(conn)
        votes = reads.vote_count(conn)
    finally:
        conn.close()
    return SyncReport(
        learnings=sum(counts.values()),
        by_status={k: int(v) for k, v in counts.items()},
        votes=int(votes),
        seconds=time.perf_counter() - started,
        healed=healed,
    )


class SyncReport:
    __slots__ = ("by_status", "healed", "learnings", "seconds", "votes")

    def __init__(
        self,
        learnings: int,
        by_status: dict[str, int],
        votes: int,
        seconds: float,
        healed: list[str] | None = None,
    ) -> None:
        self.healed = healed or []
        self.learnings = learnings
        self.by_status = by_status
        self.votes = votes
        self.seconds = seconds

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "learnings": self.learnings,
            "by_status": self.by_status,
            "votes": self.votes,
            "seconds": round(self.seconds, 4),
            "removed_leftovers": self.healed,
        }
