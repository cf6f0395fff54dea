"""Shared fixtures: isolated workspaces, an in-process CLI runner, a git repository.

Plain helpers (the runners, `git`) live in `tests/testing.py`.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from orbit_learnings.cli.state import STATE
from tests.testing import EXAMPLE, CliRunner, git


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read the developer's config or write to their HOME."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")
    monkeypatch.setenv("ORBIT_CREATED_BY", "tester")
    monkeypatch.setenv("ORBIT_SEMANTIC", "0")  # BM25 alone, unless a test opts in to vectors
    monkeypatch.setenv("COLUMNS", "200")
    for name in (
        "ORBIT_ROOT",
        "ORBIT_DEBUG",
        "ORBIT_SESSION_ID",
        "ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS",
    ):
        monkeypatch.delenv(name, raising=False)
    STATE.root = None
    STATE.debug = False


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An initialised, empty workspace, and the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    from orbit_learnings.store.setup import init_store

    init_store(root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace holding a copy of .orbit-example/."""
    root = tmp_path / "example"
    root.mkdir()
    shutil.copytree(EXAMPLE, root / ".orbit")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def orbit(capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """Run the CLI in-process (fast), capturing stdout and stderr."""
    return CliRunner(capsys)


@pytest.fixture
def git_repo(workspace: Path) -> Iterator[Path]:
    """The workspace as a git repository with one commit."""
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "init", "--allow-empty")
    yield workspace
