"""The combined score of a text match: relevance first, bounded tie-breakers after it.

    score = text * relevance
          + votes * (1 - exp(-vote_score / 3))      # decayed votes, saturating
          + recency * max(0, 1 - age_days / 30)     # fades over 30 days
          + helpfulness * (helpfulness - 0.5) * 2   # feedback, -0.8 .. +1

(weights from `scoring.weights_from`). Because each tie-breaker's range is known, a
candidate that cannot place is recognised before any of its rows is read.
"""

from __future__ import annotations

import math
import time

from orbit_learnings.core.ranking import epoch_seconds

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.core.results import Scored


# Each tie-breaker's factor before its weight: (lowest, highest), as `combine` makes them.
_FACTOR_RANGE = {"votes": (0.0, 1.0), "recency": (0.0, 1.0), "helpfulness": (-0.8, 1.0)}
_ROUNDING = 1e-5  # `combine` rounds the total to six places


def contenders(scored: dict[str, Scored], keep: int | None, weights: dict[str, float]) -> list[str]:
    """The candidates that can still finish among the first `keep` once votes, recency
    and helpfulness are added (all of them when `keep` is None).

    The text part of each score is known before any row is read; the tie-breakers can
    move a score by a bounded amount. A candidate whose best possible score is below the
    `keep`-th best worst possible score can never reach those places, so its row,
    votes and feedback are never read. Every one that can is kept: the order of the
    first `keep` is exactly the one a ranking of every candidate gives.
    """
    if keep is None or len(scored) <= keep:
        return list(scored)
    low, high = _tie_breaker_range(weights)
    text = {i: weights["text"] * s.relevance for i, s in scored.items()}
    floor = sorted(text.values(), reverse=True)[keep - 1] + low - _ROUNDING
    return [i for i, value in text.items() if value + high >= floor]


def slack(weights: dict[str, float]) -> float:
    """How much text relevance the tie-breakers can make up between two candidates (with
    the total's rounding): one that trails the `keep`-th by more can never place."""
    low, high = _tie_breaker_range(weights)
    if weights["text"] <= 0.0:
        return math.inf
    return (high - low + _ROUNDING) / weights["text"]


def _tie_breaker_range(weights: dict[str, float]) -> tuple[float, float]:
    """The lowest and highest sum of the weighted tie-breakers one learning can get."""
    low = high = 0.0
    for name, (least, most) in _FACTOR_RANGE.items():
        ends = (weights[name] * least, weights[name] * most)
        low, high = low + min(ends), high + max(ends)
    return low, high


def recency_bonus(updated_at: str, now: float | None = None) -> float:
    age_days = max(((now or time.time()) - epoch_seconds(updated_at)) / 86400.0, 0.0)
    return max(0.0, 1.0 - age_days / 30.0)


def parts(
    relevance: float,
    vote_score: float,
    updated_at: str,
    helpfulness: float,
    weights: dict[str, float],
    now: float | None = None,
) -> tuple[float, float, float, float]:
    """The four weighted parts of one learning's score: text, votes, recency, helpfulness."""
    return (
        weights["text"] * relevance,
        weights["votes"] * (1.0 - math.exp(-vote_score / 3.0)),
        weights["recency"] * recency_bonus(updated_at, now),
        weights["helpfulness"] * (helpfulness - 0.5) * 2.0,
    )


def combine(raw: tuple[float, float, float, float]) -> dict[str, float]:
    """The score part by part, each and the total rounded to six places."""
    named = dict(zip(("text", "votes", "recency", "helpfulness"), raw, strict=True))
    named["total"] = sum(raw)
    return {k: round(v, 6) for k, v in named.items()}


def total(raw: tuple[float, float, float, float]) -> float:
    """`combine(raw)["total"]` without the parts: what ordering many candidates needs."""
    return round(sum(raw), 6)
