"""The release is defined once, and the packaging reads it from there."""

from __future__ import annotations

import re
import tomllib

import orbit_learnings
from orbit_learnings.core import VERSION
from tests.testing import REPO


def test_version_is_a_release_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[.-]?\w+)?", VERSION)


def test_package_metadata_reads_the_version_from_here() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "orbit_learnings.core.VERSION"


def test_the_package_exposes_the_same_version() -> None:
    assert orbit_learnings.__version__ == VERSION
