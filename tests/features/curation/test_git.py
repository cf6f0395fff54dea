"""Git hooks and merge safety, with real repositories: two developers, two branches, a merge."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.testing import ORBIT_BIN, git, orbit_in_process

USER_HOOK = '#!/bin/sh\n# the team\'s own hook\necho user-hook-ran >> "$(git rev-parse --show-toplevel)/hook.log"\n'


@pytest.fixture
def orbit_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git runs hooks through the shell: make the installed `orbit` findable."""
    monkeypatch.setenv("PATH", f"{ORBIT_BIN.parent}{os.pathsep}{os.environ['PATH']}")


def orbit(repo: Path, *args: str) -> Any:
    outcome = orbit_in_process(*args, cwd=repo)
    assert outcome.code == 0, outcome.err
    return json.loads(outcome.out) if "--json" in args else outcome.out


def hooks_dir(repo: Path) -> Path:
    return (repo / git(repo, "rev-parse", "--git-path", "hooks").strip()).resolve()


def test_install_chains_and_uninstall_restores_byte_for_byte(git_repo: Path) -> None:
    hooks = hooks_dir(git_repo)
    hooks.mkdir(parents=True, exist_ok=True)
    user = hooks / "post-merge"
    user.write_text(USER_HOOK)
    user.chmod(0o750)
    orbit(git_repo, "hooks", "install")
    assert "orbit-learnings hook" in user.read_text()
    assert (hooks / "post-merge.orbit-chained").read_text() == USER_HOOK
    for name in ("post-checkout", "post-rewrite", "pre-commit"):
        assert os.access(hooks / name, os.X_OK)
    assert "already there" in orbit(git_repo, "hooks", "install")  # idempotent
    orbit(git_repo, "hooks", "uninstall")
    assert user.read_text() == USER_HOOK
    assert stat.S_IMODE(user.stat().st_mode) == 0o750
    assert not (hooks / "post-merge.orbit-chained").exists()
    assert not (hooks / "pre-commit").exists()


def test_hooks_go_where_git_says(git_repo: Path) -> None:
    git(git_repo, "config", "core.hooksPath", ".githooks")
    orbit(git_repo, "hooks", "install")
    assert (git_repo / ".githooks/post-checkout").exists()


def test_post_checkout_refreshes_the_index_and_chains(git_repo: Path, orbit_on_path: None) -> None:
    hooks = hooks_dir(git_repo)
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "post-checkout").write_text(USER_HOOK)
    (hooks / "post-checkout").chmod(0o755)
    orbit(git_repo, "hooks", "install")
    orbit(git_repo, "learning", "add", "--summary", "on main", "--tag", "t")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "one")
    git(git_repo, "checkout", "-qb", "feature")
    orbit(git_repo, "learning", "update", "L-0001", "--summary", "on feature")
    git(git_repo, "commit", "-qam", "two")
    orbit(git_repo, "learning", "list")  # index now says "on feature"
    git(git_repo, "checkout", "-q", "main")
    # Read the index directly: the hook, not a read, must have refreshed it.
    conn = sqlite3.connect(git_repo / ".orbit/state/index.sqlite3")
    assert conn.execute("SELECT summary FROM learnings_index").fetchone()[0] == "on main"
    assert "user-hook-ran" in (git_repo / "hook.log").read_text()


def test_pre_commit_blocks_an_invalid_learning_only(git_repo: Path, orbit_on_path: None) -> None:
    orbit(git_repo, "hooks", "install")
    orbit(git_repo, "learning", "add", "--summary", "fine", "--tag", "t")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "valid learning")
    path = git_repo / ".orbit/learnings/L-0001/learning.yaml"
    path.write_text(path.read_text().replace("priority: 0", "priority: high"))
    git(git_repo, "add", "-A")
    blocked = subprocess.run(
        ["git", "commit", "-qm", "bad"], cwd=git_repo, capture_output=True, text=True
    )
    assert blocked.returncode != 0
    assert "priority must be an integer" in blocked.stdout + blocked.stderr
    git(git_repo, "reset", "-q", "--hard")
    (git_repo / "other.txt").write_text("unrelated")
    path.write_text(path.read_text().replace("priority: 0", "priority: high"))  # unstaged
    git(git_repo, "add", "other.txt")
    git(git_repo, "commit", "-qm", "unrelated change passes")


def two_developers(tmp_path: Path, origin: Path) -> Path:
    """A clone of `origin` standing for a second developer."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return clone


def test_add_add_conflict_resolves_into_two_learnings(git_repo: Path, tmp_path: Path) -> None:
    orbit(git_repo, "learning", "add", "--summary", "shared", "--tag", "t")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "base")
    clone = two_developers(tmp_path, git_repo)
    # Developer A (origin) and developer B (clone) both add a learning: both get L-0002.
    orbit(git_repo, "learning", "add", "--summary", "ours: use cents", "--tag", "money")
    orbit(git_repo, "learning", "upvote", "--id", "L-0002", "--model", "claude", "--task", "A-1")
    orbit(git_repo, "learning", "upvote", "--id", "L-0001", "--model", "claude", "--task", "A-2")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "A adds")
    orbit(clone, "learning", "add", "--summary", "theirs: retry flaky redis", "--tag", "testing")
    orbit(clone, "learning", "upvote", "--id", "L-0002", "--model", "codex", "--task", "B-1")
    orbit(clone, "learning", "upvote", "--id", "L-0001", "--model", "codex", "--task", "B-2")
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "B adds")
    git(git_repo, "fetch", "-q", str(clone), "main:incoming")
    merge = subprocess.run(
        ["git", "merge", "-q", "incoming"], cwd=git_repo, capture_output=True, text=True
    )
    assert merge.returncode != 0  # add/add conflict in L-0002/learning.yaml
    # votes.jsonl of L-0001 merged cleanly thanks to the union driver
    votes_1 = (git_repo / ".orbit/learnings/L-0001/votes.jsonl").read_text()
    assert "A-2" in votes_1 and "B-2" in votes_1
    listed = orbit_in_process("learning", "list", cwd=git_repo)
    assert "orbit learning resolve-conflict L-0002" in listed.err
    result = orbit(git_repo, "learning", "resolve-conflict", "L-0002", "--json")
    assert result["kept"] == "L-0002" and result["new"] == "L-0003"
    assert result["kept_side"] == "ours" and "published on main" in result["reason"]
    ours = orbit(git_repo, "learning", "show", "L-0002", "--json")
    theirs = orbit(git_repo, "learning", "show", "L-0003", "--json")
    assert ours["summary"] == "ours: use cents" and theirs["summary"] == "theirs: retry flaky redis"
    assert [v["task_id"] for v in ours["votes"]] == ["A-1"]
    assert [v["task_id"] for v in theirs["votes"]] == ["B-1"]
    assert orbit_in_process("learning", "check", cwd=git_repo).code == 0
    status = git(git_repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert "A  .orbit/learnings/L-0003/learning.yaml" in status  # staged: --abort would undo it
    assert all(line[1] == " " for line in status), status  # the conflict is marked resolved
    git(git_repo, "commit", "-qm", "merge")


def test_check_base_catches_a_collision_and_renumber_fixes_it(
    git_repo: Path, tmp_path: Path
) -> None:
    orbit(git_repo, "learning", "add", "--summary", "base", "--tag", "t")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "base")
    git(git_repo, "checkout", "-qb", "feature")
    orbit(git_repo, "learning", "add", "--summary", "feature lesson", "--tag", "t")
    orbit(git_repo, "learning", "add", "--summary", "replaces it", "--tag", "t")
    orbit(git_repo, "learning", "supersede", "L-0002", "--with", "L-0003")
    orbit(git_repo, "learning", "upvote", "--id", "L-0002", "--model", "m", "--task", "T")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "feature")
    git(git_repo, "checkout", "-q", "main")
    orbit(git_repo, "learning", "add", "--summary", "main lesson", "--tag", "t")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "main moves on")
    git(git_repo, "checkout", "-q", "feature")
    outcome = orbit_in_process("learning", "check", "--base", "main", "--json", cwd=git_repo)
    assert outcome.code == 1
    (problem,) = json.loads(outcome.out)["problems"]
    assert problem["kind"] == "collision" and "orbit learning renumber L-0002" in problem["message"]
    assert orbit(git_repo, "learning", "renumber", "L-0002", "--json") == {
        "version": 1,
        "old": "L-0002",
        "new": "L-0004",
    }
    moved = orbit(git_repo, "learning", "show", "L-0004", "--json")
    assert moved["summary"] == "feature lesson" and moved["superseded_by"] == "L-0003"
    assert moved["vote_count"] == 1
    assert orbit(git_repo, "learning", "show", "L-0003", "--json")["supersedes"] == "L-0004"
    assert orbit_in_process("learning", "check", "--base", "main", cwd=git_repo).code == 0
    assert orbit_in_process("learning", "check", cwd=git_repo).code == 0


def test_init_writes_union_merge_attributes(tmp_path: Path) -> None:
    orbit_in_process("init", cwd=tmp_path)
    assert "votes.jsonl merge=union" in (tmp_path / ".orbit/.gitattributes").read_text()


def test_random_ids(workspace: Path) -> None:
    (workspace / ".orbit/config.yaml").write_text("ids: random\n")
    ids = {
        json.loads(
            orbit_in_process(
                "learning", "add", "--summary", f"s{n}", "--tag", "t", "--json", cwd=workspace
            ).out
        )["id"]
        for n in range(5)
    }
    assert len(ids) == 5
    for learning_id in ids:
        body = learning_id.removeprefix("L-")
        assert len(body) >= 8 and any(c.isalpha() for c in body)
    shown = orbit_in_process("learning", "list", "--json", cwd=workspace)
    assert {r["id"] for r in json.loads(shown.out)["results"]} == ids
    (workspace / ".orbit/config.yaml").write_text("ids: weird\n")
    bad = orbit_in_process("learning", "add", "--summary", "s", "--tag", "t", cwd=workspace)
    assert bad.code == 1 and "ids must be one of" in bad.err
