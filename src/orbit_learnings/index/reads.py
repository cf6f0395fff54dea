"""Every question the upper layers ask the index, as functions: the SQL lives here only.

Each takes an open connection from `build.open_fresh` (so the rows are as fresh as
the files) and returns plain values or `core.results.Hit`s; no caller above this
layer knows a table or column name.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from orbit_learnings.core import matching, ranking
from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import tag_name
from orbit_learnings.index.rows import refresh_votes
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path must not pay for typing imports
    from typing import Any

CHUNK = 500  # ids per IN (...) list, well below SQLite's parameter limit
_COLUMNS = (
    "id, effective_status AS status, paths, tags, summary, priority, updated_at, anchored,"
    " d.count, d.newest, d.decayed, d.half_life"
)
_WITH_DIGESTS = "learnings_index LEFT JOIN vote_digests d ON d.learning_id = learnings_index.id"
_GLOBS_BY_STATUS = (
    "SELECT g.learning_id, g.{column} FROM globs g"
    " JOIN learnings_index l ON l.id = g.learning_id"
    " WHERE l.effective_status IN ({statuses})"
)


def marks(count: int) -> str:
    return ",".join("?" * count)


# --- result lists -------------------------------------------------------------


def _hit(conn: sqlite3.Connection, row: sqlite3.Row, score: ranking.VoteScorer) -> Hit:
    hit = Hit(
        id=row["id"],
        summary=row["summary"],
        tags=json.loads(row["tags"]),
        paths=json.loads(row["paths"]),
        status=row["status"],
        updated_at=row["updated_at"],
        priority=int(row["priority"]),
        vote_count=row["count"] or 0,
        vote_score=_vote_score(
            conn, row["id"], (row["count"], row["newest"], row["decayed"], row["half_life"]), score
        ),
    )
    hit.anchored = bool(row["anchored"])
    return hit


def _vote_score(
    conn: sqlite3.Connection,
    learning_id: str,
    digested: tuple[int | None, float, float, float],
    score: ranking.VoteScorer,
) -> float:
    """A learning's decayed vote score from its digest (count, newest, decayed, half-life),
    or from its stamps when the digest cannot say exactly."""
    count, newest, decayed, life = digested
    if not count:
        return 0.0
    exact = score.digested(count, newest, decayed, life)
    if exact is not None:
        return exact
    rows = conn.execute("SELECT voted_at, weight FROM votes WHERE learning_id = ?", (learning_id,))
    return score.weighted([(r[0], r[1]) for r in rows])


def hits(
    conn: sqlite3.Connection,
    ids: Sequence[str] | None,
    statuses: Sequence[str],
    ws: Workspace | None = None,
    score: ranking.VoteScorer | None = None,
) -> list[Hit]:
    """Rows for these ids (all when None) as hits, their votes first brought up to date
    (when given the workspace), scored by `score` (the query's moment) or now."""
    if ids is None:
        sql = f"SELECT id FROM learnings_index WHERE effective_status IN ({marks(len(statuses))})"
        ids = [r[0] for r in conn.execute(sql, list(statuses))]
    if not ids:
        return []
    if ws is not None:
        refresh_votes(conn, ws, list(ids))
    found: list[Hit] = []
    score = score or ranking.VoteScorer()
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        sql = (
            f"SELECT {_COLUMNS} FROM {_WITH_DIGESTS}"
            f" WHERE effective_status IN ({marks(len(statuses))})"
            f" AND id IN ({marks(len(chunk))})"
        )
        found += [_hit(conn, r, score) for r in conn.execute(sql, [*statuses, *chunk]).fetchall()]
    return found


def tie_breakers(
    conn: sqlite3.Connection,
    ids: Sequence[str],
    statuses: Sequence[str],
    score: ranking.VoteScorer,
) -> list[tuple[str, str, float]]:
    """(id, updated_at, vote score) of each of these learnings: what ordering them by
    votes and recency needs, without building a hit (and parsing its JSON) for each."""
    found: list[tuple[str, str, float]] = []
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        rows = conn.execute(
            f"SELECT id, updated_at, d.count, d.newest, d.decayed, d.half_life FROM {_WITH_DIGESTS}"
            f" WHERE effective_status IN ({marks(len(statuses))}) AND id IN ({marks(len(chunk))})",
            [*statuses, *chunk],
        ).fetchall()
        found += [(r[0], r[1], _vote_score(conn, r[0], tuple(r)[2:], score)) for r in rows]
    return found


# --- scope matching -----------------------------------------------------------


def path_hits(
    conn: sqlite3.Connection, query: matching.PathQuery, statuses: Sequence[str]
) -> dict[str, list[str]]:
    """ID -> its globs that match a file, or overlap a folder/glob query."""
    found: dict[str, list[str]] = {}
    if query.is_pattern:
        sql = _GLOBS_BY_STATUS.format(column="glob", statuses=marks(len(statuses)))
        for learning_id, glob in conn.execute(sql, list(statuses)):
            if matching.globs_overlap(glob, query.segments):
                found.setdefault(learning_id, []).append(glob)
        return found
    anchors = matching.anchor_candidates(query.text)
    sql = _GLOBS_BY_STATUS.format(column="regex, g.glob", statuses=marks(len(statuses)))
    # The anchor (indexed) and the GLOB prefilter run in SQLite; Python compiles and
    # runs the exact regex only for the few globs that survive both.
    sql += f" AND g.anchor IN ({marks(len(anchors))}) AND ? GLOB g.sql_glob"
    for learning_id, regex, glob in conn.execute(sql, [*statuses, *anchors, query.text]):
        if matching.path_matches(regex, query.text, glob):
            found.setdefault(learning_id, []).append(glob)
    return found


def tag_hits(
    conn: sqlite3.Connection, tags: Sequence[str], statuses: Sequence[str]
) -> list[tuple[str, str]]:
    """(id, tag as asked) pairs; tags compare case-insensitively."""
    folded = {tag_name(t).casefold(): tag_name(t) for t in tags if tag_name(t)}
    if not folded:
        return []
    rows = conn.execute(
        "SELECT t.learning_id, t.folded FROM tags t JOIN learnings_index l ON l.id = t.learning_id"
        f" WHERE t.folded IN ({marks(len(folded))})"
        f" AND l.effective_status IN ({marks(len(statuses))})",
        [*folded, *statuses],
    )
    return [(learning_id, folded[tag]) for learning_id, tag in rows]


def ids_with_tags(conn: sqlite3.Connection, tags: Sequence[str]) -> set[str]:
    """Every learning carrying any of these tags, whatever its status."""
    folded = [tag_name(t).casefold() for t in tags]
    sql = f"SELECT learning_id FROM tags WHERE folded IN ({marks(len(folded))})"
    return {r[0] for r in conn.execute(sql, folded)}


def glob_regexes(
    conn: sqlite3.Connection, statuses: Sequence[str] = ("active",)
) -> dict[str, list[tuple[str, str]]]:
    """Learning id -> (compiled regex, glob) of each of its path globs."""
    sql = _GLOBS_BY_STATUS.format(column="regex, g.glob", statuses=marks(len(statuses)))
    found: dict[str, list[tuple[str, str]]] = {}
    for learning_id, regex, glob in conn.execute(sql, list(statuses)):
        found.setdefault(learning_id, []).append((regex, glob))
    return found


# --- whole records --------------------------------------------------------------


def full_record(conn: sqlite3.Connection, learning_id: str) -> dict[str, Any] | None:
    """The stored record with its effective status, unknown keys and votes; None if absent."""
    row = conn.execute(
        "SELECT record, effective_status, effective_superseded_by FROM learnings_index"
        " WHERE id = ?",
        (learning_id,),
    ).fetchone()
    return None if row is None else _full_record(conn, row)


def full_records(conn: sqlite3.Connection, statuses: Sequence[str]) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT record, effective_status, effective_superseded_by FROM learnings_index"
        f" WHERE effective_status IN ({marks(len(statuses))}) ORDER BY id",
        list(statuses),
    ).fetchall()
    return [_full_record(conn, row) for row in rows]


def all_ids(conn: sqlite3.Connection, statuses: Sequence[str]) -> list[str]:
    sql = (
        f"SELECT id FROM learnings_index WHERE effective_status IN ({marks(len(statuses))})"
        " ORDER BY id"
    )
    return [r[0] for r in conn.execute(sql, list(statuses))]


def usage_dates(
    conn: sqlite3.Connection, statuses: Sequence[str]
) -> list[tuple[str, str, str, str | None]]:
    """(id, summary, created_at, last voted_at or None) of every learning of these statuses."""
    rows = conn.execute(
        "SELECT l.id, l.summary, l.created_at,"
        " (SELECT MAX(v.voted_at) FROM votes v WHERE v.learning_id = l.id)"
        f" FROM learnings_index l WHERE l.effective_status IN ({marks(len(statuses))})"
        " ORDER BY l.id",
        list(statuses),
    ).fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def _full_record(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(row["record"])
    votes = conn.execute(
        "SELECT voter_model, task_id, voted_at, weight FROM votes WHERE learning_id = ?"
        " ORDER BY voted_at",
        (record["id"],),
    ).fetchall()
    extra = record.pop("extra", {}) or {}
    record["status"] = row["effective_status"]
    record["superseded_by"] = row["effective_superseded_by"]
    record.update({k: v for k, v in extra.items() if k not in record})
    record["vote_count"] = sum(v["weight"] for v in votes)
    record["last_voted_at"] = max((v["voted_at"] for v in votes), default=None)
    record["votes"] = [_vote_row(v) for v in votes]
    return record


def _vote_row(row: sqlite3.Row) -> dict[str, Any]:
    """One vote as `show --json` prints it; a folded day also says how many it counts."""
    vote = {k: row[k] for k in ("voter_model", "task_id", "voted_at")}
    return vote if row["weight"] == 1 else {**vote, "count": row["weight"]}


# --- store-wide figures -----------------------------------------------------------


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM learnings_index").fetchone()[0])


def counts_by_status(conn: sqlite3.Connection) -> dict[str, int]:
    rows = conn.execute(
        "SELECT effective_status, COUNT(*) FROM learnings_index GROUP BY effective_status"
    ).fetchall()
    return {str(status): int(n) for status, n in rows}


def vote_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(SUM(weight), 0) FROM votes").fetchone()[0])


def meta_values(conn: sqlite3.Connection, *keys: str) -> dict[str, str]:
    sql = f"SELECT key, value FROM meta WHERE key IN ({marks(len(keys))})"
    return {str(k): str(v) for k, v in conn.execute(sql, keys)}


def active_tags(conn: sqlite3.Connection) -> list[str]:
    """Distinct tags of active learnings, in case-folded order."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT t.tag FROM tags t JOIN learnings_index l ON l.id = t.learning_id"
            " WHERE l.effective_status = 'active' ORDER BY t.folded"
        )
    ]


def evidence_of_active(conn: sqlite3.Connection) -> list[tuple[str, str, list[dict[str, str]]]]:
    """(id, summary, evidence) of every active learning, by id."""
    rows = conn.execute(
        "SELECT id, summary, record FROM learnings_index WHERE effective_status = 'active'"
        " ORDER BY id"
    ).fetchall()
    return [(r["id"], r["summary"], json.loads(r["record"])["evidence"]) for r in rows]


def repo_scoped(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each learning that names repositories (`scope.repos`), with its globs; the partial
    index `learnings_repos` reads only those rows."""
    rows = conn.execute("SELECT id, repos FROM learnings_index WHERE repos IS NOT NULL")
    return {r[0]: json.loads(r[1]) for r in rows}


def superseded_elsewhere(conn: sqlite3.Connection, own_prefix: str) -> dict[str, str]:
    """{other store's ID: this store's learning replacing it}: the `supersedes` links of
    active learnings that point out of this store (`O-0012`, or an org's own `ACME-0012`,
    replaced by `L-0042` here). The caller looks them up in the store it reads next."""
    rows = conn.execute(
        "SELECT supersedes, id FROM learnings_index"
        " WHERE supersedes IS NOT NULL AND supersedes NOT LIKE ? AND effective_status = 'active'"
        " ORDER BY id",
        (own_prefix + "-%",),
    )
    return {r[0]: r[1] for r in rows}
