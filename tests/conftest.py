"""Shared fixtures: isolated workspaces, an in-process CLI runner, a subprocess runner."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from orbit_learnings.cli.state import STATE

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / ".orbit-example"
ORBIT_BIN = Path(sys.executable).with_name("orbit")


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


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


class CliRunner:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> Outcome:
        from orbit_learnings.cli.app import run

        self.capsys.readouterr()
        STATE.root = None
        code = run(list(args))
        captured = self.capsys.readouterr()
        return Outcome(code, captured.out, captured.err)


@pytest.fixture
def orbit(capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """Run the CLI in-process (fast), capturing stdout and stderr."""
    return CliRunner(capsys)


def run_orbit(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> Outcome:
    """Run the installed `orbit` console script in a real subprocess."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [str(ORBIT_BIN), *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def git_repo(workspace: Path) -> Iterator[Path]:
    """The workspace as a git repository with one commit."""
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "init", "--allow-empty")
    yield workspace


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout
