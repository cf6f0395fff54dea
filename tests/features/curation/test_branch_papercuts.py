"""Parallel branches without a hand edit of YAML (issue 36, items 1-3).

Tried as a new user would, with real clones of one origin and git running `orbit` as a
process wherever it calls it (the merge driver); the commands a user types run in-process:
`renumber` picked an ID the target branch already had, so `check --base`'s advice had to
be followed twice; a supersede race left a link no command could repair; `git merge
--abort` after `resolve-conflict` left the new bundle untracked; during a rebase the
advice was to commit.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.testing import git, orbit_in_process

GIT_ENV = {**os.environ, "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"}


def orbit(repo: Path, *args: str) -> dict[str, Any]:
    outcome = orbit_in_process(*args, "--json", cwd=repo)
    assert outcome.code == 0, outcome.err
    found: dict[str, Any] = json.loads(outcome.out)
    return found


def add(repo: Path, summary: str, tag: str = "team") -> str:
    return str(orbit(repo, "learning", "add", "--summary", summary, "--tag", tag)["id"])


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def hints(text: str) -> list[list[str]]:
    """Every `orbit ...` command a message advises, as arguments."""
    return [shlex.split(c)[1:] for c in re.findall(r"`(orbit [^`]+)`", text)]


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """`main` (the origin, developer A) with L-0001 and L-0002; `branch` (developer B's
    clone, on a feature branch)."""
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q", "-b", "main")
    assert orbit_in_process("init", cwd=main).code == 0
    add(main, "Money is integer cents", "money")
    add(main, "Run migrations in a transaction", "db")
    commit(main, "base")
    branch = tmp_path / "branch"
    git(tmp_path, "clone", "-q", str(main), str(branch))
    git(branch, "checkout", "-qb", "feature")
    return main, branch


# --- 1. IDs chosen against the target branch too ---------------------------------------


def test_add_after_fetch_skips_the_ids_the_target_branch_has(team: tuple[Path, Path]) -> None:
    main, branch = team
    add(main, "Retry the ledger export once", "billing")
    add(main, "The cache key includes the locale", "cache")
    commit(main, "main publishes L-0003 and L-0004")
    git(branch, "fetch", "-q", "origin")
    assert add(branch, "Use the redis fixture in tests", "ci") == "L-0005"
    assert orbit_in_process("learning", "check", "--base", "origin/main", cwd=branch).code == 0


def test_following_check_base_advice_once_is_enough(team: tuple[Path, Path]) -> None:
    main, branch = team
    assert add(branch, "Use the redis fixture in tests", "ci") == "L-0003"
    commit(branch, "branch adds L-0003")
    add(main, "Retry the ledger export once", "billing")
    add(main, "The cache key includes the locale", "cache")
    commit(main, "main publishes L-0003 and L-0004")
    git(branch, "fetch", "-q", "origin")

    failed = orbit_in_process("learning", "check", "--base", "origin/main", cwd=branch)
    assert failed.code == 1
    (advice,) = hints(failed.out + failed.err)
    assert advice == ["learning", "renumber", "L-0003"]
    renumbered = orbit_in_process(*advice, cwd=branch)
    assert renumbered.code == 0, renumbered.err
    assert "L-0003 is now L-0005" in renumbered.err + renumbered.out
    checked = orbit_in_process("learning", "check", "--base", "origin/main", cwd=branch)
    assert checked.code == 0, checked.err


def test_check_base_on_another_branch_advises_a_renumber_against_that_branch(
    team: tuple[Path, Path],
) -> None:
    main, branch = team
    git(main, "checkout", "-qb", "develop")
    add(main, "Retry the ledger export once", "billing")
    add(main, "The cache key includes the locale", "cache")
    commit(main, "develop has L-0003 and L-0004")
    add(branch, "Use the redis fixture in tests", "ci")
    commit(branch, "branch adds L-0003")
    git(branch, "fetch", "-q", "origin")
    failed = orbit_in_process("learning", "check", "--base", "origin/develop", cwd=branch)
    (advice,) = hints(failed.out + failed.err)
    assert advice == ["learning", "renumber", "L-0003", "--target", "origin/develop"]
    assert orbit_in_process(*advice, cwd=branch).code == 0
    assert orbit_in_process("learning", "check", "--base", "origin/develop", cwd=branch).code == 0


# --- 2 and 3. a supersede race, resolved; abort and rebase ------------------------------


def supersede_race(main: Path, branch: Path) -> None:
    """Both developers replace L-0001 with a learning of their own, each as L-0003."""
    assert orbit_in_process("hooks", "install", cwd=branch).code == 0  # the merge driver, per clone
    for repo, summary in (
        (main, "Amounts travel as integer minor units"),
        (branch, "Amounts are Decimal with two places"),
    ):
        new_id = add(repo, summary, "money")
        assert new_id == "L-0003"
        orbit(repo, "learning", "supersede", "L-0001", "--with", new_id)
        commit(repo, f"replace L-0001 with {summary}")
    git(branch, "fetch", "-q", "origin")


def stopped(branch: Path, *command: str) -> None:
    done = subprocess.run(
        ["git", *command], cwd=branch, capture_output=True, text=True, env=GIT_ENV
    )
    assert done.returncode != 0, f"expected a conflict on L-0003: {done.stdout}{done.stderr}"


def status(repo: Path) -> list[str]:
    return git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()


def test_a_supersede_race_is_resolved_without_a_one_sided_link(team: tuple[Path, Path]) -> None:
    main, branch = team
    supersede_race(main, branch)
    stopped(branch, "merge", "-q", "origin/main")

    resolved = orbit_in_process("learning", "resolve-conflict", "L-0003", cwd=branch)
    assert resolved.code == 0, resolved.err
    said = resolved.out + resolved.err
    assert "The other side is now L-0004" in said
    assert "L-0004.supersedes is L-0001 but L-0001.superseded_by is L-0003: dropped it" in said
    assert "`git commit`" in said and "`git merge --abort`" in said
    assert all(line[1] == " " for line in status(branch)), status(branch)  # all of it staged
    assert orbit(branch, "learning", "show", "L-0004")["supersedes"] is None
    checked = orbit_in_process("learning", "check", cwd=branch)
    assert checked.code == 0, checked.out + checked.err
    git(branch, "commit", "-q", "--no-edit")
    assert orbit_in_process("learning", "check", "--base", "origin/main", cwd=branch).code == 0


def test_resolve_conflict_can_take_the_link_over(team: tuple[Path, Path]) -> None:
    main, branch = team
    supersede_race(main, branch)
    stopped(branch, "merge", "-q", "origin/main")
    result = orbit(branch, "learning", "resolve-conflict", "L-0003", "--links", "take")
    (repair,) = result["links"]
    assert repair["action"] == "taken" and repair["holder"] == "L-0003"
    assert repair["alternative"] == "orbit learning update L-0003 --supersedes L-0001"
    assert orbit(branch, "learning", "show", "L-0001")["superseded_by"] == "L-0004"
    assert orbit(branch, "learning", "show", "L-0003")["supersedes"] is None
    assert orbit_in_process("learning", "check", cwd=branch).code == 0


def test_merge_abort_after_resolve_conflict_leaves_nothing_behind(
    team: tuple[Path, Path],
) -> None:
    main, branch = team
    supersede_race(main, branch)
    before = (branch / ".orbit/learnings/L-0003/learning.yaml").read_text()
    stopped(branch, "merge", "-q", "origin/main")
    assert orbit_in_process("learning", "resolve-conflict", "L-0003", cwd=branch).code == 0
    git(branch, "merge", "--abort")
    assert status(branch) == []  # no untracked L-0004/ waiting to be committed by mistake
    assert not (branch / ".orbit/learnings/L-0004").exists()
    assert (branch / ".orbit/learnings/L-0003/learning.yaml").read_text() == before


def test_during_a_rebase_the_advice_is_to_continue_the_rebase(team: tuple[Path, Path]) -> None:
    main, branch = team
    supersede_race(main, branch)
    stopped(branch, "rebase", "origin/main")
    resolved = orbit_in_process("learning", "resolve-conflict", "L-0003", cwd=branch)
    assert resolved.code == 0, resolved.err
    said = resolved.out + resolved.err
    assert "`git rebase --continue`" in said and "git commit" not in said
    done = subprocess.run(
        ["git", "rebase", "--continue"], cwd=branch, capture_output=True, text=True, env=GIT_ENV
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert orbit_in_process("learning", "check", "--base", "origin/main", cwd=branch).code == 0
    assert (
        orbit(branch, "learning", "show", "L-0003")["summary"]
        == "Amounts travel as integer minor units"
    )
