"""Read paths shared by every adapter: list by path/tag, text search, show.

The CLI, the MCP server, the hooks and the dashboard all call these functions,
so a learning looks the same wherever it surfaces. Each call first lets the
index bring itself up to date with the files.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence

from orbit_learnings.core import matching, ranking
from orbit_learnings.core.errors import NotFound, Problem, UsageError
from orbit_learnings.core.ids import STATUS_CHOICES, STATUSES
from orbit_learnings.index.build import open_fresh, refresh_votes
from orbit_learnings.store.workspace import Workspace, to_repo_relative

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path must not pay for typing or pathlib imports
    from typing import Any

_COLUMNS = (
    "id, effective_status AS status, paths, tags, summary, priority, updated_at, "
    "(SELECT GROUP_CONCAT(voted_at) FROM votes v WHERE v.learning_id = learnings_index.id) AS voted"
)


class Hit:
    """One learning in a result list: what every adapter renders."""

    __slots__ = (
        "explain",
        "id",
        "level",
        "matched_by",
        "paths",
        "priority",
        "score",
        "status",
        "summary",
        "tags",
        "updated_at",
        "vote_count",
        "vote_score",
    )

    def __init__(
        self,
        id: str,
        summary: str,
        tags: list[str],
        paths: list[str],
        status: str,
        updated_at: str,
        priority: int,
        vote_count: int,
        vote_score: float,
    ) -> None:
        self.id = id
        self.summary = summary
        self.tags = tags
        self.paths = paths
        self.status = status
        self.updated_at = updated_at
        self.priority = priority
        self.vote_count = vote_count
        self.vote_score = vote_score
        self.matched_by: list[str] = []
        self.score: float | None = None
        self.explain: dict[str, object] | None = None
        self.level = "project"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "summary": self.summary,
            "tags": self.tags,
            "paths": self.paths,
            "matched_by": self.matched_by,
            "updated_at": self.updated_at,
            "status": self.status,
            "vote_count": self.vote_count,
            "level": self.level,
        }
        if self.score is not None:
            data["score"] = round(self.score, 6)
        if self.explain is not None:
            data["explain"] = self.explain
        return data


class Result:
    __slots__ = ("hits", "warnings")

    def __init__(self, hits: list[Hit], warnings: list[Problem]) -> None:
        self.hits = hits
        self.warnings = warnings

    def to_dict(self) -> dict[str, Any]:
        return {"results": [h.to_dict() for h in self.hits]}


def parse_status(value: str | None, include_all: bool = False) -> tuple[str, ...]:
    """Accept `active`, `learning:active`, `all`; return the statuses to include."""
    if include_all:
        return STATUSES
    raw = (value or "active").strip().lower().removeprefix("learning:")
    if raw not in STATUS_CHOICES:
        raise UsageError(f"unknown status {value!r}; choose one of {', '.join(STATUS_CHOICES)}")
    return STATUSES if raw == "all" else (raw,)


def _hit(row: sqlite3.Row, score: ranking.VoteScorer) -> Hit:
    voted = row["voted"].split(",") if row["voted"] else []  # stamps never hold a comma
    return Hit(
        id=row["id"],
        summary=row["summary"],
        tags=json.loads(row["tags"]),
        paths=json.loads(row["paths"]),
        status=row["status"],
        updated_at=row["updated_at"],
        priority=int(row["priority"]),
        vote_count=len(voted),
        vote_score=score(voted),
    )


def _rows(
    conn: sqlite3.Connection,
    ids: Sequence[str] | None,
    statuses: Sequence[str],
    ws: Workspace | None = None,
) -> list[Hit]:
    """Rows for these ids (all when None), their votes first brought up to date."""
    marks = ",".join("?" * len(statuses))
    if ids is None:
        sql = f"SELECT id FROM learnings_index WHERE effective_status IN ({marks})"
        ids = [r[0] for r in conn.execute(sql, list(statuses))]
    if not ids:
        return []
    if ws is not None:
        refresh_votes(conn, ws, list(ids))
    hits: list[Hit] = []
    score = ranking.VoteScorer()
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        sql = (
            f"SELECT {_COLUMNS} FROM learnings_index WHERE effective_status IN ({marks})"
            f" AND id IN ({','.join('?' * len(chunk))})"
        )
        hits += [_hit(r, score) for r in conn.execute(sql, [*statuses, *chunk])]
    return hits


def resolve_queries(
    ws: Workspace, raw_paths: Sequence[str], cwd: str | os.PathLike[str] | None = None
) -> list[matching.PathQuery]:
    """Normalise user paths (relative to cwd, absolute, Windows) into match queries."""
    queries = []
    for raw in raw_paths:
        relative = to_repo_relative(ws, raw, cwd)
        is_dir = (
            bool(relative)
            and not matching.is_glob(relative)
            and os.path.isdir(os.path.join(ws.root_dir, relative))
        )
        queries.append(matching.make_query(relative, is_directory=is_dir))
    return queries


def _marks(count: int) -> str:
    return ",".join("?" * count)


_GLOBS_BY_STATUS = (
    "SELECT g.learning_id, g.{column} FROM globs g"
    " JOIN learnings_index l ON l.id = g.learning_id"
    " WHERE l.effective_status IN ({statuses})"
)


def _path_hits(
    conn: sqlite3.Connection, query: matching.PathQuery, statuses: Sequence[str]
) -> set[str]:
    """IDs whose globs match a file, or overlap a folder/glob query."""
    if query.is_pattern:
        sql = _GLOBS_BY_STATUS.format(column="glob", statuses=_marks(len(statuses)))
        rows = conn.execute(sql, list(statuses))
        return {r[0] for r in rows if matching.globs_overlap(r[1], query.segments)}
    anchors = matching.anchor_candidates(query.text)
    sql = _GLOBS_BY_STATUS.format(column="regex", statuses=_marks(len(statuses)))
    # The anchor (indexed) and the GLOB prefilter run in SQLite; Python compiles and
    # runs the exact regex only for the few globs that survive both.
    sql += f" AND g.anchor IN ({_marks(len(anchors))}) AND ? GLOB g.sql_glob"
    rows = conn.execute(sql, [*statuses, *anchors, query.text])
    return {r[0] for r in rows if matching.path_matches(r[1], query.text)}


def _tag_hits(
    conn: sqlite3.Connection, tags: Sequence[str], statuses: Sequence[str]
) -> list[tuple[str, str]]:
    """(id, tag as asked) pairs; tags compare case-insensitively."""
    folded = {t.strip().casefold(): t.strip() for t in tags if t.strip()}
    if not folded:
        return []
    rows = conn.execute(
        "SELECT t.learning_id, t.folded FROM tags t JOIN learnings_index l ON l.id = t.learning_id"
        f" WHERE t.folded IN ({_marks(len(folded))})"
        f" AND l.effective_status IN ({_marks(len(statuses))})",
        [*folded, *statuses],
    )
    return [(learning_id, folded[tag]) for learning_id, tag in rows]


def match_ids(
    conn: sqlite3.Connection,
    queries: Sequence[matching.PathQuery],
    tags: Sequence[str],
    statuses: Sequence[str],
) -> dict[str, list[str]]:
    """Learning id -> matched_by labels, for a path OR tag match (spec 3.3)."""
    matched: dict[str, list[str]] = {}
    for query in queries:
        for learning_id in sorted(_path_hits(conn, query, statuses)):
            _add_label(matched, learning_id, query.label)
    for learning_id, tag in _tag_hits(conn, tags, statuses):
        _add_label(matched, learning_id, f"tag:{tag}")
    return matched


def _add_label(matched: dict[str, list[str]], learning_id: str, label: str) -> None:
    labels = matched.setdefault(learning_id, [])
    if label not in labels:
        labels.append(label)


def list_learnings(
    ws: Workspace,
    *,
    paths: Sequence[str] = (),
    tags: Sequence[str] = (),
    status: str | None = "active",
    limit: int | None = None,
    cwd: str | os.PathLike[str] | None = None,
    level: str | None = "all",
) -> Result:
    """Learnings whose scope matches any path or tag (all of them when neither is given).

    Reads the project store and, unless `level` says otherwise, the personal store;
    paths are always resolved against the project.
    """
    from orbit_learnings.store import levels

    statuses = parse_status(status)
    queries = resolve_queries(ws, paths, cwd)
    hits: list[Hit] = []
    warnings: list[Problem] = []
    for store_ws in levels.stores(ws, levels.check_level(level)):
        with open_fresh(store_ws) as index:
            found = lookup(index.conn, queries, tags, statuses, None, store_ws)
            warnings += index.warnings
        for hit in found:
            hit.level = store_ws.level
        hits += found
    ranked = ranking.rank(hits) if len(hits) > 1 else hits
    return Result(ranked[:limit] if limit is not None else ranked, warnings)


def lookup(
    conn: sqlite3.Connection,
    queries: Sequence[matching.PathQuery],
    tags: Sequence[str],
    statuses: Sequence[str],
    limit: int | None = None,
    ws: Workspace | None = None,
) -> list[Hit]:
    """The lookup itself, on an already fresh index: match, load rows, rank."""
    if queries or tags:
        matched = match_ids(conn, queries, tags, statuses)
        hits = _rows(conn, list(matched), statuses, ws)
        for hit in hits:
            hit.matched_by = matched[hit.id]
    else:
        hits = _rows(conn, None, statuses, ws)
    ranked = ranking.rank(hits)
    return ranked[:limit] if limit is not None else ranked


def _has_vectors(conn: sqlite3.Connection) -> bool:
    from orbit_learnings.retrieval.semantic import has_vectors

    return has_vectors(conn)


def search_text(
    ws: Workspace,
    text: str,
    *,
    tags: Sequence[str] = (),
    status: str | None = "active",
    include_all: bool = False,
    limit: int | None = 20,
    min_confidence: float | None = None,
    explain: bool = False,
    level: str | None = "all",
) -> Result:
    """Free-text search over summary, body and tags, ranked by the combined score."""
    from orbit_learnings.retrieval import scoring as search
    from orbit_learnings.store import config, feedback, levels

    statuses = parse_status(status, include_all)
    weights = search.weights_from(config.load(ws))
    use_vectors = search.semantic_enabled()
    hits: list[Hit] = []
    matched: dict[str, search.Scored] = {}
    confidences: dict[str, feedback.Confidence] = {}
    warnings: list[Problem] = []
    for store_ws in levels.stores(ws, levels.check_level(level)):
        with open_fresh(store_ws) as index:
            found_scores = search.text_matches(index.conn, text, statuses, tags)
            if use_vectors and _has_vectors(index.conn):
                found_scores = search.hybrid(index.conn, text, statuses, tags, found_scores)
            found = _rows(index.conn, list(found_scores), statuses, store_ws)
            warnings += index.warnings
        for hit in found:
            hit.level = store_ws.level
        matched.update(found_scores)
        confidences.update(feedback.confidence_for(store_ws, [h.id for h in found]))
        hits += found
    if min_confidence is not None:
        hits = [h for h in hits if confidences[h.id].confidence >= min_confidence]
    for hit in hits:
        scored = matched[hit.id]
        parts = search.combine(
            scored.relevance,
            hit.vote_score,
            hit.updated_at,
            confidences[hit.id].confidence,
            weights,
        )
        hit.score = parts["total"]
        hit.matched_by = [f"text:{scored.tier}"]
        if explain:
            hit.explain = {"tier": scored.tier, "bm25": scored.bm25, **parts}
    hits.sort(key=lambda h: h.id)
    hits.sort(key=lambda h: h.level != "project")
    hits.sort(key=lambda h: h.score or 0.0, reverse=True)
    return Result(hits[:limit] if limit is not None else hits, warnings)


class Detail:
    __slots__ = ("record", "warnings")

    def __init__(self, record: dict[str, Any], warnings: list[Problem]) -> None:
        self.record = record
        self.warnings = warnings


def show_learning(ws: Workspace, learning_id: str) -> Detail:
    """The full record plus derived vote fields, as of the files right now."""
    from orbit_learnings.store.levels import for_id

    ws = for_id(ws, learning_id)
    with open_fresh(ws) as index:
        row = index.conn.execute(
            "SELECT record, effective_status, effective_superseded_by FROM learnings_index"
            " WHERE id = ?",
            (learning_id,),
        ).fetchone()
        if row is None:
            broken = [w for w in index.warnings if w.id == learning_id]
            if broken:
                raise NotFound(f"{learning_id} cannot be read: {broken[0]}")
            raise NotFound(
                f"no learning {learning_id}; `orbit learning list --status all` lists them"
            )
        refresh_votes(index.conn, ws, [learning_id])
        record = _full_record(index.conn, ws, row)
        warnings = [w for w in index.warnings if w.id == learning_id]
    return Detail(record, warnings)


def full_records(ws: Workspace, status: str | None = "active") -> list[dict[str, Any]]:
    """Every record of these statuses, as `show` reports them, in one pass over the index."""
    statuses = parse_status(status)
    marks = ",".join("?" * len(statuses))
    with open_fresh(ws) as index:
        rows = index.conn.execute(
            "SELECT id, record, effective_status, effective_superseded_by FROM learnings_index"
            f" WHERE effective_status IN ({marks}) ORDER BY id",
            list(statuses),
        ).fetchall()
        refresh_votes(index.conn, ws, [r["id"] for r in rows])
        return [_full_record(index.conn, ws, row) for row in rows]


def _full_record(conn: sqlite3.Connection, ws: Workspace, row: sqlite3.Row) -> dict[str, Any]:
    """The stored record with effective status, unknown keys, votes and confidence."""
    from orbit_learnings.store.feedback import summarise

    record = json.loads(row["record"])
    votes = conn.execute(
        "SELECT voter_model, task_id, voted_at FROM votes WHERE learning_id = ? ORDER BY voted_at",
        (record["id"],),
    ).fetchall()
    extra = record.pop("extra", {}) or {}
    record["status"] = row["effective_status"]
    record["superseded_by"] = row["effective_superseded_by"]
    record.update({k: v for k, v in extra.items() if k not in record})
    record["vote_count"] = len(votes)
    record["last_voted_at"] = max((v["voted_at"] for v in votes), default=None)
    record["votes"] = [dict(v) for v in votes]
    record.update(summarise(ws, record["id"]).to_dict())
    record["level"] = ws.level
    return record
