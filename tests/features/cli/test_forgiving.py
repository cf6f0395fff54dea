"""A CLI that forgives and guides: what a newcomer tripped over, each replayed."""

from __future__ import annotations

from pathlib import Path

from tests.testing import CliRunner


def add(orbit: CliRunner, *args: str) -> str:
    outcome = orbit("learning", "add", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def test_upvote_takes_the_id_as_an_argument_and_says_when_it_already_counted(
    workspace: Path, orbit: CliRunner
) -> None:
    add(orbit, "--summary", "Lesson", "--tag", "t")
    first = orbit("learning", "upvote", "L-0001", "--model", "claude", "--task", "T-1")
    assert first.code == 0 and first.out == "L-0001: 1 vote\n"
    again = orbit("learning", "upvote", "--id", "L-0001", "--model", "claude", "--task", "T-1")
    assert again.code == 0 and "already counted for claude in T-1" in again.out
    assert orbit("learning", "upvote", "L-0001", "--model", "m", "--task", "T-1", "--json").json()[
        "added"
    ]
    clash = orbit("learning", "upvote", "L-0001", "--id", "L-0002", "--model", "m", "--task", "T")
    assert clash.code == 2 and "two IDs given" in clash.err
    missing = orbit("learning", "upvote", "--model", "m", "--task", "T")
    assert missing.code == 2 and "which learning?" in missing.err


def test_a_tag_written_as_the_table_prints_it_matches(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "Index every foreign key", "--tag", "#database")
    stored = (workspace / ".orbit/learnings/L-0001/learning.yaml").read_text()
    assert "- database" in stored and "#database" not in stored
    listed = orbit("learning", "list", "--tag", "#database", "--json").json()["results"]
    assert [r["id"] for r in listed] == ["L-0001"]
    assert [
        r["id"] for r in orbit("learning", "list", "--tag", "Database", "--json").json()["results"]
    ] == ["L-0001"]


def test_evidence_cites_prs_issues_urls_and_files(workspace: Path, orbit: CliRunner) -> None:
    add(
        orbit,
        "--summary",
        "Retry the upload once on 409",
        "--tag",
        "s3",
        "--evidence",
        "pr=412",
        "--evidence",
        "issue=ORB-7",
        "--evidence",
        "url=https://example.com/postmortem",
        "--evidence",
        "file=docs/incidents/2026-03.md",
    )
    record = orbit("learning", "show", "L-0001", "--json").json()
    assert [e["kind"] for e in record["evidence"]] == ["pr", "issue", "url", "file"]
    assert orbit("learning", "check").code == 0


def test_a_task_file_with_a_wrong_key_says_so(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    task = tmp_path / "task.yaml"
    task.write_text("files:\n  - src/a.py\ntags: [db]\n")
    outcome = orbit("learning", "inject", "--task-file", str(task))
    assert outcome.code == 0
    assert "ignored key(s) files (did you mean context_files?)" in outcome.err
