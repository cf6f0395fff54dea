"""Session fixtures for the recipe tests: built once, because each costs a repository or more."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.precommit import WarmUp, configured
from tests.docs.recipes import recipes_for
from tests.docs.sandbox import (
    Sandbox,
    Snapshot,
    Templates,
    build_templates,
    make_sandbox,
    make_snapshot,
)


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return build_templates(tmp_path_factory.mktemp("recipe-templates"))


@pytest.fixture
def sandbox(templates: Templates, tmp_path: Path) -> Sandbox:
    """A copy of the example clone, with its own HOME."""
    return make_sandbox(templates, tmp_path)


@pytest.fixture(scope="session")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return make_snapshot(tmp_path_factory.mktemp("snapshot"))


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session", autouse=True)
def pre_commit_warm_up(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WarmUp]:
    """Build the pre-commit hook's environment while the other recipes run, when a test
    of this session will use it (see tests/docs/precommit.py). Not under pytest-xdist:
    each worker would build its own, and the other workers overlap it anyway."""
    wanted = [i for i in request.session.items if "test_recipes_precommit" in i.nodeid]
    configs = recipes_for(".pre-commit-config.yaml")
    in_worker = hasattr(request.config, "workerinput")
    if in_worker or not (wanted and configs):
        yield WarmUp(None)
        return
    snapshot, templates, home = (
        request.getfixturevalue(name) for name in ("snapshot", "templates", "pre_commit_home")
    )
    box = configured(configs[0], snapshot, templates, home, tmp_path_factory.mktemp("warm-up"))
    warm_up = WarmUp.start(box)
    yield warm_up
    warm_up.stop()
