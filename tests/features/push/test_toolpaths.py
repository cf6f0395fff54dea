"""Which files a tool call touched: shell commands read, never run; searches and globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbit_learnings.core.scope import RepoPath
from orbit_learnings.push.hookflow import Touch, touched_paths
from orbit_learnings.push.toolpaths import patch_paths, repo_path, search_paths, shell_paths
from orbit_learnings.store.workspace import Workspace


def texts(paths: list[RepoPath]) -> list[str]:
    return [path.text for path in paths]


@pytest.fixture
def ws(workspace: Path) -> Workspace:
    names: tuple[str, ...] = ("src/app.py", "src/util.py", "docs/guide.md", "Makefile")
    names += ("tests/test_app.py",)
    names += ("services/api/v1/handlers/orders.py",)
    for name in names:
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("x\n")
    return Workspace(workspace)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat src/app.py", ["src/app.py"]),
        ("sed -n '10,40p' src/app.py", ["src/app.py"]),
        ("head -n 20 src/app.py | grep def", ["src/app.py"]),
        ("tail -f docs/guide.md", ["docs/guide.md"]),
        ("git diff -- src/app.py src/util.py", ["src/app.py", "src/util.py"]),
        ("git show HEAD~1:src/util.py", ["src/util.py"]),
        ("git log -p src/app.py", ["src/app.py"]),
        ("rg 'def main' src/app.py", ["src/app.py"]),
        ("grep -rn TODO src", ["src"]),
        ("rg -e cat src/util.py", ["src/util.py"]),
        ("cd src && cat app.py", ["src/app.py"]),  # read from where `cd` led
        (
            "cd services/api && cat v1/handlers/orders.py",
            ["services/api/v1/handlers/orders.py"],
        ),
        (
            "cd services; sed -n 1,20p api/v1/handlers/orders.py",
            ["services/api/v1/handlers/orders.py"],
        ),
        ("cd src && cd .. && head -5 docs/guide.md", ["docs/guide.md"]),
        ("cd - && cat src/app.py", []),  # a `cd` we cannot follow stops the reading
        ("cat src/app.py && cd $HOME && cat src/util.py", ["src/app.py"]),
        ("tail -n 30 src/app.py", ["src/app.py"]),
        ("rg -n 'def main' src/app.py docs", ["src/app.py", "docs"]),
        ("git show main:src/util.py", ["src/util.py"]),
        ("python -m pytest tests/test_app.py::test_one -q", ["tests/test_app.py"]),
        ("python3 -m pytest -k 'slow and src' tests/test_app.py", ["tests/test_app.py"]),
        ("uv run pytest -x tests/test_app.py", ["tests/test_app.py"]),
        ("pytest tests", ["tests"]),
        ("python -m http.server src", []),  # a module that reads nothing we know
        ("wc -l Makefile; cat src/app.py", ["Makefile", "src/app.py"]),
        ("LC_ALL=C cat src/app.py", ["src/app.py"]),
        ("python -c 'open(\"src/app.py\")'", []),  # not a read command we know
        ("rm -rf src/app.py", []),  # never taken as a read
        ("cat /etc/passwd ../outside.py", []),  # outside the workspace
        ("cat 'unbalanced", []),
    ],
)
def test_shell_commands_name_the_files_they_read(
    ws: Workspace, command: str, expected: list[str]
) -> None:
    assert texts(shell_paths(ws, command)) == expected


def test_a_file_that_does_not_exist_yet_counts_when_it_looks_like_one(ws: Workspace) -> None:
    assert texts(shell_paths(ws, "cat src/new_module.py")) == ["src/new_module.py"]
    assert texts(shell_paths(ws, "cat README")) == []  # no slash, no extension, not there


def test_commands_are_never_run(ws: Workspace, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    shell_paths(ws, f"cat src/app.py; touch {marker}; $(touch {marker})")
    assert not marker.exists()


def test_search_and_glob_inputs(ws: Workspace) -> None:
    root = ws.root_str
    assert search_paths(ws, f"{root}/src", None, cwd=root) == [RepoPath("src", "folder")]
    assert search_paths(ws, "src", "**/*.py", cwd=root) == [RepoPath("src/**/*.py", "glob")]
    assert search_paths(ws, None, "*.md", cwd=root) == [RepoPath("*.md", "glob")]
    assert search_paths(ws, None, None, cwd=root) == []


def test_repo_path_refuses_urls_options_and_outsiders(ws: Workspace) -> None:
    assert repo_path(ws, "https://example.com/a.py") is None
    assert repo_path(ws, "--color") is None
    assert repo_path(ws, "/etc/hosts") is None
    assert repo_path(ws, f"{ws.root_str}/src/app.py") == RepoPath("src/app.py")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('git commit -m "refactor; cat src/app.py was slow"', []),  # inside quotes: a message
        ("cat <<EOF > notes.txt\nhead src/app.py\nEOF", []),  # a heredoc body is data
        ("grep -E 'total|sum' src/app.py", ["src/app.py"]),  # a `|` inside quotes
        ("cat src/app.py\ncat src/util.py", ["src/app.py", "src/util.py"]),
    ],
)
def test_quotes_and_heredocs_are_respected(
    ws: Workspace, command: str, expected: list[str]
) -> None:
    assert texts(shell_paths(ws, command)) == expected


PATCH = """*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    return 0
+    return 1
*** Add File: src/new_module.py
+VALUE = 1
*** Delete File: docs/guide.md
*** Update File: {root}/src/util.py
*** Move to: src/util2.py
@@
-x
+y
*** End Patch
"""


def test_an_apply_patch_body_names_its_files(ws: Workspace) -> None:
    """Codex sends the whole patch in `tool_input.command`: its file lines name the files,
    relative or absolute, added ones included; the hunks' text names nothing."""
    patch = PATCH.replace("{root}", ws.root_str)
    expected = ["src/app.py", "src/new_module.py", "docs/guide.md", "src/util.py", "src/util2.py"]
    assert texts(patch_paths(ws, patch)) == expected
    touch = Touch("apply_patch", {"command": patch}, session_id="s")
    assert texts(touched_paths(ws, touch)) == expected
    shell = Touch("Bash", {"command": f"apply_patch <<'EOF'\n{patch}EOF"}, session_id="s")
    assert texts(touched_paths(ws, shell)) == expected  # the older heredoc form through the shell


def test_a_command_that_only_mentions_the_patch_marker_is_read_as_a_shell(ws: Workspace) -> None:
    touch = Touch("Bash", {"command": "grep -n '*** Begin Patch' src/app.py"}, session_id="s")
    assert texts(touched_paths(ws, touch)) == ["src/app.py"]
