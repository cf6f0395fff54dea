"""A CLI that forgives and guides: what a newcomer tripped over, each replayed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.testing import CliRunner, run_orbit


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


def test_a_mistyped_id_gets_a_suggestion(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "Lesson", "--tag", "t")
    for typed in ("l-0001", "L-001", "1", "L-0O01"):
        outcome = orbit("learning", "show", typed)
        assert outcome.code == 1 and "did you mean L-0001?" in outcome.err, typed
    update = orbit("learning", "update", "L-1", "--summary", "x")
    assert update.code == 1 and "did you mean L-0001?" in update.err
    far = orbit("learning", "show", "L-9999")
    assert far.code == 1 and "did you mean" not in far.err


def test_paths_are_read_from_the_current_folder_and_the_stored_form_shown(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "src/api").mkdir(parents=True)
    monkeypatch.chdir(workspace / "src")
    outcome = orbit(
        "learning",
        "add",
        "--summary",
        "A",
        "--path",
        "api/**",
        "--path",
        "*.py",
        "--path",
        f"{workspace}/docs/**",
        "--path",
        "../web/app/\\[slug\\]/**",
    )
    assert outcome.code == 0, outcome.err
    assert "--path *.py is stored as src/**/*.py" in outcome.err
    record = orbit("learning", "show", "L-0001", "--json").json()
    assert record["scope"]["paths"] == [
        "src/api/**",
        "src/**/*.py",
        "docs/**",
        "web/app/\\[slug\\]/**",
    ]
    assert [
        r["id"] for r in orbit("learning", "list", "--path", "api/x.py", "--json").json()["results"]
    ] == ["L-0001"]
    outside = orbit("learning", "add", "--summary", "B", "--path", "/etc/**")
    assert outside.code == 1 and "outside the workspace" in outside.err


def test_init_in_a_subfolder_of_a_repository_uses_its_root(
    tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.testing import git

    repo = tmp_path / "repo"
    (repo / "services/api").mkdir(parents=True)
    git(repo, "init", "-q")
    monkeypatch.chdir(repo / "services/api")
    outcome = orbit("init")
    assert outcome.code == 0 and (repo / ".orbit/learnings").is_dir()
    assert "orbit init --here" in outcome.out
    assert not (repo / "services/api/.orbit").exists()
    assert orbit("init", "--here").code == 0 and (repo / "services/api/.orbit").is_dir()


LONG = (
    "Postgres DDL is transactional, but CREATE INDEX CONCURRENTLY cannot run inside a "
    "transaction block, so migrations must split it out"
)


def test_a_terminal_80_columns_wide_shows_everything(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orbit_learnings.cli import output

    add(orbit, "--summary", LONG, "--path", "db/migrations/postgres/2026/**/*.sql", "--tag", "db")
    orbit("learning", "upvote", "L-0001", "--model", "m", "--task", "T")
    monkeypatch.setattr(output, "is_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", "80")
    for args in (["learning", "show", "L-0001"], ["learning", "list"], ["learning", "stats"]):
        out = orbit(*args).out
        assert all(len(line) <= 80 for line in out.splitlines()), args
        assert "…" not in out, args
        flat = " ".join(out.replace("│", " ").split())
        for word in ("CONCURRENTLY", "split", "out"):
            assert word in flat, (args, word)
    show = " ".join(orbit("learning", "show", "L-0001").out.replace("│", " ").split())
    assert LONG.split(", so")[0].replace(",", "") in show.replace(",", "")


def test_a_taken_dashboard_port_is_one_clear_line(workspace: Path) -> None:
    import socket

    from tests.testing import run_orbit

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        outcome = run_orbit("dashboard", "--port", str(port), cwd=workspace)
    assert outcome.code == 1
    assert outcome.err.startswith("orbit: error: cannot listen on 127.0.0.1:")
    assert outcome.err.count("\n") == 1 and "--port 0" in outcome.err
    assert "orbit dashboard: http" not in outcome.out  # no URL for a server that never ran


def test_mistyped_tags_and_commands_get_a_suggestion(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "Index every foreign key", "--tag", "database")
    missed = orbit("learning", "list", "--tag", "databse", "--json")
    assert missed.json() == {"version": 1, "results": []}  # stdout stays parseable
    assert "no learning has the tag 'databse'; did you mean 'database'?" in missed.err
    command = orbit("learning", "lsit")
    assert command.code == 2 and "Did you mean `orbit learning list`?" in command.err


@pytest.mark.parametrize("command", ["check", "list", "show", "add", "prune", "sync"])
def test_a_command_typed_at_the_wrong_level_names_where_it_is(
    workspace: Path, command: str
) -> None:
    outcome = run_orbit(command, cwd=workspace)
    assert outcome.code == 2 and outcome.out == ""
    assert outcome.err == (
        f"orbit: error: No such command '{command}'. Did you mean `orbit learning {command}`?\n"
    )


def test_a_suggestion_is_close_or_not_made(workspace: Path, orbit: CliRunner) -> None:
    from orbit_learnings.cli.suggest import closest
    from tests.testing import leaf_commands

    tree = [path for path in leaf_commands() if path[-1] not in {"archive", "restore"}]
    assert closest(tree, "archive", ("learning",)) is None  # difflib found 'search' 61 % alike
    assert closest(tree, "install", ("learning",)) == ("hooks", "install")
    assert closest(tree, "list", ("learning", "drafts")) == ("learning", "drafts", "list")
    assert closest(tree, "chekc", ()) == ("learning", "check")
    archive = orbit("learning", "archive")  # a usage error either way; never 'search'
    assert archive.code == 2 and "search" not in archive.err
    far = orbit("learning", "frobnicate")
    assert far.code == 2 and "Did you mean" not in far.err


def test_hook_help_answers_without_waiting_for_stdin(workspace: Path) -> None:
    """It once read stdin first (waiting on a terminal), then said "stdin is not JSON"."""
    import os
    import subprocess

    from tests.testing import ORBIT_BIN

    leader, terminal = os.openpty()  # a terminal that never sends end-of-file
    try:
        proc = subprocess.run(
            [str(ORBIT_BIN), "hook", "claude-code", "--help"],
            stdin=terminal,
            capture_output=True,
            text=True,
            cwd=workspace,
            timeout=60,  # reading stdin would wait until this runs out
        )
    finally:
        os.close(leader)
        os.close(terminal)
    assert proc.returncode == 0 and "Usage: orbit hook claude-code" in proc.stdout
    assert "not JSON" not in proc.stderr


def test_prune_says_archive_and_keeps_the_old_spelling_hidden(
    workspace: Path, orbit: CliRunner
) -> None:
    help_text = orbit("learning", "prune", "--help").out
    assert "--archive" in help_text and "--delete" not in help_text
    assert "--stale-only" not in help_text
    assert orbit("learning", "prune", "--delete", "--json").code == 0


def test_a_file_name_that_is_not_utf8_is_looked_up_but_never_written(
    workspace: Path, orbit: CliRunner
) -> None:
    """A Latin-1 `café.py` reaches argv as bytes that are not UTF-8: looking it up once
    failed with exit 3 (SQLite cannot bind it); writing it into a learning failed with
    "invalid YAML". Real processes, so the name arrives as those bytes."""
    latin1 = os.fsdecode(b"billing/caf\xe9.py")
    add(orbit, "--summary", "Cafe totals are in cents", "--path", "billing/caf*.py")
    for args in (["learning", "list", "--path"], ["search", "path"]):
        outcome = run_orbit(*args, latin1, "--json", cwd=workspace)
        assert outcome.code == 0, outcome.err
        found = json.loads(outcome.out)["results"]
        assert [(r["id"], r["matched_by"]) for r in found] == [
            ("L-0001", ["path:billing/caf\ufffd.py"])
        ]
    for flag in ("--path", "--summary"):
        args = ["--summary", "s", "--tag", "t", flag, latin1]
        refused = run_orbit("learning", "add", *args, cwd=workspace)
        field = "paths" if flag == "--path" else "summary"  # a second --summary wins
        assert refused.code == 2
        assert refused.err == f"orbit: error: {field}: 'billing/caf\\xe9.py' is not UTF-8 text\n"
    assert [p.name for p in (workspace / ".orbit/learnings").glob("L-*")] == ["L-0001"]


def test_the_hook_group_help_is_the_help(workspace: Path) -> None:
    """`orbit hook --help` once answered "no hook named '--help'" from the lean path."""
    outcome = run_orbit("hook", "--help", cwd=workspace)
    assert outcome.code == 0 and "Usage: orbit hook " in outcome.out
    assert "Example" in outcome.out and "no hook named" not in outcome.err


def test_a_tag_with_a_space_is_one_clear_line_and_nothing_written(
    workspace: Path, orbit: CliRunner
) -> None:
    refused = orbit("learning", "add", "--summary", "Index every foreign key", "--tag", "data base")
    assert refused.code == 2 and refused.out == ""
    assert refused.err == (
        "orbit: error: tag 'data base' has a space; a tag is one word (say 'data-base')\n"
    )
    assert not list((workspace / ".orbit/learnings").glob("L-*"))
    learning = add(orbit, "--summary", "Index every foreign key", "--tag", "database")
    before = (workspace / f".orbit/learnings/{learning}/learning.yaml").read_text()
    update = orbit("learning", "update", learning, "--tag", "two\twords")
    assert update.code == 2 and "has a space" in update.err
    assert (workspace / f".orbit/learnings/{learning}/learning.yaml").read_text() == before
