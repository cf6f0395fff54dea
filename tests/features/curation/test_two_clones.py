"""Two developers, one bare remote: the whole team story of issue 36 (items 1-3), played with
real git (which runs the installed `orbit` as a process for its merge driver and hooks) and
the commands a developer types run in-process, following only what the tool says.

Alice works on `main`, Bob on branches. They add in parallel (same next ID), Bob renumbers
after `main` moved on, both supersede the same learning under the same new ID, Bob aborts a
merge halfway through resolving it and rebases instead. It ends with `check --base` green on
Bob's branch and `check` green on `main` after the merge, and no YAML edited by hand: the
test never writes a file under `.orbit/`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

from tests.testing import git, orbit_in_process

GIT_ENV = {**os.environ, "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"}


def orbit(repo: Path, *args: str) -> str:
    """Run orbit in `repo`; stdout and stderr together, as a person reads them."""
    done = orbit_in_process(*args, cwd=repo)
    assert done.code == 0, f"orbit {' '.join(args)}: {done.out}{done.err}"
    return done.out + done.err


def add(repo: Path, summary: str, tag: str) -> str:
    done = orbit_in_process(
        "learning", "add", "--summary", summary, "--tag", tag, "--json", cwd=repo
    )
    assert done.code == 0, done.err
    return str(json.loads(done.out)["id"])


def show(repo: Path, learning_id: str) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(orbit(repo, "learning", "show", learning_id, "--json"))
    return shown


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def advised(text: str) -> list[list[str]]:
    """The `orbit ...` commands a message advises."""
    return [shlex.split(c)[1:] for c in re.findall(r"`(orbit [^`]+)`", text)]


def conflicted(repo: Path, *command: str) -> None:
    done = subprocess.run(["git", *command], cwd=repo, capture_output=True, text=True, env=GIT_ENV)
    assert done.returncode != 0, f"git {' '.join(command)} should stop on a conflict"


def clean(repo: Path) -> bool:
    return not git(repo, "status", "--porcelain", "--untracked-files=all").strip()


def test_two_developers_never_edit_yaml_by_hand(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    alice, bob = tmp_path / "alice", tmp_path / "bob"

    # Alice starts the store and publishes it.
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    orbit(alice, "init")
    assert add(alice, "Amounts are integer minor units", "money") == "L-0001"
    assert add(alice, "Run migrations in one transaction", "db") == "L-0002"
    commit(alice, "learnings")
    git(alice, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), str(bob))
    for person in (alice, bob):
        orbit(person, "hooks", "install")  # the merge driver lives in each clone's .git/config

    # 1. Parallel adds; the base moves on; Bob follows check --base's advice once.
    git(bob, "checkout", "-qb", "bob/redis")
    assert add(bob, "Tests use the per-test Redis database", "ci") == "L-0003"
    commit(bob, "bob: redis")
    assert add(alice, "Retry the ledger export once", "billing") == "L-0003"
    assert add(alice, "The cache key includes the locale", "cache") == "L-0004"
    commit(alice, "alice: ledger, cache")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "fetch", "-q")
    failed = orbit_in_process("learning", "check", "--base", "origin/main", cwd=bob)
    assert failed.code == 1
    (renumber,) = advised(failed.out + failed.err)
    assert "L-0003 is now L-0005" in orbit(bob, *renumber)
    assert add(bob, "Flush Redis between test modules", "ci") == "L-0006"  # not L-0004
    commit(bob, "bob: renumbered, one more")
    orbit(bob, "learning", "check", "--base", "origin/main")
    git(bob, "push", "-q", "origin", "bob/redis")
    git(alice, "pull", "-q", "--no-rebase", "origin", "bob/redis")  # the pull request lands
    git(alice, "push", "-q", "origin", "main")
    orbit(alice, "learning", "check")

    # 2. A supersede race: both replace L-0001, both under the next ID, L-0007.
    git(bob, "fetch", "-q")
    git(bob, "checkout", "-qb", "bob/decimal", "origin/main")
    for person, summary in (
        (alice, "Amounts travel as integer cents"),
        (bob, "Amounts are Decimal"),
    ):
        assert add(person, summary, "money") == "L-0007"
        orbit(person, "learning", "supersede", "L-0001", "--with", "L-0007")
        commit(person, f"replace L-0001: {summary}")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "fetch", "-q")

    # 3. Bob merges, resolves, changes his mind: the abort leaves nothing behind.
    conflicted(bob, "merge", "origin/main")
    said = orbit(bob, "learning", "resolve-conflict", "L-0007")
    assert "`git merge --abort` undoes this too" in said
    git(bob, "merge", "--abort")
    assert clean(bob) and not (bob / ".orbit/learnings/L-0008").exists()

    # ... and rebases instead, continuing as the tool says.
    conflicted(bob, "rebase", "origin/main")
    said = orbit(bob, "learning", "resolve-conflict", "L-0007")
    assert "The other side is now L-0008" in said
    assert "dropped it" in said and "`git rebase --continue`" in said
    orbit(bob, "learning", "check")
    done = subprocess.run(
        ["git", "rebase", "--continue"], cwd=bob, capture_output=True, text=True, env=GIT_ENV
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert clean(bob)
    checked = orbit_in_process("learning", "check", "--base", "origin/main", cwd=bob)
    assert checked.code == 0, checked.out + checked.err
    assert show(bob, "L-0007")["summary"] == "Amounts travel as integer cents"  # Alice's: published
    assert show(bob, "L-0008")["summary"] == "Amounts are Decimal"
    assert show(bob, "L-0001")["superseded_by"] == "L-0007"

    # Bob's second thought: his replacement should win. One command, both sides.
    orbit(bob, "learning", "update", "L-0008", "--supersedes", "L-0001")
    assert show(bob, "L-0001")["superseded_by"] == "L-0008"
    assert show(bob, "L-0007")["supersedes"] is None
    commit(bob, "bob: Decimal replaces L-0001")
    orbit(bob, "learning", "check", "--base", "origin/main")
    git(bob, "push", "-q", "origin", "bob/decimal")
    git(alice, "pull", "-q", "--no-rebase", "origin", "bob/decimal")
    orbit(alice, "learning", "check")
    ids = sorted(p.name for p in (alice / ".orbit/learnings").iterdir() if p.is_dir())
    assert ids == [f"L-{n:04d}" for n in range(1, 9)]
