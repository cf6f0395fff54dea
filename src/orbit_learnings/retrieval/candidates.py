"""What one free-text query finds in each store, and what ranking it needs of each.

`queries.search_text` collects a `TextCandidates` over the stores it reads, then sorts
and cuts; this module holds the per-store part: the text match, the contenders that
can still place, their tie-breakers, and the rows of the places returned.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from orbit_learnings.core import ranking
from orbit_learnings.core.errors import Problem
from orbit_learnings.core.results import Hit
from orbit_learnings.index import reads
from orbit_learnings.index.build import open_fresh
from orbit_learnings.index.rows import refresh_votes
from orbit_learnings.retrieval import combined, scoring
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class TextCandidates:
    """What one text query finds across the stores, with what scoring needs of each."""

    def __init__(
        self,
        text: str,
        statuses: Sequence[str],
        tags: Sequence[str],
        glossary: Any,
        weights: dict[str, float],
        keep: int | None,
    ) -> None:
        from orbit_learnings.retrieval import confidence

        self.text, self.statuses, self.tags, self.glossary = text, statuses, tags, glossary
        self.weights, self.keep = weights, keep  # keep: how many places matter (None: all)
        self.use_vectors = scoring.semantic_enabled()
        self.hits: list[Hit] = []
        self.matched: dict[str, Any] = {}
        self.feedback: dict[str, Any] = {}
        self.parts: dict[str, dict[str, float]] = {}  # id -> its score, part by part
        self.scorer = ranking.VoteScorer()  # one moment for every vote and date of the query
        self.warnings: list[Problem] = []
        self.profile = confidence.EMPTY_PROFILE

    def collect(
        self, store_ws: Workspace, hiding: Callable[[sqlite3.Connection], set[str]] | None = None
    ) -> None:
        """One store's candidates. Pruning per store is safe: a candidate among the first
        `keep` of all stores is among the first `keep` of its own. `hiding` names the
        ones this repository does not see (`retrieval.orgview`)."""
        from orbit_learnings.index import feedback
        from orbit_learnings.retrieval import confidence

        with open_fresh(store_ws) as index:
            match = scoring.text_matches(
                index.conn,
                self.text,
                self.statuses,
                self.tags,
                self.glossary,
                keep=None if self.use_vectors else self.keep,  # fusion ranks every match
                slack=combined.slack(self.weights),
            )
            scored = match.scored
            hidden = hiding(index.conn) if hiding is not None else set()
            if hidden:
                scored = {i: match_ for i, match_ in scored.items() if i not in hidden}
            if self.use_vectors:
                from orbit_learnings.retrieval import semantic

                scored = semantic.fuse(index.conn, self.text, self.statuses, self.tags, scored)
                match.semantic = True
            self.profile = confidence.query_profile(match, self.profile)
            ids = combined.contenders(scored, self.keep, self.weights)
            refresh_votes(index.conn, store_ws, ids)
            self.feedback.update(feedback.counts_for(index.conn, store_ws, ids))
            if self.keep is not None and len(ids) > self.keep:
                ids = self._best(index.conn, ids, scored)
            found = reads.hits(index.conn, ids, self.statuses, score=self.scorer)
            match.summarise(index.conn, scored, [hit.id for hit in found])
            self.warnings += index.warnings
        for hit in found:
            hit.level = store_ws.level
            inputs = self._score_inputs(scored, hit.id, hit.updated_at, hit.vote_score)
            self.parts[hit.id] = combined.combine(combined.parts(*inputs))
        self.matched.update(scored)
        self.hits += found

    def _best(self, conn: sqlite3.Connection, ids: list[str], scored: dict[str, Any]) -> list[str]:
        """The first `keep` of these contenders by their whole score, worked out from their
        dates and vote digests alone: text often ties (a hundred learnings alike word for
        word), and building a hit for each of them was most of a search's ranking time."""
        breakers = reads.tie_breakers(conn, ids, self.statuses, self.scorer)
        totals = {
            learning_id: combined.total(
                combined.parts(*self._score_inputs(scored, learning_id, updated, votes))
            )
            for learning_id, updated, votes in breakers
        }
        return sorted(totals, key=lambda i: (-totals[i], i))[: self.keep]

    def _score_inputs(
        self, scored: dict[str, Any], learning_id: str, updated_at: str, vote_score: float
    ) -> tuple[float, float, str, float, dict[str, float], float]:
        """What `combined.parts` takes for one learning, in its order; the moment is the
        query's, so a contender is scored alike in the cut and in the result."""
        helpfulness = self.feedback[learning_id][0]  # every contender's was read
        relevance = scored[learning_id].relevance
        return relevance, vote_score, updated_at, helpfulness, self.weights, self.scorer.moment
