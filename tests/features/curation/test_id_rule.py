"""Whose ID wins: the learning published on the target branch keeps it, the newcomer moves.

Tried as a new user would: merging `main` into a feature branch where both added `L-0002`,
`resolve-conflict` once kept the branch's learning as `L-0002` and renumbered the published
one, so every vote, link and citation of `main`'s `L-0002` pointed at a different lesson.
Two real clones of one origin, real merges.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.testing import git, orbit_in_process


def orbit(repo: Path, *args: str) -> Any:
    outcome = orbit_in_process(*args, "--json", cwd=repo)
    assert outcome.code == 0, outcome.err
    return json.loads(outcome.out)


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """`origin` (developer A works on its main) and `clone` (developer B's feature branch)."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    assert orbit_in_process("init", cwd=origin).code == 0
    orbit(origin, "learning", "add", "--summary", "Base lesson", "--tag", "base")
    commit(origin, "base")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-qb", "feature")
    return origin, clone


def publish_on_main(origin: Path) -> None:
    orbit(origin, "learning", "add", "--summary", "Main: money is integer cents", "--tag", "money")
    orbit(origin, "learning", "upvote", "--id", "L-0002", "--model", "claude", "--task", "MAIN-1")
    commit(origin, "main publishes L-0002")


def branch_adds(clone: Path) -> None:
    orbit(clone, "learning", "add", "--summary", "Branch: retry flaky redis once", "--tag", "ci")
    orbit(clone, "learning", "add", "--summary", "Branch: use the redis fixture", "--tag", "ci")
    orbit(clone, "learning", "supersede", "L-0002", "--with", "L-0003")
    orbit(clone, "learning", "upvote", "--id", "L-0002", "--model", "codex", "--task", "BR-1")
    orbit(clone, "learning", "feedback", "L-0002", "--helpful", "--task", "BR-2")
    commit(clone, "branch adds L-0002 and L-0003")


def merge_main_into_feature(clone: Path) -> None:
    git(clone, "fetch", "-q", "origin")
    merged = subprocess.run(
        ["git", "merge", "-q", "origin/main"], cwd=clone, capture_output=True, text=True
    )
    assert merged.returncode != 0, "expected an add/add conflict on L-0002"


def test_merging_main_keeps_mains_learning_under_its_id(team: tuple[Path, Path]) -> None:
    origin, clone = team
    publish_on_main(origin)
    branch_adds(clone)
    merge_main_into_feature(clone)

    result = orbit(clone, "learning", "resolve-conflict", "L-0002")
    assert result["kept"] == "L-0002" and result["kept_side"] == "theirs"
    assert "published on origin/main" in result["reason"]
    moved = result["new"]
    assert moved == "L-0004" and result["relinked"] == ["L-0003"]

    kept = orbit(clone, "learning", "show", "L-0002")
    assert kept["summary"] == "Main: money is integer cents"
    assert [v["task_id"] for v in kept["votes"]] == ["MAIN-1"]
    assert kept["superseded_by"] is None
    newcomer = orbit(clone, "learning", "show", moved)
    assert newcomer["summary"] == "Branch: retry flaky redis once"
    assert [v["task_id"] for v in newcomer["votes"]] == ["BR-1"]
    assert newcomer["superseded_by"] == "L-0003"
    assert orbit(clone, "learning", "show", "L-0003")["supersedes"] == moved
    feedback = (clone / f".orbit/learnings/{moved}/feedback.jsonl").read_text()
    assert "BR-2" in feedback and f'"learning_id": "{moved}"' in feedback
    assert not (clone / ".orbit/learnings/L-0002/feedback.jsonl").read_text().strip()
    assert orbit_in_process("learning", "check", cwd=clone).code == 0

    commit(clone, "merge main")
    git(origin, "pull", "-q", "--no-rebase", str(clone), "feature")  # the pull request lands
    published = origin / ".orbit/learnings/L-0002/learning.yaml"
    assert git(origin, "log", "--format=%s", "--", str(published)).splitlines() == [
        "main publishes L-0002"
    ]  # the published learning's file was never rewritten by the branch


def test_renumber_refuses_the_published_learning(team: tuple[Path, Path]) -> None:
    _, clone = team
    git(clone, "fetch", "-q", "origin")
    refused = orbit_in_process("learning", "renumber", "L-0001", cwd=clone)
    assert refused.code == 1 and "published on origin/main" in refused.err
    assert "Traceback" not in refused.err
    assert (clone / ".orbit/learnings/L-0001/learning.yaml").exists()
    assert orbit(clone, "learning", "renumber", "L-0001", "--force")["new"] == "L-0002"


def test_check_base_names_the_branch_newcomer_and_renumber_follows_the_rule(
    team: tuple[Path, Path],
) -> None:
    origin, clone = team
    publish_on_main(origin)
    branch_adds(clone)
    git(clone, "fetch", "-q", "origin")
    outcome = orbit_in_process("learning", "check", "--base", "origin/main", "--json", cwd=clone)
    (problem,) = json.loads(outcome.out)["problems"]
    assert problem["id"] == "L-0002" and "published one keeps its ID" in problem["message"]
    assert orbit(clone, "learning", "renumber", "L-0002")["new"] == "L-0004"
    assert orbit_in_process("learning", "check", "--base", "origin/main", cwd=clone).code == 0


def test_one_learning_edited_on_both_branches_is_not_split(team: tuple[Path, Path]) -> None:
    origin, clone = team
    orbit(origin, "learning", "update", "L-0001", "--summary", "Main says this")
    commit(origin, "main edits")
    orbit(clone, "learning", "update", "L-0001", "--summary", "Branch says that")
    commit(clone, "branch edits")
    merge_main_into_feature(clone)
    refused = orbit_in_process("learning", "resolve-conflict", "L-0001", cwd=clone)
    assert refused.code == 1 and "one learning edited on both branches" in refused.err
    assert not (clone / ".orbit/learnings/L-0002").exists()
