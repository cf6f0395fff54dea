"""A cloned repository never runs its own code through orbit.

Measured on main before the fix: every program orbit starts ran `python -m orbit_learnings`
with the repository as the current folder, and `-m` puts that folder first on `sys.path`,
so a committed `orbit_learnings/` package was imported instead of the installed one:
`hooks install` ran it four times in its dry-run check, then every `git checkout`; the merge
driver ran it on the next `git merge` touching a learning; the dashboard's staleness worker
ran it too. Each test plants such a package, which leaves a file behind when imported.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from orbit_learnings.curation.stalecache import StaleCache
from orbit_learnings.store.workspace import Workspace
from tests.testing import git, run_orbit

PLANTED = """\
import pathlib
pathlib.Path(__file__).resolve().parents[1].joinpath("PWNED").write_text("ran")
"""


def plant(repo: Path) -> Path:
    """A committed package named like orbit's; importing it writes `PWNED`."""
    package = repo / "orbit_learnings"
    package.mkdir()
    (package / "__init__.py").write_text(PLANTED)
    (package / "__main__.py").write_text(PLANTED)
    return repo / "PWNED"


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "cloned"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    pwned = plant(repo)
    assert run_orbit("init", cwd=repo).code == 0
    added = run_orbit(
        "learning", "add", "--summary", "Cents not floats", "--path", "a/**", cwd=repo
    )
    assert added.code == 0, added.err
    commit(repo, "base")
    return repo, pwned


def test_hooks_install_and_a_checkout_run_the_installed_package(hostile: tuple[Path, Path]) -> None:
    repo, pwned = hostile
    installed = run_orbit("hooks", "install", cwd=repo)
    assert installed.code == 0, installed.err
    git(repo, "checkout", "-qb", "topic")
    git(repo, "checkout", "-q", "main")
    doctor = run_orbit("doctor", cwd=repo)
    assert "git hook post-checkout" in doctor.out  # the dry runs did run
    assert not pwned.exists()


def test_the_merge_driver_runs_the_installed_package(hostile: tuple[Path, Path]) -> None:
    repo, pwned = hostile
    git(repo, "checkout", "-qb", "topic")
    assert run_orbit("learning", "update", "L-0001", "--tag", "money", cwd=repo).code == 0
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    assert run_orbit("learning", "update", "L-0001", "--path", "b/**", cwd=repo).code == 0
    commit(repo, "main")
    merged = subprocess.run(["git", "merge", "-q", "topic"], cwd=repo, capture_output=True)
    assert merged.returncode == 0, merged.stderr  # the driver merged field by field
    text = (repo / ".orbit/learnings/L-0001/learning.yaml").read_text()
    assert "money" in text and "b/**" in text
    assert not pwned.exists()


def test_the_staleness_worker_runs_the_installed_package(
    hostile: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, pwned = hostile
    monkeypatch.chdir(repo)  # the dashboard serves from the repository
    view = StaleCache(Workspace(str(repo))).fresh(timeout=60)
    assert view.error is None, view.error
    assert not pwned.exists()
