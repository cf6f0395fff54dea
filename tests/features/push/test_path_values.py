"""A path from a hook's payload is read once, where it enters, and passed on as a value
(`core.scope.RepoPath`): no layer after the hook parses or normalises it again, and no
prefix on a string says whether it is a glob (issue 32, "one hook path")."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from orbit_learnings import integrations
from orbit_learnings.core.scope import RepoPath, Scope
from orbit_learnings.retrieval import queries
from orbit_learnings.store import bundles as store
from orbit_learnings.store import workspace as workspace_module
from orbit_learnings.store.workspace import Workspace

LESSONS = {
    "glob:notes.md": "The file named glob:notes.md is generated.",
    "notes.md": "notes.md is written by hand.",
    "src/app.py": "app.py keeps its entry point small.",
    "src/**/*.py": "Python under src/ is typed strictly.",
    "docs/**": "Docs are built by the site generator.",
}


@pytest.fixture
def ws(workspace: Path) -> Workspace:
    for name in ("glob:notes.md", "notes.md", "src/app.py", "docs/guide.md"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("x\n")
    ws = Workspace(workspace)
    for glob, summary in LESSONS.items():
        store.create_learning(ws, store.NewLearning(summary, Scope([glob])))
    return ws


def hook(root: Path, tool: str, tool_input: dict[str, object], session: str = "s") -> str:
    """What `orbit hook claude-code` adds after this tool call (in-process, as `entry`
    runs it), or "" when it adds nothing."""
    stdin = json.dumps(
        {
            "session_id": session,
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
        }
    )
    claude = integrations.find("claude-code")
    assert claude is not None
    out, err = claude.hook(stdin, root=None, flags=[])
    assert err == ""
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def shown(text: str) -> set[str]:
    return {glob for glob, summary in LESSONS.items() if summary in text}


def test_a_file_named_like_a_glob_prefix_is_that_file(ws: Workspace) -> None:
    """Read of the file `glob:notes.md`: its own lesson, not that of `notes.md` (which a
    second reading of the path, taking `glob:` for a marker, would find instead)."""
    text = hook(Path(ws.root_str), "Read", {"file_path": f"{ws.root_str}/glob:notes.md"})
    assert shown(text) == {"glob:notes.md"}
    assert "whose scope matches glob:notes.md:" in text


def test_windows_separators_and_dot_segments_are_read_where_they_enter(ws: Workspace) -> None:
    text = hook(Path(ws.root_str), "Read", {"file_path": ".\\src\\.\\app.py"})
    assert shown(text) == {"src/app.py", "src/**/*.py"}
    assert "whose scope matches src/app.py:" in text


def test_a_glob_tool_still_asks_about_its_pattern(ws: Workspace) -> None:
    """The one pattern a hook passes on (a Glob call's, under its folder): the learnings of
    what it can match, not those of the files around it; shown without any marker."""
    text = hook(Path(ws.root_str), "Glob", {"pattern": "**/*.py", "path": "./src"})
    assert shown(text) == {"src/app.py", "src/**/*.py"}
    assert "whose scope matches src/**/*.py:" in text
    assert "glob:" not in text.split("\n")[0]
    assert shown(hook(Path(ws.root_str), "Glob", {"pattern": "docs/gu*.md"}, "s2")) == {"docs/**"}


@pytest.mark.parametrize(
    ("tool", "tool_input", "named"),
    [
        ("Read", {"file_path": ".\\src\\.\\app.py"}, [".\\src\\.\\app.py"]),
        ("Read", {"file_path": "glob:notes.md"}, ["glob:notes.md"]),
        (
            "Bash",
            {"command": "cat ./src/app.py docs/../notes.md"},
            ["./src/app.py", "docs/../notes.md"],
        ),
        ("Glob", {"pattern": "**/*.py", "path": "src"}, ["src", "**/*.py"]),
        (
            "Edit",
            {"file_path": "docs\\guide.md", "old_string": "x", "new_string": "y"},
            ["docs\\guide.md"],
        ),
    ],
)
def test_each_path_of_a_payload_is_normalised_once(
    ws: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    tool_input: dict[str, object],
    named: list[str],
) -> None:
    """Every module's `to_repo_relative` watched: it reads each path the payload names,
    once, as the payload spells it, however many layers the path then crosses."""
    calls: list[str] = []
    real = workspace_module.to_repo_relative

    def counting(ws: Workspace, raw: str, cwd: object = None) -> str:
        calls.append(raw)
        return real(ws, raw, cwd)  # type: ignore[arg-type]

    for module in list(sys.modules.values()):
        if (
            getattr(module, "__name__", "").startswith("orbit_learnings")
            and getattr(module, "to_repo_relative", None) is real
        ):
            monkeypatch.setattr(module, "to_repo_relative", counting)
    assert hook(Path(ws.root_str), tool, tool_input)
    assert calls == named


def test_retrieval_takes_values_as_they_are(ws: Workspace) -> None:
    """`list_learnings` neither normalises nor parses a value: `./src/app.py` as a value is
    no file of the repository, and `glob:notes.md` is the file of that name."""

    def ids_for(*paths: RepoPath) -> list[str]:
        return [h.summary for h in queries.list_learnings(ws, resolved=paths).hits]

    assert ids_for(RepoPath("glob:notes.md")) == [LESSONS["glob:notes.md"]]
    assert ids_for(RepoPath("./src/app.py")) == []
    assert set(ids_for(RepoPath("src/*.py", "glob"))) == {
        LESSONS["src/app.py"],
        LESSONS["src/**/*.py"],
    }


def test_typed_paths_keep_their_prefixes(ws: Workspace) -> None:
    """A person's `--path` still reads `glob:` and `literal:` (docs/matching.md): read once,
    at the edge, into a value."""
    typed: Callable[[str], RepoPath] = lambda raw: workspace_module.typed_path(ws, raw)  # noqa: E731
    assert typed("glob:src/[ab]*.py") == RepoPath("src/[ab]*.py", "glob")
    assert typed("literal:web/[slug]/new.tsx") == RepoPath("web/[slug]/new.tsx", "file")
    assert typed("src") == RepoPath("src", "folder")
    assert typed("src\\*.py") == RepoPath("src/*.py", "glob")
