"""Staleness and `orbit learning prune`, against real git repositories."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.testing import CliRunner, git, run_orbit


def add(orbit: CliRunner, *args: str) -> str:
    outcome = orbit("learning", "add", "--summary", "lesson", "--force", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def stale(orbit: CliRunner) -> dict[str, list[str]]:
    outcome = orbit("learning", "prune", "--json")
    assert outcome.code == 0, outcome.err
    return {s["id"]: s["reasons"] for s in outcome.json()["stale"]}


def commit_all(repo: Path, message: str = "c") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_paths_gone_uses_git_files_not_a_tree_walk(git_repo: Path, orbit: CliRunner) -> None:
    (git_repo / "src").mkdir()
    (git_repo / "src/app.py").write_text("x")
    (git_repo / ".gitignore").write_text(".venv/\nbuild/\n")
    (git_repo / ".venv/lib").mkdir(parents=True)
    (git_repo / ".venv/lib/site.py").write_text("x")
    (git_repo / "build").mkdir()
    (git_repo / "build/out.js").write_text("x")
    (git_repo / "notes").mkdir()
    (git_repo / "notes/todo.md").write_text("untracked but not ignored")
    commit_all(git_repo)
    (git_repo / "notes/todo.md").unlink()
    (git_repo / "notes/draft.md").write_text("untracked, not ignored")
    add(orbit, "--path", "src/**")  # L-0001 live (tracked)
    add(orbit, "--path", ".venv/**")  # L-0002 only ignored files: stale
    add(orbit, "--path", "build/*.js")  # L-0003 only ignored files: stale
    add(orbit, "--path", "notes/*.md")  # L-0004 an untracked, unignored file counts
    add(orbit, "--tag", "process")  # L-0005 tags only: never stale by paths
    add(orbit, "--path", "gone/**", "--tag", "x")  # L-0006 stale even with tags
    assert stale(orbit) == {
        "L-0002": ["paths-gone"],
        "L-0003": ["paths-gone"],
        "L-0006": ["paths-gone"],
    }


def test_a_file_name_that_is_not_utf8_still_counts(git_repo: Path, orbit: CliRunner) -> None:
    """git prints names as the bytes they are: a Latin-1 `café.py` once failed the whole
    report with a UnicodeDecodeError (exit 3)."""
    latin1 = os.fsdecode(b"src/caf\xe9.py")  # not UTF-8: surrogate-escaped in Python
    (git_repo / "src").mkdir()
    (git_repo / latin1).write_text("x")
    commit_all(git_repo)
    add(orbit, "--path", "src/caf*.py")  # L-0001: only the Latin-1 file matches it
    add(orbit, "--path", "gone/**")  # L-0002: matches nothing
    assert stale(orbit) == {"L-0002": ["paths-gone"]}


def test_commit_evidence(git_repo: Path, orbit: CliRunner) -> None:
    (git_repo / "a.txt").write_text("a")
    on_main = commit_all(git_repo)
    git(git_repo, "checkout", "-qb", "side")
    (git_repo / "b.txt").write_text("b")
    on_side = commit_all(git_repo, "side")
    git(git_repo, "checkout", "-q", "main")
    add(orbit, "--tag", "t", "--evidence", f"commit={on_main}")
    add(orbit, "--tag", "t", "--evidence", f"commit={on_side}")
    add(orbit, "--tag", "t", "--evidence", "commit=deadbeefdeadbeef")
    add(orbit, "--tag", "t", "--evidence", "commit=deadbeef", "--evidence", f"commit={on_main[:8]}")
    assert stale(orbit) == {"L-0002": ["commits-gone"], "L-0003": ["commits-gone"]}


def test_task_evidence_needs_a_task_store(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--tag", "t", "--evidence", "task=T-1")
    assert stale(orbit) == {}  # no .orbit/tasks/: task evidence never makes a learning stale
    (workspace / ".orbit/tasks/T-2").mkdir(parents=True)
    assert stale(orbit) == {"L-0001": ["tasks-gone"]}
    (workspace / ".orbit/tasks/T-1").mkdir()
    assert stale(orbit) == {}


def test_only_active_learnings_are_candidates(git_repo: Path, orbit: CliRunner) -> None:
    add(orbit, "--path", "gone/**")
    add(orbit, "--path", "gone/**")
    orbit("learning", "supersede", "L-0001", "--with", "L-0002")
    assert stale(orbit) == {"L-0002": ["paths-gone"]}


def test_prune_reports_without_changing_and_delete_archives(
    git_repo: Path, orbit: CliRunner
) -> None:
    add(orbit, "--path", "gone/**")
    add(orbit, "--tag", "alive")
    before = (git_repo / ".orbit/learnings/L-0001/learning.yaml").read_text()
    report = orbit("learning", "prune", "--stale-only", "--json").json()
    assert report == {
        "version": 1,
        "stale": [{"id": "L-0001", "summary": "lesson", "reasons": ["paths-gone"], "renames": []}],
    }
    assert (git_repo / ".orbit/learnings/L-0001/learning.yaml").read_text() == before
    table = orbit("learning", "prune")
    assert "L-0001\tpaths-gone\tlesson" in table.out
    deleted = orbit("learning", "prune", "--archive", "--json").json()
    assert deleted["archived"] == ["L-0001"]
    assert "status: archived" in (git_repo / ".orbit/learnings/L-0001/learning.yaml").read_text()
    assert [r["id"] for r in orbit("learning", "list", "--json").json()["results"]] == ["L-0002"]
    assert [
        r["id"]
        for r in orbit("learning", "list", "--status", "archived", "--json").json()["results"]
    ] == ["L-0001"]
    assert orbit("learning", "inject", "--path", "gone/x", "--format", "json").json() == {
        "version": 1,
        "learnings": [],
    }
    assert orbit("learning", "search", "lesson", "--json").json()["results"][0]["id"] == "L-0002"
    old_spelling = orbit("learning", "prune", "--stale-only", "--delete", "--json")
    assert old_spelling.code == 0 and old_spelling.json()["archived"] == []  # already archived


def test_without_git_commit_evidence_is_skipped_with_one_note(
    workspace: Path, tmp_path: Path
) -> None:
    for commit in ("abc1234", "abc1235"):
        run_orbit(
            "learning",
            "add",
            "--summary",
            "s",
            "--tag",
            "t",
            "--evidence",
            f"commit={commit}",
            cwd=workspace,
        )
    empty_path = tmp_path / "bin"
    empty_path.mkdir()
    outcome = run_orbit("learning", "prune", "--json", cwd=workspace, env={"PATH": str(empty_path)})
    assert outcome.code == 0
    assert json.loads(outcome.out) == {"version": 1, "stale": []}
    assert outcome.err.count("commit evidence was not checked") == 1


@pytest.mark.parametrize("where", ["outside git"])
def test_outside_a_repository_the_file_tree_is_used(
    workspace: Path, orbit: CliRunner, where: str
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src/x.py").write_text("")
    add(orbit, "--path", "src/*.py")
    add(orbit, "--path", "lib/*.py")
    outcome = orbit("learning", "prune", "--json")
    assert {s["id"] for s in outcome.json()["stale"]} == {"L-0002"}
    assert "not a git repository" in outcome.err
