"""Parallel branches without a hand edit of YAML (issue 36, items 1-3).

Tried as a new user would, with real clones of one origin and real `orbit` processes:
`renumber` picked an ID the target branch already had, so `check --base`'s advice had to
be followed twice; a supersede race left a link no command could repair; `git merge
--abort` after `resolve-conflict` left the new bundle untracked; during a rebase the
advice was to commit.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.testing import git, run_orbit


def orbit(repo: Path, *args: str) -> dict:
    outcome = run_orbit(*args, "--json", cwd=repo)
    assert outcome.code == 0, outcome.err
    return json.loads(outcome.out)


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
    assert run_orbit("init", cwd=main).code == 0
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
    assert run_orbit("learning", "check", "--base", "origin/main", cwd=branch).code == 0


def test_following_check_base_advice_once_is_enough(team: tuple[Path, Path]) -> None:
    main, branch = team
    assert add(branch, "Use the redis fixture in tests", "ci") == "L-0003"
    commit(branch, "branch adds L-0003")
    add(main, "Retry the ledger export once", "billing")
    add(main, "The cache key includes the locale", "cache")
    commit(main, "main publishes L-0003 and L-0004")
    git(branch, "fetch", "-q", "origin")

    failed = run_orbit("learning", "check", "--base", "origin/main", cwd=branch)
    assert failed.code == 1
    (advice,) = hints(failed.out + failed.err)
    assert advice == ["learning", "renumber", "L-0003"]
    renumbered = run_orbit(*advice, cwd=branch)
    assert renumbered.code == 0, renumbered.err
    assert "L-0003 is now L-0005" in renumbered.err + renumbered.out
    checked = run_orbit("learning", "check", "--base", "origin/main", cwd=branch)
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
    failed = run_orbit("learning", "check", "--base", "origin/develop", cwd=branch)
    (advice,) = hints(failed.out + failed.err)
    assert advice == ["learning", "renumber", "L-0003", "--target", "origin/develop"]
    assert run_orbit(*advice, cwd=branch).code == 0
    assert run_orbit("learning", "check", "--base", "origin/develop", cwd=branch).code == 0
