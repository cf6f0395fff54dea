"""What a read returns, whichever surface asked: result lists and full records.

Plain classes with slots: built for every row of every hot read, where importing
dataclasses would cost more than the lookup.
"""

from __future__ import annotations

from orbit_learnings.core.errors import Problem

# Control characters other than newline and tab: an escape sequence in a summary would
# otherwise drive the reader's terminal (or an agent's context) from a learning.
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if c not in (9, 10)}


def printable(text: str) -> str:
    """`text` with every control character but newline and tab shown as `\\xNN`."""
    return text.translate(_CONTROL)


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Hit:
    """One learning in a result list: what every adapter renders."""

    __slots__ = (
        "anchored",
        "confident",
        "explain",
        "id",
        "level",
        "match_confidence",
        "matched_by",
        "note",
        "paths",
        "priority",
        "reason",
        "score",
        "specificity",
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
        self.match_confidence: float | None = None  # text search only: chance it answers
        self.confident = False  # text search only: match_confidence reaches the threshold
        # scope lookups only: how narrowly it matched each path asked about ({} for a tag)
        self.specificity: dict[str, float] | None = None
        self.reason: str | None = None  # task ranking only: `path:<file>`, `tag` or `text`
        self.note: str | None = None  # pushes only: "anchor drifted: src/x.py:3-9 changed ..."
        self.anchored = False  # cites code: a push judges its anchors before showing it

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
        if self.match_confidence is not None:
            data["match_confidence"] = self.match_confidence
            data["confident"] = self.confident
        if self.explain is not None:
            data["explain"] = self.explain
        if self.note is not None:
            data["note"] = self.note
        return data


class Result:
    __slots__ = ("hits", "warnings", "weakest_left_out")

    def __init__(self, hits: list[Hit], warnings: list[Problem]) -> None:
        self.hits = hits
        self.warnings = warnings
        self.weakest_left_out: Hit | None = None  # the best hit the match-confidence cut dropped

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"results": [h.to_dict() for h in self.hits]}
        if self.weakest_left_out is not None and not self.hits:
            data["no_confident_match"] = True
            data["closest"] = self.weakest_left_out.to_dict()
        elif self.hits and self.hits[0].match_confidence is not None and not self.hits[0].confident:
            data["no_confident_match"] = True  # every result is weak: scripts choose
        return data


class Detail:
    __slots__ = ("record", "warnings")

    def __init__(self, record: dict[str, Any], warnings: list[Problem]) -> None:
        self.record = record
        self.warnings = warnings


class Scored:
    """How one learning matched one free-text query (`retrieval.scoring` makes them): what
    ranking, the match-confidence model and `--explain` read of the match itself."""

    __slots__ = (
        "bm25",
        "cosine",
        "coverage",
        "id",
        "known_coverage",
        "matched",
        "phrase",
        "rarest_share",
        "rarity",
        "relevance",
        "summary",
        "tier",
        "weight",
    )

    def __init__(
        self,
        id: str,
        tier: str,
        bm25: float,
        relevance: float,
        coverage: float = 0.0,
        phrase: float = 0.0,
        *,
        rarity: float = 0.0,  # idf of the rarest query word it holds, over the largest possible
        weight: float = 0.0,  # idf it holds in all, in units of that largest idf (capped at 4)
        cosine: float = 0.0,  # similarity of its vector to the query's, when vectors were used
        summary: float = 0.0,  # share of the query's idf weight found in its one-line summary
        matched: float = 0.0,  # share of the query's words it holds, each counted once
        known_coverage: float = 0.0,  # `coverage` among the query words the store holds
        rarest_share: float = 0.0,  # share of the query's idf weight in its rarest word held
    ) -> None:
        self.id, self.tier, self.bm25, self.relevance = id, tier, bm25, relevance
        self.coverage, self.phrase, self.rarity, self.weight = coverage, phrase, rarity, weight
        self.cosine, self.summary = cosine, summary
        self.matched, self.known_coverage = matched, known_coverage
        self.rarest_share = rarest_share

    def copy(self) -> Scored:
        twin = Scored(self.id, self.tier, self.bm25, self.relevance)
        for name in self.__slots__:
            setattr(twin, name, getattr(self, name))
        return twin
