"""Near-duplicate detection: suggest an upvote instead of a second copy of a lesson.

Candidates come from the full-text index; similarity is the overlap of the
content words of the two summaries (Jaccard), which is cheap, explainable and
needs no model. With the optional semantic extra, cosine similarity of
embeddings could replace it; the threshold is `SIMILARITY`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbit_learnings.store.workspace import Workspace

SIMILARITY = 0.6
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORD_TEXT = (
    "a an and are as at be before but by do does for from has have in into is it its not of "
    "on or so than that the then this to use was were when with without "
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class Similar:
    id: str
    summary: str
    similarity: float

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "summary": self.summary, "similarity": self.similarity}


def content_words(text: str) -> set[str]:
    words = {w.lower() for w in _WORD.findall(text)}
    meaningful = words - STOPWORDS
    return meaningful or words


def jaccard(a: str, b: str) -> float:
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _cosines(ws: Workspace, summary: str, ids: list[str]) -> dict[str, float]:
    """Cosine similarity to cached vectors when the semantic extra is in use, rescaled so
    that cosine 0.85 lands on the Jaccard threshold."""
    from orbit_learnings.retrieval import scoring as search

    if not ids or not search.semantic_enabled():
        return {}
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.retrieval import semantic

    with open_fresh(ws) as fresh:
        if not semantic.has_vectors(fresh.conn):
            return {}
        ranked = dict(semantic.vector_ranking(fresh.conn, summary, ("active",)))
    scale = SIMILARITY / semantic.SIMILAR_COSINE
    return {i: ranked[i] * scale for i in ids if ranked.get(i, 0.0) >= semantic.SIMILAR_COSINE}


def find_similar(ws: Workspace, summary: str, body: str = "", limit: int = 3) -> list[Similar]:
    """Active learnings whose summary says nearly the same thing."""
    from orbit_learnings.retrieval.queries import search_text

    candidates = search_text(ws, summary, limit=25).hits
    cosines = _cosines(ws, summary, [h.id for h in candidates])
    found = [
        Similar(
            hit.id,
            hit.summary,
            round(max(jaccard(summary, hit.summary), cosines.get(hit.id, 0.0)), 3),
        )
        for hit in candidates
    ]
    close = [s for s in found if s.similarity >= SIMILARITY]
    close.sort(key=lambda s: (-s.similarity, s.id))
    return close[:limit]
