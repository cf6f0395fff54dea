"""Layer 3: the Claude Code PreToolUse hook, fed real-shaped payloads in real processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.testing import CliRunner, run_orbit


def payload(
    root: Path, tool: str, path: str, session: str = "sess-1", key: str = "file_path"
) -> str:
    tool_input: dict[str, object] = {key: str(root / path)}
    if tool == "Edit":
        tool_input.update(old_string="a", new_string="b")
    if tool == "Write":
        tool_input["content"] = "print('hi')\n"
    if tool == "MultiEdit":
        tool_input["edits"] = [{"old_string": "a", "new_string": "b"}]
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(root / "transcript.jsonl"),
            "cwd": str(root),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
        }
    )


@pytest.fixture
def scoped(workspace: Path, orbit: CliRunner) -> Path:
    orbit(
        "learning",
        "add",
        "--summary",
        "Money is integer cents.",
        "--path",
        "billing/**",
        "--tag",
        "money",
    )
    orbit("learning", "add", "--summary", "Notebooks keep outputs cleared.", "--path", "**/*.ipynb")
    orbit("learning", "upvote", "--id", "L-0001", "--model", "claude", "--task", "T-1")
    return workspace


def hook(
    root: Path, stdin: str, *args: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    outcome = run_orbit("hook", "claude-code", *args, cwd=root, stdin=stdin, env=env)
    return outcome.code, outcome.out, outcome.err


@pytest.mark.parametrize(
    ("tool", "path", "key"),
    [
        ("Read", "billing/invoice.py", "file_path"),
        ("Edit", "billing/invoice.py", "file_path"),
        ("Write", "billing/invoice.py", "file_path"),
        ("MultiEdit", "billing/invoice.py", "file_path"),
        ("NotebookEdit", "analysis/report.ipynb", "notebook_path"),
    ],
)
def test_each_file_tool_gets_additional_context(
    scoped: Path, tool: str, path: str, key: str
) -> None:
    code, out, _ = hook(scoped, payload(scoped, tool, path, session=f"s-{tool}", key=key))
    assert code == 0
    answer = json.loads(out)  # as Claude Code parses it
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert "permissionDecision" not in specific and "decision" not in answer
    context = specific["additionalContext"]
    assert "<system-reminder>" not in context
    assert len(out) < 10_000
    if tool == "NotebookEdit":
        assert "L-0002 (scope **/*.ipynb, 0 votes): Notebooks keep outputs cleared." in context
    else:
        assert "L-0001 (scope billing/**, 1 vote): Money is integer cents." in context
        assert f"matches {path}" in context


def test_claude_cwd_in_a_subfolder(scoped: Path) -> None:
    """Claude's cwd may be below the repository root; matching stays repo-relative."""
    (scoped / "billing").mkdir()
    run_orbit(
        "learning",
        "add",
        "--summary",
        "Exact one-level scope here",
        "--path",
        "billing/*.py",
        cwd=scoped,
    )
    stdin = json.dumps(
        {
            "session_id": "sub",
            "cwd": str(scoped / "billing"),
            "tool_name": "Read",
            "tool_input": {"file_path": str(scoped / "billing/a.py")},
        }
    )
    code, out, _ = hook(scoped / "billing", stdin)
    assert code == 0 and "matches billing/a.py" in out
    assert "L-0003 (scope billing/*.py" in out


def test_same_session_sees_a_learning_once(scoped: Path) -> None:
    first = hook(scoped, payload(scoped, "Read", "billing/a.py"))[1]
    second = hook(scoped, payload(scoped, "Edit", "billing/a.py"))[1]
    assert "L-0001" in first and second == ""


def test_other_tools_are_ignored_silently(scoped: Path) -> None:
    stdin = json.dumps(
        {
            "session_id": "s",
            "cwd": str(scoped),
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
    )
    assert hook(scoped, stdin) == (0, "", "")


@pytest.mark.parametrize(
    ("stdin", "fragment"),
    [
        ("not json at all", "not JSON"),
        ("[1, 2]", "not an object"),
        ('{"tool_name": "Read", "tool_input": {}}', "no file_path"),
    ],
)
def test_bad_input_never_blocks(scoped: Path, stdin: str, fragment: str) -> None:
    code, out, err = hook(scoped, stdin)
    assert (code, out) == (0, "")
    assert fragment in err


def test_path_outside_the_repo_and_no_workspace_never_block(scoped: Path, tmp_path: Path) -> None:
    outside = json.dumps(
        {
            "session_id": "s",
            "cwd": str(scoped),
            "tool_name": "Read",
            "tool_input": {"file_path": "/etc/hosts"},
        }
    )
    code, out, err = hook(scoped, outside)
    assert (code, out) == (0, "") and "outside the workspace" in err
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    stdin = json.dumps(
        {
            "session_id": "s",
            "cwd": str(lonely),
            "tool_name": "Read",
            "tool_input": {"file_path": str(lonely / "x.py")},
        }
    )
    code, out, err = hook(lonely, stdin)
    assert (code, out) == (0, "") and "orbit init" in err


def test_unknown_arguments_still_exit_zero(scoped: Path) -> None:
    code, out, _ = hook(scoped, payload(scoped, "Read", "billing/a.py", session="x"), "--bogus")
    assert code == 0 and "L-0001" in out


def test_deny_new_writes_denies_once_then_allows(scoped: Path) -> None:
    stdin = payload(scoped, "Write", "billing/new_module.py", session="deny")
    code, out, _ = hook(scoped, stdin, "--deny-new-writes")
    decision = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and decision["permissionDecision"] == "deny"
    assert "L-0001" in decision["permissionDecisionReason"]
    assert hook(scoped, stdin, "--deny-new-writes") == (0, "", "")  # the retry goes through


def test_deny_mode_never_denies_an_existing_file(scoped: Path) -> None:
    (scoped / "billing").mkdir()
    (scoped / "billing/old.py").write_text("x = 1\n")
    out = hook(
        scoped, payload(scoped, "Write", "billing/old.py", session="d2"), "--deny-new-writes"
    )[1]
    assert "permissionDecision" not in out and "additionalContext" in out


def test_hook_records_injections(scoped: Path) -> None:
    hook(scoped, payload(scoped, "Read", "billing/a.py", session="log"))
    rows = [
        json.loads(x) for x in (scoped / ".orbit/state/injections.jsonl").read_text().splitlines()
    ]
    assert rows[-1]["layer"] == "claude-code" and rows[-1]["session"] == "log"
    assert rows[-1]["trigger"] == {"tool": "Read", "path": "billing/a.py"}


SETTINGS_BEFORE = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}
        ],
        "PostToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
        ],
    },
}


def test_hooks_install_claude_merges_and_uninstall_restores(
    workspace: Path, orbit: CliRunner
) -> None:
    settings = workspace / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(SETTINGS_BEFORE, indent=2))
    assert orbit("hooks", "install", "--claude").code == 0
    assert orbit("hooks", "install", "--claude").code == 0  # twice adds nothing
    data = json.loads(settings.read_text())
    assert data["permissions"] == SETTINGS_BEFORE["permissions"]
    assert data["hooks"]["PostToolUse"] == SETTINGS_BEFORE["hooks"]["PostToolUse"]
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == SETTINGS_BEFORE["hooks"]["PreToolUse"][0]
    assert pre[1:] == [
        {
            "matcher": "Read|Edit|Write|MultiEdit|NotebookEdit",
            "hooks": [{"type": "command", "command": "orbit hook claude-code"}],
        }
    ]
    skill = workspace / ".claude/skills/orbit-learnings/SKILL.md"
    assert skill.read_text().startswith("---\nname: orbit-learnings\n")
    assert orbit("hooks", "uninstall", "--claude").code == 0
    assert json.loads(settings.read_text()) == SETTINGS_BEFORE
    assert not skill.exists()


def test_uninstall_keeps_an_edited_skill(workspace: Path, orbit: CliRunner) -> None:
    orbit("hooks", "install", "--claude", "--command", "scripts/claude-code-hook.sh")
    data = json.loads((workspace / ".claude/settings.json").read_text())
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "scripts/claude-code-hook.sh"
    skill = workspace / ".claude/skills/orbit-learnings/SKILL.md"
    skill.write_text(skill.read_text() + "\nOur team's note.\n")
    outcome = orbit("hooks", "uninstall", "--claude", "--command", "scripts/claude-code-hook.sh")
    assert "edited, kept" in outcome.out
    assert skill.exists()
    assert json.loads((workspace / ".claude/settings.json").read_text()) == {}


def test_install_refuses_invalid_settings_without_writing(
    workspace: Path, orbit: CliRunner
) -> None:
    settings = workspace / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    outcome = orbit("hooks", "install", "--claude")
    assert outcome.code == 1 and "not valid JSON" in outcome.err
    assert settings.read_text() == "{ not json"


def test_init_skill_writes_the_skill(
    tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert orbit("init", "--skill").code == 0
    text = (tmp_path / ".claude/skills/orbit-learnings/SKILL.md").read_text()
    for needle in (
        "what should I know about",
        "orbit learning list --path",
        "orbit search",
        "upvote",
        "non-obvious",
    ):
        assert needle in text
