"""How sure a search is that a result answers the query: a calibrated probability.

A text search always finds *something* — a question about vacation days still
shares a word with some learning — so every result carries `match_confidence`,
the estimated chance that it answers the query, from what the match looks like:

    coverage   share of the query's idf weight the learning contains
    relevance  its text-match score (relative BM25, coverage, phrase, nearness)
    gap        how far it leads the next result
    phrase     the share of the query's weight in the longest phrase it contains
    unknown    share of the query's words that no learning holds at all
    rarity     idf of the rarest query word it holds (a word few learnings use)
    weight     the idf it holds in all: long queries match many words, idle ones few
    length     how many words the query has (a long one covers less of itself)
    cosine     with vectors: its embedding's similarity to the query's
    summary    share of the query's weight in its one-line summary (what it is about)

With vectors the relevance is a fused rank, so that mode has its own fitted
coefficients (`SEMANTIC_COEFFICIENTS`, `--fit --mode semantic`).

The coefficients are a logistic regression fitted on the top result of each query
of the labelled set in `tests/eval/realistic/` (unanswerable queries weighted 3:1;
`scripts/eval_search.py --fit` prints them and their 2-fold held-out figures). The
features overlap, so a negative coefficient (phrase) corrects for what another
already counts (a phrase match raises coverage too); it does not penalise phrases.
Below `THRESHOLD` the CLI says "no confident match" and agents are shown nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.core.results import Scored
    from orbit_learnings.retrieval.scoring import TextMatch

FEATURES = (
    "coverage",
    "relevance",
    "gap",
    "phrase",
    "unknown",
    "rarity",
    "weight",
    "length",
    "cosine",
    "summary",
)
EMPTY_PROFILE = {"unknown": 1.0, "length": 0.0, "semantic": 0.0}
MAX_LENGTH = 16
COEFFICIENTS = {  # fitted on the labelled set: scripts/eval_search.py --fit
    "bias": -5.341,
    "coverage": 3.735,
    "relevance": 0.464,
    "gap": 2.341,
    "phrase": -2.116,
    "unknown": -1.172,
    "rarity": -0.609,
    "weight": 5.545,
    "length": 2.697,
    "summary": 2.002,
}
SEMANTIC_COEFFICIENTS = {  # `--fit --mode semantic`
    "bias": -6.186,
    "coverage": 3.594,
    "relevance": 0.464,
    "gap": 2.396,
    "phrase": -2.253,
    "unknown": -2.087,
    "rarity": 0.52,
    "weight": 3.86,
    "length": 2.509,
    "cosine": 3.904,
    "summary": 1.218,
}
THRESHOLD = 0.35


def query_profile(match: TextMatch, known: dict[str, float]) -> dict[str, float]:
    """The query-level features; over several stores, the most favourable of each."""
    return {
        "unknown": min(known["unknown"], match.unknown_share),
        "length": max(known["length"], min(match.terms, MAX_LENGTH) / MAX_LENGTH),
        "semantic": max(known["semantic"], float(match.semantic)),
    }


def features(ranked: Sequence[Scored], profile: dict[str, float]) -> list[dict[str, float]]:
    """One feature row per result, in rank order."""
    rows = []
    for position, scored in enumerate(ranked):
        following = ranked[position + 1].relevance if position + 1 < len(ranked) else 0.0
        rows.append(
            {
                "coverage": scored.coverage,
                "relevance": scored.relevance,
                "gap": max(scored.relevance - following, 0.0),
                "phrase": scored.phrase,
                "unknown": profile["unknown"],
                "length": profile["length"],
                "cosine": scored.cosine,
                "summary": scored.summary,
                "semantic": profile["semantic"],
                "rarity": scored.rarity,
                "weight": scored.weight,
            }
        )
    return rows


def probability(row: dict[str, float], coefficients: dict[str, float] | None = None) -> float:
    if coefficients is None:
        coefficients = SEMANTIC_COEFFICIENTS if row.get("semantic") else COEFFICIENTS
    z = coefficients["bias"] + sum(coefficients.get(name, 0.0) * row[name] for name in FEATURES)
    return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def confident(value: float | None) -> bool:
    return value is not None and value >= THRESHOLD
