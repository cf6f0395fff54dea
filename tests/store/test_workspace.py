"""Finding the workspace and turning user paths into repo-relative ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbit_learnings.core.errors import OrbitError, WorkspaceNotFound
from orbit_learnings.store.workspace import Workspace, find_workspace, to_repo_relative


def test_paths_inside_a_workspace(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert ws.learnings_dir == tmp_path / ".orbit" / "learnings"
    assert ws.learnings_dir_str == str(ws.learnings_dir)
    assert ws.index_file_str == str(ws.index_file) == str(tmp_path / ".orbit/state/index.sqlite3")
    assert ws.locks_dir == tmp_path / ".orbit/state/locks"
    assert ws.bundle_dir("L-0001") == tmp_path / ".orbit/learnings/L-0001"


def test_prefix_follows_the_level(tmp_path: Path) -> None:
    assert Workspace(tmp_path).prefix == "L"
    assert Workspace(tmp_path, level="user").prefix == "U"


def test_workspaces_are_equal_by_absolute_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Workspace("repo") == Workspace(tmp_path / "repo")
    assert len({Workspace("repo"), Workspace(tmp_path / "repo")}) == 1
    assert Workspace("repo") != Workspace(tmp_path)


def test_relative_is_posix_inside_and_absolute_outside(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "repo")
    assert ws.relative(tmp_path / "repo" / "a" / "b.py") == "a/b.py"
    assert ws.relative(tmp_path / "repo") == "."
    assert ws.relative(tmp_path / "repo-other" / "x") == str(tmp_path / "repo-other" / "x")


def test_find_workspace_walks_up_from_a_nested_folder(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = workspace / "src" / "deep"
    nested.mkdir(parents=True)
    assert find_workspace(cwd=str(nested)).root_str == str(workspace.resolve())
    monkeypatch.chdir(nested)
    assert find_workspace().root_str == str(workspace.resolve())


def test_an_explicit_root_must_hold_orbit(workspace: Path) -> None:
    """Guessing a parent would silently write into the wrong repository."""
    nested = workspace / "src"
    nested.mkdir()
    with pytest.raises(WorkspaceNotFound, match="orbit init"):
        find_workspace(nested)
    assert find_workspace(workspace).root_str == str(workspace.resolve())


def test_orbit_root_from_the_environment(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBIT_ROOT", str(workspace))
    assert find_workspace(cwd=str(tmp_path)).root_str == str(workspace.resolve())
    monkeypatch.setenv("ORBIT_ROOT", str(tmp_path))
    with pytest.raises(WorkspaceNotFound):
        find_workspace(cwd=str(workspace))


def test_no_workspace_anywhere_up_is_an_error(tmp_path: Path) -> None:
    if any((parent / ".orbit").is_dir() for parent in tmp_path.resolve().parents):
        pytest.skip("a .orbit/ exists above the temporary folder")
    with pytest.raises(WorkspaceNotFound, match="or any parent"):
        find_workspace(cwd=str(tmp_path))


@pytest.fixture
def ws(workspace: Path) -> Workspace:
    (workspace / "src" / "app").mkdir(parents=True)
    return find_workspace(workspace)


@pytest.mark.parametrize(
    ("raw", "cwd", "expected"),
    [
        ("x.py", "src/app", "src/app/x.py"),
        ("../lib/", "src/app", "src/lib/"),
        ("./", "src", "src/"),
        ("src\\app\\x.py", "", "src/app/x.py"),
        ("  src/*.py  ", "", "src/*.py"),
        (".", "", ""),
    ],
)
def test_relative_input_is_taken_from_the_current_folder(
    ws: Workspace, raw: str, cwd: str, expected: str
) -> None:
    assert to_repo_relative(ws, raw, ws.root / cwd) == expected


def test_relative_input_from_outside_the_workspace_is_taken_from_its_root(
    ws: Workspace, tmp_path: Path
) -> None:
    assert to_repo_relative(ws, "src/x.py", tmp_path) == "src/x.py"


def test_absolute_input_inside_the_workspace(ws: Workspace) -> None:
    assert to_repo_relative(ws, str(ws.root / "src" / "app") + "/", ws.root) == "src/app/"
    assert to_repo_relative(ws, ws.root_str, ws.root) == ""


def test_an_absolute_path_through_a_symlink_into_the_workspace_is_accepted(
    ws: Workspace, tmp_path: Path
) -> None:
    link = tmp_path / "link"
    link.symlink_to(ws.root / "src", target_is_directory=True)
    assert to_repo_relative(ws, str(link / "app" / "x.py"), ws.root) == "src/app/x.py"


@pytest.mark.parametrize("raw", ["../outside.py", "src/../../x", "/etc/passwd", "/"])
def test_paths_outside_the_workspace_are_refused(ws: Workspace, raw: str) -> None:
    with pytest.raises(OrbitError, match="outside the workspace"):
        to_repo_relative(ws, raw, ws.root)


def test_a_sibling_folder_sharing_the_roots_name_prefix_is_outside(ws: Workspace) -> None:
    with pytest.raises(OrbitError, match="outside the workspace"):
        to_repo_relative(ws, ws.root_str + "-other/x.py", ws.root)


def test_an_empty_path_is_refused(ws: Workspace) -> None:
    with pytest.raises(OrbitError, match="empty path"):
        to_repo_relative(ws, "   ", ws.root)
