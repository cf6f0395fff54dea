"""Ordering within a matched set (spec 5.4).

Decay-weighted vote score first (half-life 180 days by default; 0 disables
decay and counts raw votes), then manual priority, then recency, then id.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_HALF_LIFE_DAYS = 180.0
HALF_LIFE_ENV = "ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS"
MIN_SPECIFICITY = 0.1


def half_life_days() -> float:
    raw = os.environ.get(HALF_LIFE_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_HALF_LIFE_DAYS
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_HALF_LIFE_DAYS
    if value != value:  # NaN would make every vote score NaN and the order undefined
        return DEFAULT_HALF_LIFE_DAYS
    return max(value, 0.0)


@lru_cache(maxsize=65536)
def epoch_seconds(stamp: str) -> float:
    """Seconds since the epoch of a canonical `Z` stamp; cached, since votes share stamps.

    `fromisoformat` is C code and avoids importing `_strptime` on the hot path.
    """
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def clock() -> datetime:
    """The moment votes are aged against; one place, so a test can hold it still."""
    return datetime.now(UTC)


class VoteScorer:
    """Scores many learnings' votes against one moment and one half-life, read once:
    a result list of thousands of hits would otherwise read the clock and the
    environment once per hit."""

    __slots__ = ("life", "moment")

    def __init__(self, now: datetime | None = None, half_life: float | None = None) -> None:
        self.life = half_life_days() if half_life is None else half_life
        self.moment = (now or clock()).timestamp()

    def __call__(self, voted_at: Iterable[str]) -> float:
        """Sum of 0.5 ** (age / half-life) over votes; raw count when half-life is 0."""
        return self.weighted((stamp, 1) for stamp in voted_at)

    def weighted(self, votes: Iterable[tuple[str, int]]) -> float:
        """The same over (stamp, weight) pairs: a folded day of a busy `votes.jsonl`
        weighs as many votes as it counts."""
        pairs = list(votes)
        if self.life == 0:
            return float(sum(weight for _, weight in pairs))
        moment, life = self.moment, self.life
        total = 0.0
        for stamp, weight in pairs:
            age_days = max((moment - epoch_seconds(stamp)) / 86400.0, 0.0)
            total += weight * 0.5 ** (age_days / life)
        return total

    def digested(self, count: int, newest: float, decayed: float, life: float) -> float | None:
        """The score of votes that `digest` summarised, without reading them: every vote's
        weight halves at the same rate, so their sum at any later moment is their sum at
        the newest vote times one decay factor. None when that is not exact: another
        half-life, or a vote stamped later than this moment (its age would be clamped)."""
        if life != self.life or self.moment < newest:
            return None
        if self.life == 0:
            return float(count)
        decay: float = 0.5 ** ((self.moment - newest) / 86400.0 / self.life)
        return decayed * decay


def digest(
    voted_at: Iterable[str], half_life: float, weights: Iterable[int] | None = None
) -> tuple[int, float, float]:
    """(count, newest vote's epoch seconds, the votes' score as of that newest vote) for
    `VoteScorer.digested`: the index keeps it so that ranking a learning costs one
    multiplication instead of a pass over its vote stamps. `weights` (one a stamp, else
    1 each): a folded day of a busy `votes.jsonl` weighs as many votes as it counts."""
    stamps = list(voted_at)
    counts = list(weights) if weights is not None else [1] * len(stamps)
    epochs = [(epoch_seconds(stamp), w) for stamp, w in zip(stamps, counts, strict=True)]
    if not epochs:
        return 0, 0.0, 0.0
    newest = max(epoch for epoch, _ in epochs)
    count = sum(weight for _, weight in epochs)
    if half_life == 0:
        return count, newest, float(count)
    decayed = sum(w * 0.5 ** ((newest - epoch) / 86400.0 / half_life) for epoch, w in epochs)
    return count, newest, decayed


def vote_score(
    voted_at: Iterable[str], now: datetime | None = None, half_life: float | None = None
) -> float:
    """Sum of 0.5 ** (age / half-life) over votes; raw count when half-life is 0."""
    return VoteScorer(now, half_life)(voted_at)


def rank(items: Sequence[Any]) -> list[Any]:
    """Stable multi-key sort: votes desc, priority desc, updated_at desc, id asc.

    Items need `id`, `vote_score`, `priority` and `updated_at` attributes.
    """
    ordered = sorted(items, key=lambda it: it.id)
    ordered.sort(key=lambda it: getattr(it, "level", "project") != "project")  # project first
    ordered.sort(key=lambda it: it.updated_at, reverse=True)
    ordered.sort(key=lambda it: (round(it.vote_score, 9), it.priority), reverse=True)
    return ordered


def glob_specificity(glob: str, path: str) -> float:
    """How narrowly a matching glob names a path: 1.0 for the file itself, then the
    share of the path's folders the glob spells out literally (`services/billing/**`
    names more of `services/billing/app/x.py` than `services/**/*.py` does), with a
    little credit for a literal part in a wildcard segment (`*.py`); any match is
    worth `MIN_SPECIFICITY`, so a learning on `**` still shows when nothing narrower does.

    Injection ranks by it: the learning about this very file beats the one about
    every Python file, whatever their votes.
    """
    if not any(ch in glob for ch in "*?[{") and glob.strip("/") == path.strip("/"):
        return 1.0
    depth = max(path.strip("/").count("/") + 1, 1)
    literal = 0.0
    for segment in glob.strip("/").split("/"):
        if segment == "**":
            continue
        if any(ch in segment for ch in "*?[{"):
            literal += 0.25 if segment.strip("*?") else 0.0
        else:
            literal += 1.0
    return max(min(literal / depth, 0.95), MIN_SPECIFICITY)
