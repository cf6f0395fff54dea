"""How sure a search is that a result answers the query: a calibrated probability.

A text search always finds *something* — a question about vacation days still
shares a word with some learning — so every result carries `match_confidence`,
the estimated chance that it answers the query, from what the match looks like.
Every feature is domain-independent (no word list, nothing about one store):

    known_coverage  share of the idf weight of the query's words the store holds that
                    the learning contains (a word no learning holds is left out)
    matched         share of the query's words it contains, each counted once
    weight          the idf it holds in all: long queries match many words, idle ones few
    summary         share of the query's weight in its one-line summary (what it is about)
    rarest_share    share of the query's weight in the rarest word it holds: a match
                    resting on one strong word is more often chance than one spread out
    gap             how far it leads the next result
    length          how many words the query has (a long one covers less of itself)
    single          whether the query is one word (its weight is one word's idf at most)
    cosine          with vectors: its embedding's similarity to the query's

(`coverage`, the share over every query word, where a word no learning holds weighs as
much as the rarest, and `relevance`, `phrase`, `unknown` and `rarity` are computed too,
for `--explain`; the models leave them out: fitted with them they did no better on
held-out folds. `known_coverage` replaced `coverage`, and `rarest_share` joined, because
with them a model fitted on two tuning stores separated answers from chance overlap
better on the third, for each of the three (`docs/search.md`). With vectors
`rarest_share` did not, so the semantic model leaves it out.)

The coefficients are a logistic regression fitted on the top result of each labelled
query of three tuning stores from different domains, pooled: `tests/eval/realistic/`
(`queries.yaml` and the tuning-only `queries_extra.yaml`, 430 queries),
`tests/eval/tuning2/` (a game studio, `queries.yaml` and `queries_extra.yaml`, 217
queries) and `tests/eval/tuning3/` (clinic scheduling, 234 queries): 880 rows, 225
unanswerable, weighted 3:1, by `scripts/eval_search.py --fit` (`scripts/confidence_fit.py`).
Fitted on one store alone they did not carry over to another. Both extra files hold long
prompts with no answer (issue 33): while every long tuning query was answerable, the fit
gave `length` a large positive weight and any long prompt sharing one word with a learning
came out confident. Its cut was chosen on 5-fold held-out predictions over the pooled rows,
as the one that best meets both targets (answers kept, unanswerable recognised), and folded
into the bias, so `THRESHOLD` stays 0.35. The features overlap, so a negative coefficient
(known_coverage) corrects for what another already counts (`matched` and `weight` rise with
it); it does not penalise coverage. With vectors the relevance is a fused rank, so that mode
has its own coefficients (`SEMANTIC_COEFFICIENTS`, `--fit --mode semantic`). Below
`THRESHOLD` the CLI says "no confident match" and agents are shown nothing.
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
    "matched",
    "single",
    "known_coverage",
    "rarest_share",
)
EMPTY_PROFILE = {"unknown": 1.0, "length": 0.0, "single": 0.0, "semantic": 0.0}
MAX_LENGTH = 16
COEFFICIENTS = {  # fitted and calibrated on the three tuning stores: eval_search.py --fit
    "bias": -3.604,
    "known_coverage": -2.364,
    "gap": 0.997,
    "weight": 8.1,
    "summary": 3.885,
    "matched": 4.741,
    "length": -3.25,
    "single": 6.795,
    "rarest_share": -4.539,
}
SEMANTIC_COEFFICIENTS = {  # `--fit --mode semantic`
    "bias": -5.212,
    "known_coverage": -1.316,
    "gap": -0.438,
    "weight": 5.91,
    "summary": 3.129,
    "matched": 2.486,
    "length": -1.183,
    "single": 5.396,
    "cosine": 6.171,
}
THRESHOLD = 0.35


def query_profile(match: TextMatch, known: dict[str, float]) -> dict[str, float]:
    """The query-level features; over several stores, the most favourable of each."""
    return {
        "unknown": min(known["unknown"], match.unknown_share),
        "length": max(known["length"], min(match.terms, MAX_LENGTH) / MAX_LENGTH),
        "single": max(known["single"], float(match.terms == 1)),
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
                "matched": scored.matched,
                "single": profile["single"],
                "known_coverage": scored.known_coverage,
                "rarest_share": scored.rarest_share,
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
