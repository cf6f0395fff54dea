"""Session fixtures for the recipe tests: built once, because each costs a repository or more."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.sandbox import Sandbox, Templates, build_templates, make_sandbox


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return build_templates(tmp_path_factory.mktemp("recipe-templates"))


@pytest.fixture
def sandbox(templates: Templates, tmp_path: Path) -> Sandbox:
    """A copy of the example clone, with its own HOME."""
    return make_sandbox(templates, tmp_path)
