"""`.orbit/config.yaml`: defaults when absent, a clear `file:line` error when broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store import config
from orbit_learnings.store.workspace import Workspace


def write_config(root: Path, text: str) -> Workspace:
    (root / ".orbit" / "config.yaml").write_text(text, encoding="utf-8")
    return Workspace(root)


def test_a_missing_file_means_the_defaults(workspace: Path) -> None:
    ws = Workspace(workspace)
    assert config.load(ws) == {}
    assert config.id_mode(ws) == "sequential"


@pytest.mark.parametrize("text", ["", "# only a comment\n", "~\n"])
def test_an_empty_file_means_the_defaults(workspace: Path, text: str) -> None:
    assert config.load(write_config(workspace, text)) == {}


def test_settings_are_read(workspace: Path) -> None:
    ws = write_config(workspace, "# team settings\nids: random\nsearch:\n  weight: 2\n")
    assert config.load(ws) == {"ids": "random", "search": {"weight": 2}}
    assert config.id_mode(ws) == "random"


def test_invalid_yaml_names_the_file_and_line(workspace: Path) -> None:
    ws = write_config(workspace, "# settings\nids: sequential\nsearch: [unclosed\n")
    with pytest.raises(OrbitError, match=r"^\.orbit/config\.yaml:4: invalid YAML") as caught:
        config.load(ws)
    assert type(caught.value) is OrbitError


def test_a_document_that_is_not_a_mapping_is_refused(workspace: Path) -> None:
    ws = write_config(workspace, "- ids\n- random\n")
    with pytest.raises(OrbitError, match=r"config\.yaml:1: expected a mapping"):
        config.load(ws)


@pytest.mark.parametrize("mode", ["Random", "uuid", "1"])
def test_an_unknown_id_mode_is_refused(workspace: Path, mode: str) -> None:
    ws = write_config(workspace, f"ids: {mode}\n")
    with pytest.raises(OrbitError, match="ids must be one of sequential, random"):
        config.id_mode(ws)


def test_unsafe_tags_are_refused_not_run(workspace: Path) -> None:
    ws = write_config(workspace, "ids: !!python/object/apply:os.getcwd []\n")
    with pytest.raises(OrbitError, match=r"config\.yaml:1: invalid YAML"):
        config.load(ws)


def test_the_unused_window_is_read(workspace: Path) -> None:
    assert config.unused_days(Workspace(workspace)) is None
    assert config.unused_days(write_config(workspace, "unused_days: 45\n")) == 45


@pytest.mark.parametrize("value", ["0", "-5", "ninety", "true", "1.5", "[90]"])
def test_a_bad_unused_window_is_refused(workspace: Path, value: str) -> None:
    ws = write_config(workspace, f"unused_days: {value}\n")
    with pytest.raises(OrbitError, match=r"^\.orbit/config\.yaml: unused_days must be a whole"):
        config.unused_days(ws)
