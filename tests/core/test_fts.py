"""Free text to FTS5: user input is only ever searched for, never parsed as syntax."""

from __future__ import annotations

import sqlite3

import pytest

from orbit_learnings.core import fts


def test_terms_are_distinct_lower_case_and_drop_stop_words() -> None:
    assert fts.terms_of("How do I Cache the cache?") == ["cache"]


def test_the_pieces_of_contractions_and_possessives_are_not_terms() -> None:
    """`player's` splits into player and s, `doesn't` into doesn and t: searched for, a
    stray letter matched every learning with a possessive in it, as much as a topic word."""
    assert fts.terms_of("The studio's build doesn't start, he said") == [
        "studio",
        "build",
        "start",
        "said",
    ]


def test_only_stop_words_are_kept_when_nothing_else_is_left() -> None:
    assert fts.terms_of("what is the") == ["what", "is", "the"]


def test_terms_are_capped() -> None:
    words = " ".join(f"w{i}" for i in range(40))
    assert fts.terms_of(words) == [f"w{i}" for i in range(fts.MAX_TERMS)]


def test_no_words_means_no_terms() -> None:
    assert fts.plan("  !!  --  ").terms == ()


def test_one_word_is_a_prefix_search() -> None:
    (term,) = fts.plan("Cache").terms
    assert term.expression() == '"cache"*'


def test_several_words_are_or_ed_and_tried_near_each_other() -> None:
    plan = fts.plan("flaky cache test")
    assert plan.any_expression() == '"flaky" OR "cache" OR "test"'
    assert plan.near_expression() == f'NEAR("flaky" "cache" "test", {fts.NEAR_WINDOW})'
    assert plan.phrases == ("flaky cache test",)


def test_a_pasted_error_tries_each_part_as_a_phrase() -> None:
    plan = fts.plan("OOMKilled Exit Code: 137 (pod billing-worker-7d9f8b6c4-x2x9z)")
    assert "oomkilled exit code" in plan.phrases
    assert plan.phrases[0].startswith("oomkilled exit code 137")


def test_hashes_and_pod_suffixes_are_not_terms_but_error_codes_are() -> None:
    words = [t.word for t in fts.plan("worker-7d9f8b6c4 error E0502 exit 137").terms]
    assert words == ["worker", "error", "e0502", "exit", "137"]


def test_glossary_widens_an_acronym_to_its_long_forms() -> None:
    from orbit_learnings.core.fts import Glossary

    (term,) = fts.plan("PDB", Glossary()).terms
    assert set(term.forms) == {"pdb", "poddisruptionbudget", "pod disruption budget"}


def test_glossary_turns_a_long_form_in_the_query_into_one_term() -> None:
    from orbit_learnings.core.fts import Glossary

    words = [t.word for t in fts.plan("add a pod disruption budget", Glossary()).terms]
    assert words == ["pod disruption budget", "add"]


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
    plan = fts.plan(hostile)
    expressions = [plan.any_expression(), plan.near_expression()]
    expressions += [plan.phrase_expression(p) for p in plan.phrases]
    for expression in filter(None, expressions):
        table.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)).fetchall()


def test_operator_words_are_searched_for_literally(table: sqlite3.Connection) -> None:
    expression = fts.plan("NOT NEAR").any_expression()
    rows = table.execute("SELECT body FROM t WHERE t MATCH ?", (expression,)).fetchall()
    assert rows == [("do NOT stand near the end",)]


def test_prefix_tier_matches_word_starts(table: sqlite3.Connection) -> None:
    expression = fts.plan("cach").any_expression()
    rows = table.execute("SELECT body FROM t WHERE t MATCH ?", (expression,)).fetchall()
    assert rows == [("caching is hard",)]


def test_glossary_groups_merge_when_they_share_a_member() -> None:
    glossary = fts.Glossary({"pg": ("postgres",)})
    glossary.extend({"psql": ("postgres", "postgresql")})
    assert glossary.group("pg") == {("pg",), ("postgres",), ("psql",), ("postgresql",)}


def test_a_noise_token_splits_a_phrase() -> None:
    assert "oomkilled exit code" in fts.phrases_of("api-7d9f8b6c4 OOMKilled Exit Code")


def test_a_teams_entries_never_reach_the_built_in_glossary_it_started_from() -> None:
    """The built-in groups are made once per process and shared: extending one glossary
    (a team's `.orbit/glossary.yaml`) must leave every other one as it was."""
    team = fts.Glossary()
    team.extend({"pdb": ["pod budget"], "blob": ["binary large object"]})
    assert ("pod", "budget") in team.group("pdb")
    assert team.group("blob")
    fresh = fts.Glossary()
    assert ("pod", "budget") not in fresh.group("pdb")
    assert fresh.group("pdb") == {
        ("pdb",),
        ("poddisruptionbudget",),
        ("pod", "disruption", "budget"),
    }
    assert not fresh.group("blob")
