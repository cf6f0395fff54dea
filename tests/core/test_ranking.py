"""Ranking a matched set: decayed votes, then priority, recency, level and id."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbit_learnings.core import ranking
from orbit_learnings.core.ranking import VoteScorer, rank, vote_score

NOW = datetime(2026, 7, 1, tzinfo=UTC)
DAY_BEFORE = "2026-06-30T00:00:00Z"


class Item:
    def __init__(
        self,
        id: str,
        vote_score: float = 0.0,
        priority: int = 0,
        updated_at: str = "2026-01-01T00:00:00Z",
        level: str = "project",
    ) -> None:
        self.id = id
        self.vote_score = vote_score
        self.priority = priority
        self.updated_at = updated_at
        self.level = level


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, 180.0), ("", 180.0), ("  ", 180.0), ("soon", 180.0), ("30", 30.0), ("-5", 0.0)],
)
def test_half_life_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str | None, expected: float
) -> None:
    if raw is not None:
        monkeypatch.setenv(ranking.HALF_LIFE_ENV, raw)
    assert ranking.half_life_days() == expected


def test_vote_score_reads_the_half_life_when_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ranking.HALF_LIFE_ENV, "1")
    assert vote_score([DAY_BEFORE], NOW) == pytest.approx(0.5)
    monkeypatch.setenv(ranking.HALF_LIFE_ENV, "0")
    assert vote_score([DAY_BEFORE, DAY_BEFORE, DAY_BEFORE], NOW) == 3.0


def test_scorer_reads_clock_and_environment_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ranking.HALF_LIFE_ENV, "1")
    scorer = VoteScorer(NOW)
    monkeypatch.setenv(ranking.HALF_LIFE_ENV, "1000")
    assert scorer([DAY_BEFORE]) == pytest.approx(0.5)
    assert scorer([]) == 0.0


def test_recent_votes_outweigh_old_ones() -> None:
    assert vote_score([DAY_BEFORE], NOW, 180) > vote_score(["2025-07-01T00:00:00Z"], NOW, 180)


def test_votes_outrank_priority_which_outranks_recency() -> None:
    items = [
        Item("L-0003", updated_at="2026-06-01T00:00:00Z"),
        Item("L-0002", priority=5),
        Item("L-0001", vote_score=0.1),
    ]
    assert [i.id for i in rank(items)] == ["L-0001", "L-0002", "L-0003"]


def test_scores_equal_to_nine_places_fall_through_to_priority() -> None:
    items = [Item("L-0001", vote_score=0.1 + 0.2), Item("L-0002", vote_score=0.3, priority=1)]
    assert [i.id for i in rank(items)] == ["L-0002", "L-0001"]


def test_project_learnings_come_before_personal_ones_on_a_tie() -> None:
    items = [Item("L-0001", level="user"), Item("L-0002", level="project")]
    assert [i.id for i in rank(items)] == ["L-0002", "L-0001"]


def test_ids_break_the_last_tie_and_items_without_level_count_as_project() -> None:
    class Bare:
        def __init__(self, id: str) -> None:
            self.id, self.vote_score, self.priority = id, 0.0, 0
            self.updated_at = "2026-01-01T00:00:00Z"

    assert [i.id for i in rank([Bare("L-0002"), Item("U-0001", level="user"), Bare("L-0001")])] == [
        "L-0001",
        "L-0002",
        "U-0001",
    ]


def test_a_nan_half_life_falls_back_to_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ranking.HALF_LIFE_ENV, "nan")
    assert ranking.half_life_days() == ranking.DEFAULT_HALF_LIFE_DAYS


def test_specificity_orders_exact_file_then_narrow_then_broad_globs() -> None:
    path = "services/billing/app/invoices/rounding.py"
    globs = [
        path,
        "services/billing/app/invoices/**",
        "services/billing/**",
        "services/**/*.py",
        "**/*.py",
    ]
    scores = [ranking.glob_specificity(glob, path) for glob in globs]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    assert scores[0] == 1.0 and scores[-1] == ranking.MIN_SPECIFICITY


def test_any_match_is_worth_something_even_everywhere() -> None:
    assert ranking.glob_specificity("**", "a/b/c.py") == ranking.MIN_SPECIFICITY
    assert ranking.glob_specificity("a/b/c.py/", "a/b/c.py") == 1.0  # slashes do not matter


_STAMPS = st.lists(
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2026, 6, 30)).map(
        lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")
    ),
    max_size=30,
)


@given(stamps=_STAMPS, life=st.sampled_from([0.0, 0.5, 1.0, 30.0, 180.0, 3650.0]))
def test_a_digest_scores_votes_as_their_stamps_do(stamps: list[str], life: float) -> None:
    """The index ranks by the digest; it must give the score the stamps give."""
    scorer = VoteScorer(NOW, life)
    count, newest, decayed = ranking.digest(stamps, life)
    assert count == len(stamps)
    if not stamps:
        return
    assert scorer.digested(count, newest, decayed, life) == pytest.approx(
        scorer(stamps), rel=1e-12, abs=1e-300
    )


def test_a_digest_declines_what_it_cannot_answer_exactly() -> None:
    count, newest, decayed = ranking.digest([DAY_BEFORE], 180.0)
    assert VoteScorer(NOW, 30.0).digested(count, newest, decayed, 180.0) is None  # other life
    future = ranking.digest(["2026-07-02T00:00:00Z", DAY_BEFORE], 180.0)
    assert VoteScorer(NOW, 180.0).digested(*future, 180.0) is None  # a vote after "now"
    assert VoteScorer(NOW, 180.0).digested(count, newest, decayed, 180.0) == pytest.approx(
        vote_score([DAY_BEFORE], NOW, 180.0)
    )
