"""Shared fixtures: isolated workspaces, an in-process CLI runner, a git repository;
and the `world` marker.

World-sized tests build a piece of the world to run in: an environment from the package
index (the pre-commit recipe), an install of this checkout (the CI recipe), Chromium (the
dashboard's browser tests), hundreds of killed processes (crash injection), benchmark runs
and the evaluations (realistic search, anchor drift over a labelled history). `make test`
leaves them out (`-m "not world"`), `make test-all` and `.ci/run` run everything. Besides an
explicit `@pytest.mark.world`, a test is world-sized by what it uses (`WORLD_FIXTURES`), so
new tests of those kinds need no list.

Plain helpers (the runners, `git`) live in `tests/testing.py`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.testing import EXAMPLE, CliRunner, git, isolate

# Fixtures only a world-sized test asks for: a browser tab (tests/features/dashboard), a
# commit of this checkout for a recipe to install (the pre-commit and CI recipes, tests/docs).
WORLD_FIXTURES = frozenset({"browser", "page", "snapshot"})


def pytest_configure(config: pytest.Config) -> None:
    """Test folders in memory where the machine has it (Linux's /dev/shm), unless TMPDIR
    says where: the store fsyncs every write, as it must, and on a disk shared with other
    work a test writing 400 learnings waited 45 s for those syncs against 3 s in memory.
    Set before any temporary folder is made, so the numbered `pytest-N` folders, the xdist
    workers' and every process a test starts (git, pip, orbit) follow."""
    shm = Path("/dev/shm")
    if "TMPDIR" not in os.environ and shm.is_dir() and os.access(shm, os.W_OK | os.X_OK):
        os.environ["TMPDIR"] = str(shm)
        tempfile.tempdir = None  # gettempdir() looks again
    # A hook with a deadline (Cline's) must not run out of time because the machine is busy
    # with the rest of the suite: no test depends on how fast it is. The deadline itself is
    # tested by setting it low (tests/features/push/test_cline.py).
    os.environ.setdefault("ORBIT_HOOK_DEADLINE", "600")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if WORLD_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.world)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read the developer's config or write to their HOME."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"))


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
