"""Store levels: the project's `.orbit/` and the personal store for `U-` IDs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orbit_learnings.core.errors import NotFound, UsageError
from orbit_learnings.store import levels
from orbit_learnings.store.workspace import Workspace


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "personal"
    monkeypatch.setenv(levels.USER_HOME_ENV, str(home))
    return home


def test_orbit_user_home_wins(user_home: Path) -> None:
    assert levels.user_root() == str(user_home)


def test_orbit_user_home_expands_the_home_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(levels.USER_HOME_ENV, "~/mine")
    assert levels.user_root() == str(Path.home() / "mine")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rule is Linux's")
def test_xdg_data_home_is_used_and_falls_back_to_local_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert levels.user_root() == str(tmp_path / "data" / levels.APP_NAME)
    monkeypatch.setenv("XDG_DATA_HOME", "  ")
    assert levels.user_root() == str(Path.home() / ".local/share" / levels.APP_NAME)


def test_the_personal_store_exists_only_once_created(user_home: Path) -> None:
    assert levels.user_workspace() is None
    created = levels.user_workspace(create=True)
    assert created is not None and created.level == "user" and created.prefix == "U"
    assert (user_home / ".orbit" / "learnings").is_dir()
    assert levels.user_workspace() == created


@pytest.mark.parametrize(
    ("given", "expected"), [(None, "all"), ("", "all"), (" Project ", "project"), ("USER", "user")]
)
def test_check_level_normalises(given: str | None, expected: str) -> None:
    assert levels.check_level(given) == expected


@pytest.mark.parametrize("bad", ["team", "projects", "L"])
def test_check_level_refuses_unknown_levels_as_usage_errors(bad: str) -> None:
    with pytest.raises(UsageError, match=f"unknown --level '{bad}'") as caught:
        levels.check_level(bad)
    assert caught.value.exit_code == 2


def test_stores_lists_the_project_first(workspace: Path, user_home: Path) -> None:
    project = Workspace(workspace)
    assert levels.stores(project, "all") == [project]  # no personal store yet
    user = levels.user_workspace(create=True)
    assert levels.stores(project, "all") == [project, user]
    assert levels.stores(project, "project") == [project]
    assert levels.stores(project, "user") == [user]
    assert levels.stores(None, "all") == [user]


def test_a_project_that_is_the_personal_store_is_consulted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(levels.USER_HOME_ENV, str(tmp_path))
    user = levels.user_workspace(create=True)
    assert user is not None
    assert levels.stores(Workspace(tmp_path), "all") == [Workspace(tmp_path)]


def test_for_id_sends_u_ids_to_the_personal_store(workspace: Path, user_home: Path) -> None:
    project = Workspace(workspace)
    assert levels.for_id(project, "L-0001") is project
    with pytest.raises(NotFound, match="no personal store yet"):
        levels.for_id(project, "U-0001")
    levels.user_workspace(create=True)
    home = levels.for_id(project, "U-0001")
    assert (home.root_str, home.level) == (str(user_home), "user")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rule is Linux's")
def test_for_id_finds_the_personal_store_under_xdg_data_home(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / levels.APP_NAME / ".orbit" / "learnings").mkdir(parents=True)
    home = levels.for_id(Workspace(workspace), "U-7KQ2M9XD")
    assert home.root_str == str(tmp_path / "xdg" / levels.APP_NAME)
