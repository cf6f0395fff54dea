"""The votes sidecar: union-merge duplicates count once, bad rows are located problems."""

from __future__ import annotations

import json
from pathlib import Path

from orbit_learnings.core.errors import Problem
from orbit_learnings.store import votes
from orbit_learnings.store.votes import Vote, parse_votes, read_votes


def row(voted_at: str = "2026-05-01T00:00:00Z", **changes: object) -> str:
    data = {
        "learning_id": "L-0001",
        "voter_model": "claude",
        "task_id": "T-1",
        "voted_at": voted_at,
    }
    return json.dumps({**data, **changes})


def test_a_union_merge_duplicate_counts_once_with_the_earliest_time() -> None:
    text = "\n".join(
        [row("2026-05-03T00:00:00Z"), row("2026-05-01T00:00:00Z"), row("2026-05-02T00:00:00Z")]
    )
    parsed, problems = parse_votes(text, "L-0001", "votes.jsonl")
    assert problems == []
    assert [v.voted_at for v in parsed] == ["2026-05-01T00:00:00Z"]


def test_model_and_task_are_stripped_before_deduplication() -> None:
    text = row(voter_model=" claude ", task_id="T-1 ") + "\n" + row()
    parsed, _ = parse_votes(text, "L-0001", "votes.jsonl")
    assert [(v.voter_model, v.task_id) for v in parsed] == [("claude", "T-1")]


def test_distinct_voters_are_sorted_by_time_then_model() -> None:
    text = "\n".join(
        [
            row("2026-05-02T00:00:00Z", voter_model="codex"),
            row("2026-05-01T00:00:00+02:00", voter_model="gemini"),
            row("2026-05-01T00:00:00+02:00", voter_model="claude"),
            row("2026-05-01T00:00:00Z", task_id="T-2"),
        ]
    )
    parsed, _ = parse_votes(text, "L-0001", "votes.jsonl")
    assert [(v.voter_model, v.task_id, v.voted_at) for v in parsed] == [
        ("claude", "T-1", "2026-04-30T22:00:00Z"),
        ("gemini", "T-1", "2026-04-30T22:00:00Z"),
        ("claude", "T-2", "2026-05-01T00:00:00Z"),
        ("codex", "T-1", "2026-05-02T00:00:00Z"),
    ]


def test_each_bad_row_is_a_problem_at_its_line_and_good_rows_still_count() -> None:
    lines = [
        row(),
        "",
        '{"learning_id": "L-0001"',
        "[1, 2]",
        row(task_id=" "),
        row(learning_id="L-0002"),
        row("last tuesday"),
        row(voter_model="codex"),
    ]
    parsed, problems = parse_votes("\n".join(lines), "L-0001", "v.jsonl")
    assert len(parsed) == 2
    assert [(p.line, p.kind, p.id, p.file) for p in problems] == [
        (n, "votes", "L-0001", "v.jsonl") for n in (3, 4, 5, 6, 7)
    ]
    assert [p.message for p in problems] == [
        "invalid JSON in vote row: Expecting ',' delimiter",
        "vote row must be a JSON object",
        "vote row needs a non-empty string 'task_id'",
        "vote row names L-0002, but the file belongs to L-0001",
        "vote row has an invalid voted_at timestamp",
    ]


def test_read_votes_without_a_file_is_empty(tmp_path: Path) -> None:
    assert read_votes(tmp_path, "L-0001", "v.jsonl") == ([], [])


def test_read_votes_reports_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "votes.jsonl").write_bytes(b"\xff\xfe\x00garbage\n")
    assert read_votes(tmp_path, "L-0001", "v.jsonl") == (
        [],
        [Problem("v.jsonl", 1, "votes file is not UTF-8 text", "L-0001", "votes")],
    )


def test_read_votes_parses_the_sidecar(tmp_path: Path) -> None:
    (tmp_path / "votes.jsonl").write_text(row() + "\n" + row() + "\n", encoding="utf-8")
    parsed, problems = read_votes(tmp_path, "L-0001", "v.jsonl")
    assert (len(parsed), problems) == (1, [])


def test_a_vote_round_trips_through_json() -> None:
    vote = Vote("L-0001", "claudé", "T-1", "2026-05-01T00:00:00Z")
    line = vote.to_json()
    assert "claudé" in line  # written as UTF-8, not \u escapes
    assert parse_votes(line, "L-0001", "v.jsonl") == ([vote], [])


def test_votes_are_equal_by_key_and_time() -> None:
    a = Vote("L-0001", "claude", "T-1", "2026-05-01T00:00:00Z")
    assert a == Vote("L-0001", "claude", "T-1", "2026-05-01T00:00:00Z")
    assert a != Vote("L-0001", "claude", "T-1", "2026-05-02T00:00:00Z")
    assert a != Vote("L-0001", "claude", "T-2", "2026-05-01T00:00:00Z")
    assert len({a, Vote("L-0001", "claude", "T-1", "2026-05-01T00:00:00Z")}) == 1


def test_summary_counts_votes_and_names_the_latest() -> None:
    parsed = [
        Vote("L-0001", "b", "T", "2026-05-03T00:00:00Z"),
        Vote("L-0001", "a", "T", "2026-05-01T00:00:00Z"),
    ]
    assert votes.summarise("L-0001", parsed).to_dict() == {
        "learning_id": "L-0001",
        "vote_count": 2,
        "last_voted_at": "2026-05-03T00:00:00Z",
    }
    assert votes.summarise("L-0001", []).to_dict()["last_voted_at"] is None
