"""Near-duplicate detection: suggest an upvote instead of a second copy of a lesson.

Candidates come from the full-text index; similarity is the overlap of the
content words of the two summaries (Jaccard), which is cheap, explainable and
needs no model. With the optional semantic extra, cosine similarity of
embeddings could replace it; the threshold is `SIMILARITY`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbit_learnings.workspace import Workspace

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


def find_similar(ws: Workspace, summary: str, body: str = "", limit: int = 3) -> list[Similar]:
    """Active learnings whose summary says nearly the same thing."""
    from orbit_learnings.queries import search_text

    candidates = search_text(ws, summary, limit=25).hits
    found = [
        Similar(hit.id, hit.summary, round(jaccard(summary, hit.summary), 3)) for hit in candidates
    ]
    close = [s for s in found if s.similarity >= SIMILARITY]
    close.sort(key=lambda s: (-s.similarity, s.id))
    return close[:limit]
