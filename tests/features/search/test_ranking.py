"""Search that trusts the text match: the cases the first version ranked wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.testing import CliRunner


def add(orbit: CliRunner, summary: str, *args: str) -> str:
    outcome = orbit("learning", "add", "--summary", summary, "--force", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def search(orbit: CliRunner, *words: str) -> list[dict[str, Any]]:
    outcome = orbit("learning", "search", *words, "--json")
    assert outcome.code == 0, outcome.err
    results: list[dict[str, Any]] = outcome.json()["results"]
    return results


def upvote(orbit: CliRunner, learning_id: str, times: int) -> None:
    for n in range(times):
        orbit("learning", "upvote", "--id", learning_id, "--model", "m", "--task", f"T{n}")


def distractors(orbit: CliRunner) -> None:
    """Popular learnings that share a word or two with the queries below."""
    popular = add(orbit, "Every migration must have a reversible downgrade", "--tag", "database")
    upvote(orbit, popular, 8)
    other = add(orbit, "Sequence diagrams live in docs/architecture", "--tag", "docs")
    upvote(orbit, other, 6)
    add(orbit, "Log the value of feature flags at startup", "--tag", "ops")


def test_a_pasted_error_finds_its_answer_over_popular_partial_matches(
    workspace: Path, orbit: CliRunner
) -> None:
    distractors(orbit)
    answer = add(
        orbit,
        "Widen serial primary keys to bigint before they run out",
        "--tag",
        "postgres",
        "--body",
        'Inserts failed with nextval: reached maximum value of sequence "orders_id_seq"'
        " (2147483647). Migrate the column and its sequence to bigint early.",
    )
    pasted = (
        "2026-11-20 03:14:07 UTC [4312] ERROR:  nextval: reached maximum value of sequence "
        '"invoices_id_seq" (2147483647)\nSTATEMENT:  INSERT INTO invoices (customer_id) VALUES ($1)'
    )
    results = search(orbit, pasted)
    assert results[0]["id"] == answer


def test_a_part_of_a_pasted_message_gets_its_phrase_chance(
    workspace: Path, orbit: CliRunner
) -> None:
    distractors(orbit)
    answer = add(
        orbit,
        "Size memory requests from the p99 working set",
        "--tag",
        "kubernetes",
        "--body",
        "Pods were OOMKilled (exit code 137) under the nightly export.",
    )
    results = orbit(
        "learning",
        "search",
        "workers-7d9f8b6c4-x2x9z OOMKilled Exit Code: 137",
        "--json",
        "--explain",
    ).json()["results"]
    assert results[0]["id"] == answer
    assert results[0]["explain"]["tier"] in ("phrase", "part")


def test_a_typo_finds_the_word_it_meant(workspace: Path, orbit: CliRunner) -> None:
    distractors(orbit)
    answer = add(orbit, "Webhook handlers dedupe on an idempotency key", "--tag", "api")
    assert search(orbit, "idempotncy")[0]["id"] == answer
    assert search(orbit, "webhok idempotncy keys")[0]["id"] == answer


def test_an_acronym_finds_the_long_form_and_back(workspace: Path, orbit: CliRunner) -> None:
    distractors(orbit)
    long_form = add(
        orbit, "Every Deployment with replicas needs a PodDisruptionBudget", "--tag", "k8s"
    )
    short = add(orbit, "Route failed jobs to the DLQ after five attempts", "--tag", "workers")
    assert search(orbit, "PDB")[0]["id"] == long_form
    assert search(orbit, "dead letter queue")[0]["id"] == short


def test_the_team_glossary_adds_its_own_aliases(workspace: Path, orbit: CliRunner) -> None:
    answer = add(orbit, "The ledger service is the source of record for balances", "--tag", "x")
    assert search(orbit, "SOR") == []
    (workspace / ".orbit/glossary.yaml").write_text("SOR: [source of record]\n")
    assert search(orbit, "SOR")[0]["id"] == answer


def test_a_broken_glossary_is_a_clear_error(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "Anything", "--tag", "x")
    (workspace / ".orbit/glossary.yaml").write_text("SOR: {nested: map}\n")
    outcome = orbit("learning", "search", "anything")
    assert outcome.code != 0 and "glossary.yaml" in outcome.err and "Traceback" not in outcome.err
    (workspace / ".orbit/glossary.yaml").write_text("SOR: [unclosed\n")
    outcome = orbit("learning", "search", "anything")
    assert outcome.code != 0 and ".orbit/glossary.yaml:" in outcome.err


def test_an_unanswerable_question_shows_the_closest_marked_weak(
    workspace: Path, orbit: CliRunner
) -> None:
    distractors(orbit)
    add(orbit, "Celery tasks scheduled days ahead lose their eta", "--tag", "workers")
    outcome = orbit("learning", "search", "how many vacation days do engineers get")
    assert outcome.code == 0 and "no confident match" in outcome.err
    lines = outcome.out.strip().splitlines()
    assert 1 <= len(lines) <= 3
    assert all(f"{line.split(chr(9))[0]} 0." in outcome.err for line in lines)  # each named weak
    weak = orbit("learning", "search", "how many vacation days do engineers get", "--weak")
    assert weak.code == 0 and len(weak.out.strip().splitlines()) >= len(lines)
    data = orbit("learning", "search", "vacation days engineers", "--json").json()
    results = data["results"]
    assert results and data["no_confident_match"] is True
    assert all(r["confident"] is False and "match_confidence" in r for r in results)


def test_every_result_carries_its_match_confidence(workspace: Path, orbit: CliRunner) -> None:
    distractors(orbit)
    results = search(orbit, "reversible downgrade migration")
    assert results and all(0.0 <= float(r["match_confidence"]) <= 1.0 for r in results)


def test_the_field_lexicon_finds_the_other_name_of_a_thing(
    workspace: Path, orbit: CliRunner
) -> None:
    """Two ways engineers name one thing, without the semantic extra: the learning says
    "daylight saving" and "timezone", the question "DST" and "time zone"."""
    distractors(orbit)
    answer = add(
        orbit,
        "Reports shift by an hour twice a year",
        "--tag",
        "reports",
        "--body",
        "Daylight saving changes moved the daily cut-off; use the account's timezone.",
    )
    add(orbit, "Keep report queries under the statement timeout", "--tag", "reports")
    assert search(orbit, "DST bug")[0]["id"] == answer
    assert search(orbit, "wrong time zone in the daily cutoff")[0]["id"] == answer
