"""The merge driver and git hooks in real repositories, with orbit off the PATH git sees.

Tried as a new user would: two edits of one learning always conflicted (both rewrite
`updated_at`); hooks installed from a venv did nothing because `orbit` was not on PATH,
while `doctor` said `[ok]`; the pre-commit hook checked the working tree, so a broken
file staged and then fixed only in the working copy was committed broken.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from orbit_learnings.integrations.base import DRY_RUN_ENV
from tests.testing import ORBIT_BIN, copy_of, git, isolate, orbit_in_process

BARE_PATH = "/usr/local/bin:/usr/bin:/bin"  # what a git GUI or a fresh shell has: no venv


@pytest.fixture(autouse=True)
def no_orbit_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git runs hooks and drivers with this PATH: the venv's `orbit` is not on it."""
    monkeypatch.setenv("PATH", BARE_PATH)
    assert subprocess.run(["sh", "-c", "command -v orbit"], capture_output=True).returncode != 0


def orbit(repo: Path, *args: str) -> Any:
    outcome = orbit_in_process(*args, "--json", cwd=repo)
    assert outcome.code == 0, outcome.err
    return json.loads(outcome.out)


def commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return subprocess.run(
        ["git", "commit", "-qm", message], cwd=repo, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once (four processes and a commit through the hooks); each test copies it."""
    root = tmp_path_factory.mktemp("template") / "repo"
    root.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("home"))
        mp.setenv("PATH", BARE_PATH)
        git(root, "init", "-q", "-b", "main")
        git(root, "config", "user.name", "Test")
        git(root, "config", "user.email", "test@example.com")
        assert orbit_in_process("init", cwd=root).code == 0
        assert orbit_in_process("hooks", "install", cwd=root).code == 0
        orbit(root, "learning", "add", "--summary", "Amounts are integer cents", "--path", "src/**")
        assert commit(root, "base").returncode == 0
    return root


@pytest.fixture
def repo(template: Path, tmp_path: Path) -> Path:
    return copy_of(template, tmp_path / "repo")


def learning_file(repo: Path, learning_id: str = "L-0001") -> Path:
    return repo / ".orbit/learnings" / learning_id / "learning.yaml"


def two_edits(
    repo: Path, ours: tuple[str, ...], theirs: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    git(repo, "checkout", "-qb", "feature")
    orbit(repo, "learning", "update", "L-0001", *theirs)
    assert commit(repo, "feature edits").returncode == 0
    git(repo, "checkout", "-q", "main")
    orbit(repo, "learning", "update", "L-0001", *ours)
    assert commit(repo, "main edits").returncode == 0
    return subprocess.run(
        ["git", "merge", "-q", "feature"], cwd=repo, capture_output=True, text=True
    )


def test_edits_of_different_fields_on_two_branches_merge_with_no_conflict(repo: Path) -> None:
    merged = two_edits(
        repo, ours=("--summary", "Money amounts are integer cents"), theirs=("--tag", "money")
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    shown = orbit(repo, "learning", "show", "L-0001")
    assert shown["summary"] == "Money amounts are integer cents"
    assert shown["scope"]["tags"] == ["money"]
    assert orbit_in_process("learning", "check", cwd=repo).code == 0
    assert line_merge_conflicts(repo), "git's own merge would have conflicted: the driver ran"


def line_merge_conflicts(repo: Path) -> bool:
    """What git's line merge makes of the same three versions (without the driver)."""
    relative = ".orbit/learnings/L-0001/learning.yaml"
    versions = []
    for rev in ("HEAD^1^", "HEAD^1", "HEAD^2"):
        version = repo.parent / f"{rev.replace('^', '_')}.yaml"
        version.write_text(git(repo, "show", f"{rev}:{relative}"))
        versions.append(str(version))
    base, ours, theirs = versions
    merged = subprocess.run(["git", "merge-file", "-p", ours, base, theirs], capture_output=True)
    return merged.returncode != 0


def test_one_field_changed_differently_is_one_conflict_check_names(repo: Path) -> None:
    merged = two_edits(
        repo,
        ours=("--summary", "Main: integer cents", "--priority", "2"),
        theirs=("--summary", "Feature: Decimal", "--tag", "money"),
    )
    assert merged.returncode != 0
    text = learning_file(repo).read_text()
    assert text.count("<<<<<<<") == 1 and "priority: 2" in text and "- money" in text
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if ln.startswith("<<<<<<<"))
    checked = orbit_in_process("learning", "check", "--json", cwd=repo)
    (problem,) = json.loads(checked.out)["problems"]
    assert problem["file"] == ".orbit/learnings/L-0001/learning.yaml"
    assert problem["line"] == line and problem["kind"] == "conflict"
    assert "summary of L-0001 was changed differently on both branches" in problem["message"]


def test_staged_broken_learning_is_refused_even_when_the_working_copy_is_fixed(
    repo: Path,
) -> None:
    path = learning_file(repo)
    good = path.read_text()
    path.write_text(good.replace("status: active", "status: wobbly"))
    git(repo, "add", str(path))
    path.write_text(good.replace("priority: 0", "priority: 1"))  # fixed, but not staged
    refused = subprocess.run(
        ["git", "commit", "-qm", "broken"], cwd=repo, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "status must be one of" in refused.stdout + refused.stderr
    git(repo, "add", str(path))
    assert subprocess.run(["git", "commit", "-qm", "fixed"], cwd=repo).returncode == 0


def test_doctor_runs_each_hook_and_says_why_one_cannot_reach_orbit(repo: Path) -> None:
    doctor = orbit_in_process("doctor", "--json", cwd=repo)
    checks = {c["name"]: c for c in json.loads(doctor.out)["checks"]}
    assert checks["git hook pre-commit"]["status"] == "ok"
    assert checks["merge driver"]["status"] == "ok"
    hooks = Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "hooks"
    pre_commit = hooks / "pre-commit"
    pre_commit.write_text(pre_commit.read_text().replace(str(ORBIT_BIN.parent), "/gone/venv/bin"))
    doctor = orbit_in_process("doctor", "--json", cwd=repo)
    broken = {c["name"]: c for c in json.loads(doctor.out)["checks"]}["git hook pre-commit"]
    assert broken["status"] == "fail" and "/gone/venv/bin" in broken["message"]
    dry = subprocess.run(
        [str(pre_commit)],
        cwd=repo,
        env={**os.environ, DRY_RUN_ENV: "1"},
        capture_output=True,
        text=True,
    )
    assert dry.returncode == 127 and "cannot run orbit" in dry.stderr


def test_a_fresh_clone_has_no_driver_and_doctor_says_so(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    doctor = orbit_in_process("doctor", "--json", cwd=clone)
    driver = {c["name"]: c for c in json.loads(doctor.out)["checks"]}["merge driver"]
    assert driver["status"] == "warn" and "orbit hooks install" in driver["message"]
    assert orbit_in_process("hooks", "install", cwd=clone).code == 0
    assert "merge-driver %O %A %B %P" in git(
        clone, "config", "--get", "merge.orbit-learning.driver"
    )
