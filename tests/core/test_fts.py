"""Free text to FTS5: user input is only ever searched for, never parsed as syntax."""

from __future__ import annotations

import sqlite3

import pytest

from orbit_learnings.core import fts


def test_terms_are_distinct_lower_case_and_drop_stop_words() -> None:
    assert fts.terms_of("How do I Cache the cache?") == ["cache"]


def test_only_stop_words_are_kept_when_nothing_else_is_left() -> None:
    assert fts.terms_of("what is the") == ["what", "is", "the"]


def test_terms_are_capped() -> None:
    words = " ".join(f"w{i}" for i in range(40))
    assert fts.terms_of(words) == [f"w{i}" for i in range(fts.MAX_TERMS)]


def test_no_words_means_no_tiers() -> None:
    assert fts.tiers_for("  !!  --  ") == []


def test_one_word_is_a_prefix_search() -> None:
    assert fts.tiers_for("Cache") == [fts.Tier("prefix", '"cache"*', 1.0)]


def test_one_content_word_among_stop_words_adds_the_phrase_first() -> None:
    assert [(t.name, t.expression) for t in fts.tiers_for("the cache")] == [
        ("phrase", '"the cache"'),
        ("prefix", '"cache"*'),
    ]


def test_several_words_rank_phrase_over_near_over_any() -> None:
    tiers = fts.tiers_for("flaky cache test")
    assert [t.name for t in tiers] == ["phrase", "near", "any"]
    assert [t.weight for t in tiers] == sorted((t.weight for t in tiers), reverse=True)
    assert tiers[1].expression == f'NEAR("flaky" "cache" "test", {fts.NEAR_WINDOW})'
    assert tiers[2].expression == '"flaky" OR "cache" OR "test"'


@pytest.fixture
def table() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    db.executemany(
        "INSERT INTO t(body) VALUES (?)",
        [("do NOT stand near the end",), ("caching is hard",), ("naïve café",)],
    )
    return db


@pytest.mark.parametrize(
    "hostile",
    [
        '"unbalanced',
        "AND OR NOT",
        "NEAR(a b)",
        "body:cache",
        "-x ^y *",
        "caf\u00e9 na\u00efve",
        "a'b",
    ],
)
def test_every_tier_is_valid_fts5_for_hostile_input(
    table: sqlite3.Connection, hostile: str
) -> None:
    for tier in fts.tiers_for(hostile):
        table.execute("SELECT rowid FROM t WHERE t MATCH ?", (tier.expression,)).fetchall()


def test_operator_words_are_searched_for_literally(table: sqlite3.Connection) -> None:
    (any_tier,) = [t for t in fts.tiers_for("NOT NEAR") if t.name == "any"]
    rows = table.execute("SELECT body FROM t WHERE t MATCH ?", (any_tier.expression,)).fetchall()
    assert rows == [("do NOT stand near the end",)]


def test_prefix_tier_matches_word_starts(table: sqlite3.Connection) -> None:
    (tier,) = fts.tiers_for("cach")
    rows = table.execute("SELECT body FROM t WHERE t MATCH ?", (tier.expression,)).fetchall()
    assert rows == [("caching is hard",)]


@pytest.mark.parametrize(("raw", "expected"), [(0.0, 0.0), (2.0, 0.0), (-1.0, 0.5), (-3.0, 0.75)])
def test_bm25_is_mapped_into_zero_one_higher_is_better(raw: float, expected: float) -> None:
    assert fts.normalise_bm25(raw) == pytest.approx(expected)


def test_stronger_bm25_always_scores_higher() -> None:
    scores = [fts.normalise_bm25(-x) for x in (0.1, 1.0, 10.0, 1000.0)]
    assert scores == sorted(scores) and all(0 < s < 1 for s in scores)
