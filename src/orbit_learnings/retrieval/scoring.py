"""Free-text search: FTS5 tiers, a trigram index for CJK text, and the combined score.

    relevance = (tier + bm25 / (1 + bm25)) / 4        # phrase 3, near 2, any 1 (prefix 1)
    score     = w_text * relevance
              + w_votes * (1 - exp(-vote_score / 3))   # decayed votes, saturating
              + w_recency * max(0, 1 - age_days / 30)  # a bonus that fades over 30 days
              + w_helpful * (confidence - 0.5) * 2     # feedback, -0.8 .. +1

Defaults: text 1.0, votes 0.15, recency 0.05, helpfulness 0.1; override them in
`.orbit/config.yaml` under `search: {weights: {...}}`.
"""

from __future__ import annotations

import math
import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from orbit_learnings.core.fts import normalise_bm25, tiers_for
from orbit_learnings.index import fulltext, reads

DEFAULT_WEIGHTS = {"text": 1.0, "votes": 0.15, "recency": 0.05, "helpfulness": 0.1}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


@dataclass
class Scored:
    id: str
    tier: str
    bm25: float
    relevance: float


def weights_from(config: dict[str, object]) -> dict[str, float]:
    from orbit_learnings.core.errors import OrbitError

    section = config.get("search") if isinstance(config.get("search"), dict) else {}
    given = section.get("weights", {}) if isinstance(section, dict) else {}
    weights = dict(DEFAULT_WEIGHTS)
    if not isinstance(given, dict):
        raise OrbitError(".orbit/config.yaml: search.weights must be a mapping")
    for key, value in given.items():
        if key not in weights or not isinstance(value, int | float) or isinstance(value, bool):
            raise OrbitError(f".orbit/config.yaml: unknown or non-numeric search weight {key!r}")
        weights[key] = float(value)
    return weights


def text_matches(
    conn: sqlite3.Connection, text: str, statuses: Sequence[str], tags: Sequence[str]
) -> dict[str, Scored]:
    """Candidates with their best tier; later tiers never overwrite earlier ones."""
    found: dict[str, Scored] = {}
    for tier in tiers_for(text):
        for learning_id, raw in fulltext.word_matches(conn, tier.expression, statuses, tags):
            if learning_id not in found:
                strength = normalise_bm25(raw)
                found[learning_id] = Scored(
                    learning_id, tier.name, round(-raw, 4), (tier.weight + strength) / 4
                )
    for run in _CJK.findall(text):
        for learning_id in fulltext.substring_matches(conn, run, statuses, tags):
            found.setdefault(learning_id, Scored(learning_id, "cjk", 0.0, 0.5))
    return found


def hybrid(
    conn: sqlite3.Connection,
    text: str,
    statuses: Sequence[str],
    tags: Sequence[str],
    bm25: dict[str, Scored],
) -> dict[str, Scored]:
    """Fuse BM25 with the vector ranking (when vectors are cached); relevance becomes the
    normalised fused score. Skipped when BM25 is already confident."""
    from orbit_learnings.retrieval import semantic

    strengths = [s.bm25 / (1.0 + s.bm25) for s in bm25.values()]
    if semantic.bm25_confident(strengths):
        return bm25
    vectors = semantic.vector_ranking(conn, text, statuses)
    if tags:
        allowed = reads.ids_with_tags(conn, tags)
        vectors = [(i, c) for i, c in vectors if i in allowed]
    if not vectors:
        return bm25
    bm25_order = sorted(bm25, key=lambda i: (-bm25[i].relevance, i))
    fused = semantic.rrf(
        [bm25_order, [i for i, _ in vectors]], [semantic.BM25_WEIGHT, semantic.VECTOR_WEIGHT]
    )
    in_vectors = {i for i, _ in vectors}
    top = semantic.max_rrf()
    out: dict[str, Scored] = {}
    for learning_id, score in fused.items():
        known = bm25.get(learning_id)
        tier = (
            (known.tier + "+vector" if learning_id in in_vectors else known.tier)
            if known
            else "vector"
        )
        out[learning_id] = Scored(
            learning_id, tier, known.bm25 if known else 0.0, min(score / top, 1.0)
        )
    return out


def semantic_enabled() -> bool:
    import os

    from orbit_learnings.retrieval import semantic

    return os.environ.get("ORBIT_SEMANTIC", "1") != "0" and semantic.available()


def recency_bonus(updated_at: str, now: float | None = None) -> float:
    from orbit_learnings.core.ranking import _epoch

    age_days = max(((now or time.time()) - _epoch(updated_at)) / 86400.0, 0.0)
    return max(0.0, 1.0 - age_days / 30.0)


def combine(
    relevance: float,
    vote_score: float,
    updated_at: str,
    confidence: float,
    weights: dict[str, float],
) -> dict[str, float]:
    parts = {
        "text": weights["text"] * relevance,
        "votes": weights["votes"] * (1.0 - math.exp(-vote_score / 3.0)),
        "recency": weights["recency"] * recency_bonus(updated_at),
        "helpfulness": weights["helpfulness"] * (confidence - 0.5) * 2.0,
    }
    parts["total"] = sum(parts.values())
    return {k: round(v, 6) for k, v in parts.items()}
