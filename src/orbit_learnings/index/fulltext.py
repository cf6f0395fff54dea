"""Full-text candidates from the two FTS5 tables: porter/unicode61 words and trigrams.

Turning free text into FTS5 expressions is `core.fts`; scoring the candidates is
`retrieval.scoring`. This module only runs the MATCH queries.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from orbit_learnings.core.scope import tag_name
from orbit_learnings.index.reads import CHUNK, marks

CANDIDATES = 200
FEW_ROWS = 32  # `matching_rows(among=...)` looks up at most this many rows one by one
# Column weights for bm25(): id (unindexed), summary, body, tags.
_BM25 = "bm25(learnings_fts, 0.0, 3.0, 1.0, 2.0)"


def _tag_filter(tags: Sequence[str]) -> tuple[str, list[str]]:
    if not tags:
        return "", []
    sql = (
        " AND EXISTS (SELECT 1 FROM tags t WHERE t.learning_id = l.id"
        f" AND t.folded IN ({marks(len(tags))}))"
    )
    return sql, [tag_name(t).casefold() for t in tags]


def word_matches(
    conn: sqlite3.Connection,
    expression: str,
    statuses: Sequence[str],
    tags: Sequence[str],
    limit: int = CANDIDATES,
) -> list[tuple[str, float, int]]:
    """(id, raw bm25, FTS rowid) for one FTS5 expression, best first (bm25 is negative:
    lower wins; equal scores by rowid). The rowid is what `matching_rows` sets hold.

    FTS5 ranks and cuts on its own (`ORDER BY bm25 LIMIT`), without a join per matched
    row: the status and tag filters are applied to the rows it returns, and when they
    drop some, it is asked again for more (every match, at worst)."""
    fetch = limit
    while True:
        ranked = conn.execute(
            f"SELECT rowid, {_BM25} AS rank FROM learnings_fts WHERE learnings_fts MATCH ?"
            " ORDER BY rank, rowid LIMIT ?",
            (expression, fetch),
        ).fetchall()
        kept = _eligible(conn, [r[0] for r in ranked], statuses, tags)
        found = [(kept[r], float(rank), int(r)) for r, rank in ranked if r in kept]
        if len(found) >= limit or len(ranked) < fetch:
            return found[:limit]
        fetch *= 4


def _eligible(
    conn: sqlite3.Connection, rowids: list[int], statuses: Sequence[str], tags: Sequence[str]
) -> dict[int, str]:
    """rowid -> id of the rows among these whose learning has one of the statuses (and,
    when asked, one of the tags). The full-text rows share their learning's rowid."""
    tag_sql, tag_params = _tag_filter(tags)
    found: dict[int, str] = {}
    for start in range(0, len(rowids), CHUNK):
        chunk = rowids[start : start + CHUNK]
        rows = conn.execute(
            f"SELECT l.rowid, l.id FROM learnings_index l WHERE l.rowid IN ({marks(len(chunk))})"
            f" AND l.effective_status IN ({marks(len(statuses))}){tag_sql}",
            (*chunk, *statuses, *tag_params),
        )
        found.update((int(r[0]), str(r[1])) for r in rows)
    return found


def substring_matches(
    conn: sqlite3.Connection, run: str, statuses: Sequence[str], tags: Sequence[str]
) -> list[str]:
    """IDs whose text contains `run`. CJK text has no spaces, so porter/unicode61 cannot
    split it: the trigram index serves runs of three or more characters, a plain
    substring scan shorter ones."""
    tag_sql, tag_params = _tag_filter(tags)
    status_sql = f"l.effective_status IN ({marks(len(statuses))})"
    if len(run) >= 3:
        sql = (
            "SELECT g.id FROM learnings_trigram g JOIN learnings_index l ON l.id = g.id"
            f" WHERE learnings_trigram MATCH ? AND {status_sql}{tag_sql}"
        )
        params: tuple[object, ...] = ('"' + run.replace('"', '""') + '"', *statuses, *tag_params)
    else:
        sql = (
            "SELECT l.id FROM learnings_index l WHERE instr(l.summary || ' ' || l.body || ' ' ||"
            f" l.tags, ?) > 0 AND {status_sql}{tag_sql}"
        )
        params = (run, *statuses, *tag_params)
    return [r[0] for r in conn.execute(sql, params)]


def matching_rows(
    conn: sqlite3.Connection, expression: str, among: Collection[int] | None = None
) -> set[int]:
    """The FTS rowids of every learning whose words match one FTS5 expression, whatever
    its status: a term's document frequency and which candidates contain it, in one
    lookup. Rowids, not IDs: FTS5 answers them from its index alone, where each ID would
    cost a lookup in the content table (4x slower for a word most learnings hold).

    With `among`, only those of these rows: a few are looked up one by one (each costs
    what a hundredth of a whole word's rows does), more through the whole set."""
    if among is not None and len(among) <= FEW_ROWS:
        sql = "SELECT rowid FROM learnings_fts WHERE learnings_fts MATCH ? AND rowid IN "
        rows = conn.execute(sql + f"({marks(len(among))})", (expression, *among))
        return {int(r[0]) for r in rows}
    sql = "SELECT json_group_array(rowid) FROM learnings_fts WHERE learnings_fts MATCH ?"
    # One row holding every rowid: 10,000 rows through the cursor cost twice as much.
    found = set(json.loads(conn.execute(sql, (expression,)).fetchone()[0]))
    return found if among is None else found & set(among)


class TermRows:
    """Which learnings hold one query term, as the FTS rowids `matching_rows` gives.

    A term held by half the store or more is not fetched: its count comes from FTS5,
    and which candidates hold it from the rows that match the query's other terms but
    not this one, usually none. Every candidate matches some term of the query, so a
    candidate not among those holds it. Fetching 10,000 rowids cost a search ~1 ms.
    """

    __slots__ = ("_conn", "_expression", "_lacking", "_others", "count", "rows")

    def __init__(
        self, conn: sqlite3.Connection, expression: str, others: str, count: int, total: int
    ) -> None:
        self._conn, self._expression, self._others = conn, expression, others
        self._lacking: set[int] | None = None
        self.count = count  # `term_count(conn, expression)`
        self.rows = None if 2 * count >= total else matching_rows(conn, expression)

    def holding(self, candidates: Collection[int]) -> set[int]:
        """Those of `candidates` (rows that match some term of the query) holding this one."""
        if self.rows is not None:
            return self.rows.intersection(candidates)
        if self._lacking is None:
            self._lacking = (
                matching_rows(self._conn, f"({self._others}) NOT ({self._expression})")
                if self._others
                else set()
            )
        return set(candidates).difference(self._lacking)


def term_count(conn: sqlite3.Connection, expression: str) -> int:
    """How many learnings match one FTS5 expression, whatever their status."""
    sql = "SELECT count(*) FROM learnings_fts WHERE learnings_fts MATCH ?"
    return int(conn.execute(sql, (expression,)).fetchone()[0])


def document_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM learnings_index").fetchone()[0])


def trigram_neighbours(conn: sqlite3.Connection, word: str, limit: int = 8) -> list[str]:
    """Texts sharing the most three-letter pieces with `word`: where a misspelt word's
    intended spelling is, when the word itself matches nothing."""
    pieces = {word[i : i + 3] for i in range(len(word) - 2)}
    if not pieces:
        return []
    expression = " OR ".join('"' + p.replace('"', '""') + '"' for p in sorted(pieces))
    rows = conn.execute(
        "SELECT summary || ' ' || tags || ' ' || body FROM learnings_trigram"
        " WHERE learnings_trigram MATCH ? ORDER BY bm25(learnings_trigram) LIMIT ?",
        (expression, limit),
    )
    return [str(r[0]) for r in rows]
