"""The CI lock agrees with pyproject.toml: a range moved without `make lock` fails here, not
in a CI run that silently installs what the lock says."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.testing import REPO

LOCK = REPO / "requirements/ci.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", re.MULTILINE)


def pins() -> dict[str, str]:
    return {canonicalize_name(name): version for name, version in PIN.findall(LOCK.read_text())}


def declared() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return [
        Requirement(r) for r in [*project["dependencies"], *extras["test"], *extras["semantic"]]
    ]


def test_every_declared_dependency_is_locked_within_its_range() -> None:
    locked = pins()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is not in {LOCK.name}: run `make lock`"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"{LOCK.name} pins {name}=={locked[name]}, outside {requirement}: run `make lock`"
        )


def test_every_pin_carries_a_hash_and_ci_installs_the_lock() -> None:
    entries = re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text())[1:]  # after the header
    assert len(entries) == len(pins()) > 20
    assert all("--hash=sha256:" in entry for entry in entries)
    assert "LOCKED=1" in (REPO / ".ci/run").read_text()
    assert "--require-hashes -r $(LOCK)" in (REPO / "Makefile").read_text()
