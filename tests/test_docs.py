"""The docs keep up with the code: every command and every module is where a reader looks."""

from __future__ import annotations

import re

import pytest

from orbit_learnings import integrations
from tests.testing import REPO, leaf_commands

DOCS = REPO / "docs"
PACKAGE = REPO / "src" / "orbit_learnings"


def spelled(path: tuple[str, ...]) -> str:
    return "orbit " + " ".join(path)


@pytest.mark.parametrize("path", leaf_commands(), ids=spelled)
def test_every_command_is_in_the_command_reference(path: tuple[str, ...]) -> None:
    reference = (DOCS / "commands.md").read_text(encoding="utf-8")
    assert f"`{spelled(path)}" in reference, f"{spelled(path)} is missing from docs/commands.md"


def test_the_command_reference_names_no_command_that_is_gone() -> None:
    reference = (DOCS / "commands.md").read_text(encoding="utf-8")
    known = {spelled(p) for p in leaf_commands()}
    headings = re.findall(r"^#+ .*?`(orbit [a-z -]+?)[` ]", reference, flags=re.MULTILINE)
    gone = [h for h in headings if not any(k.startswith(h) for k in known)]
    assert not gone, gone


@pytest.mark.parametrize(
    "module",
    sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.name != "__init__.py" or p.parent.name == "integrations"
    ),
)
def test_every_module_is_on_the_architecture_map(module: str) -> None:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert module in text, f"{module} is missing from docs/architecture.md"


@pytest.mark.parametrize("name", list(integrations.REGISTRY))
def test_every_integration_is_documented(name: str) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md"))
    assert f"`{name}`" in text, f"integration {name} has no docs"
