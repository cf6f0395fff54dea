"""Cursor, Copilot and Gemini: each installed entry fed its agent's documented payloads.

The command run is the one `orbit hooks install NAME` wrote, through `sh -c` as the agents
run it: with orbit on PATH it answers in that agent's own context field; without it, it is
silent and exits 0.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.testing import ORBIT_BIN, REPO, CliRunner, as_teammate

FIXTURES = REPO / "tests/fixtures/agents"
WITH_ORBIT = {**os.environ, "PATH": f"{ORBIT_BIN.parent}:{os.environ['PATH']}"}
WITHOUT_ORBIT = {**os.environ, "PATH": "/usr/bin:/bin"}


def fixture(name: str, root: Path, session: str) -> str:
    text = (FIXTURES / f"{name}.json").read_text()
    return text.replace("{root}", str(root)).replace("{session}", session)


def cursor_context(out: str) -> str:
    return str(json.loads(out)["additional_context"])


def copilot_context(out: str) -> str:
    return str(json.loads(out)["additionalContext"])


def gemini_context(out: str) -> str:
    specific = json.loads(out)["hookSpecificOutput"]
    assert specific["hookEventName"] == "AfterTool"
    return str(specific["additionalContext"])


def first_command(settings: dict[str, Any], event: str, *, key: str = "command") -> str:
    entry = settings["hooks"][event][0]
    handler = entry["hooks"][0] if "hooks" in entry else entry
    return str(handler[key])


AGENTS: dict[str, tuple[str, str, str, list[str], str, Callable[[str], str]]] = {
    # name: (settings file, event, command key, tool payloads, compaction payload, reader)
    "cursor": (
        ".cursor/hooks.json",
        "postToolUse",
        "command",
        ["cursor.postToolUse.Read", "cursor.postToolUse.Shell"],
        "cursor.preCompact",
        cursor_context,
    ),
    "copilot": (
        ".github/hooks/orbit-learnings.json",
        "postToolUse",
        "bash",
        ["copilot-cli.postToolUse.view", "copilot-cli.postToolUse.bash"],
        "copilot-cli.preCompact",
        copilot_context,
    ),
    "gemini": (
        ".gemini/settings.json",
        "AfterTool",
        "command",
        ["gemini-cli.AfterTool.read_file", "gemini-cli.AfterTool.run_shell_command"],
        "gemini-cli.PreCompress",
        gemini_context,
    ),
}


@pytest.fixture
def scoped(workspace: Path, orbit: CliRunner) -> Path:
    orbit("learning", "add", "--summary", "Money is integer cents.", "--path", "billing/**")
    (workspace / "billing").mkdir()
    (workspace / "billing/invoice.py").write_text("def total():\n    return 0\n")
    return workspace


def run(command: str, stdin: str, root: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=env, cwd=root
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("agent", list(AGENTS))
def test_each_documented_payload_gets_the_learning_in_the_agents_own_field(
    scoped: Path, orbit: CliRunner, agent: str
) -> None:
    settings_file, event, key, payloads, _, reader = AGENTS[agent]
    assert orbit("hooks", "install", agent).code == 0
    command = first_command(json.loads((scoped / settings_file).read_text()), event, key=key)
    for number, name in enumerate(payloads):
        code, out, err = run(
            command, fixture(name, scoped, f"{agent}-{number}"), scoped, WITH_ORBIT
        )
        assert code == 0, err
        assert "L-0001 (scope billing/**, 0 votes): Money is integer cents." in reader(out), name


@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_installed_entry_is_silent_without_orbit(
    scoped: Path, orbit: CliRunner, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A teammate whose machine has neither the installer's orbit nor one on PATH."""
    settings_file, event, key, payloads, _, _ = AGENTS[agent]
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # the install records its own orbit
    orbit("hooks", "install", agent)
    command = first_command(json.loads((scoped / settings_file).read_text()), event, key=key)
    command = as_teammate(command)
    assert run(command, fixture(payloads[0], scoped, "s"), scoped, WITHOUT_ORBIT) == (0, "", "")


@pytest.mark.parametrize("agent", list(AGENTS))
def test_an_install_from_a_venv_delivers_with_orbit_off_the_path(
    scoped: Path, orbit: CliRunner, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.venv/bin/orbit hooks install`: the agent's PATH has no orbit, the entry still runs
    the venv's (before, the guard made it answer nothing, exit 0, and doctor said ok)."""
    settings_file, event, key, payloads, _, reader = AGENTS[agent]
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert orbit("hooks", "install", agent).code == 0
    command = first_command(json.loads((scoped / settings_file).read_text()), event, key=key)
    assert str(ORBIT_BIN) in command
    code, out, err = run(command, fixture(payloads[0], scoped, "v"), scoped, WITHOUT_ORBIT)
    assert code == 0 and "L-0001" in reader(out), err
    before = (scoped / settings_file).read_text()
    assert orbit("hooks", "install", agent).code == 0
    assert (scoped / settings_file).read_text() == before  # a second install adds nothing
    assert orbit("hooks", "uninstall", agent).code == 0
    left = scoped / settings_file
    assert not left.exists() or str(ORBIT_BIN) not in left.read_text()


@pytest.mark.parametrize("agent", list(AGENTS))
def test_once_per_session_and_again_after_compaction(
    scoped: Path, orbit: CliRunner, agent: str
) -> None:
    settings_file, event, key, payloads, compaction, reader = AGENTS[agent]
    orbit("hooks", "install", agent)
    settings = json.loads((scoped / settings_file).read_text())
    command = first_command(settings, event, key=key)
    stdin = fixture(payloads[0], scoped, "same")
    assert "L-0001" in reader(run(command, stdin, scoped, WITH_ORBIT)[1])
    assert run(command, stdin, scoped, WITH_ORBIT)[1].strip() in ("", "{}")  # already shown
    compact_event = next(e for e in settings["hooks"] if e.lower() in ("precompact", "precompress"))
    compact_command = first_command(settings, compact_event, key=key)
    assert run(compact_command, fixture(compaction, scoped, "same"), scoped, WITH_ORBIT)[0] == 0
    assert "L-0001" in reader(run(command, stdin, scoped, WITH_ORBIT)[1])


@pytest.mark.parametrize("agent", list(AGENTS))
def test_install_merges_and_uninstall_takes_only_ours(
    scoped: Path, orbit: CliRunner, agent: str
) -> None:
    settings_file = scoped / AGENTS[agent][0]
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    theirs: dict[str, Any] = {
        "version": 1,
        "hooks": {"stop": [{"command": "./notify.sh"}]},
        "other": True,
    }
    if agent == "gemini":
        theirs = {
            "model": {"name": "gemini-2.5-pro"},
            "hooks": {
                "BeforeTool": [
                    {
                        "matcher": "write_file",
                        "hooks": [{"type": "command", "command": "./guard.sh"}],
                    }
                ]
            },
        }
    settings_file.write_text(json.dumps(theirs))
    assert orbit("hooks", "install", f"--{agent}").code == 0
    once = settings_file.read_text()
    assert orbit("hooks", "install", agent).code == 0
    assert settings_file.read_text() == once  # idempotent
    merged = json.loads(once)
    for event, entries in theirs["hooks"].items():
        assert merged["hooks"][event][0] == entries[0]
    assert orbit("hooks", "uninstall", agent).code == 0
    assert json.loads(settings_file.read_text()) == theirs


def test_an_install_into_no_file_is_undone_completely(scoped: Path, orbit: CliRunner) -> None:
    orbit("hooks", "install", "copilot")
    assert (scoped / ".github/hooks/orbit-learnings.json").exists()
    orbit("hooks", "uninstall", "copilot")
    assert not (scoped / ".github/hooks/orbit-learnings.json").exists()


def test_unknown_agents_and_non_installers_are_clear_errors(
    orbit: CliRunner, workspace: Path
) -> None:
    unknown = orbit("hooks", "install", "windsurf")
    assert unknown.code == 2 and "unknown integration 'windsurf'" in unknown.err
    nothing = orbit("hooks", "install", "mcp")
    assert nothing.code == 2 and "mcp has nothing to install" in nothing.err
    choices = orbit("hooks", "install", "--help").out
    assert "cline" in choices and "mcp" not in choices and "dashboard" not in choices


# --- found in review: each of these once went wrong -------------------------------


def hook(root: Path, agent: str, payload: Mapping[str, object]) -> tuple[int, str, str]:
    proc = subprocess.run(
        [str(ORBIT_BIN), "hook", agent],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=root,
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_gemini_session_start_has_no_alternation_matcher(scoped: Path, orbit: CliRunner) -> None:
    """Gemini compares lifecycle matchers as exact strings: "startup|clear" never fired."""
    orbit("hooks", "install", "gemini")
    start = json.loads((scoped / ".gemini/settings.json").read_text())["hooks"]["SessionStart"]
    assert "matcher" not in start[0]


def test_cursor_running_the_claude_entry_shares_dedup_and_cursors_field(scoped: Path) -> None:
    payload = json.loads(fixture("cursor.postToolUse.Read", scoped, "conv-1"))
    code, out, _ = hook(scoped, "claude-code", payload)
    assert code == 0 and "L-0001" in cursor_context(out)
    assert hook(scoped, "cursor", payload)[1] == ""  # one conversation, one dedup set


def test_a_users_deny_entry_survives_a_reinstall(scoped: Path, orbit: CliRunner) -> None:
    settings = scoped / ".claude/settings.json"
    settings.parent.mkdir()
    deny = {"type": "command", "command": "orbit hook claude-code --deny-new-writes"}
    users = {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [deny]}], "Stop": []}}
    settings.write_text(json.dumps(users, ensure_ascii=False) + "\n")
    orbit("hooks", "install", "--claude")
    orbit("hooks", "install", "--claude")
    assert json.loads(settings.read_text())["hooks"]["PreToolUse"] == users["hooks"]["PreToolUse"]
    orbit("hooks", "uninstall", "--claude")
    assert json.loads(settings.read_text()) == users  # their empty Stop list kept too


def test_settings_keep_their_unicode(scoped: Path, orbit: CliRunner) -> None:
    settings = scoped / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"ui": {"title": "héllo — ünïcode"}}, ensure_ascii=False))
    orbit("hooks", "install", "gemini")
    assert "héllo — ünïcode" in settings.read_text()


def test_a_grep_regex_is_not_a_glob_and_a_repo_wide_glob_says_nothing(scoped: Path) -> None:
    base = {"hook_event_name": "PostToolUse", "session_id": "g", "cwd": str(scoped)}
    grep = {**base, "tool_name": "Grep", "tool_input": {"pattern": "[Ii]nvoice", "path": "billing"}}
    code, out, _ = hook(scoped, "claude-code", grep)
    assert (
        code == 0
        and "matches billing:" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    )
    wide = {**base, "session_id": "g2", "tool_name": "Glob", "tool_input": {"pattern": "**/*.md"}}
    assert hook(scoped, "claude-code", wide) == (0, "", "")


def test_gemini_answers_json_and_keeps_stderr_quiet(scoped: Path) -> None:
    """Gemini shows stderr, or non-JSON stdout, to the user as a message."""
    nothing = json.loads(fixture("gemini-cli.AfterTool.read_file", scoped, "q"))
    nothing["tool_input"] = {"file_path": "docs/unrelated.md"}
    assert hook(scoped, "gemini", nothing) == (0, "{}\n", "")
    broken = subprocess.run(
        [str(ORBIT_BIN), "hook", "gemini"], input="not json", capture_output=True, text=True
    )
    assert (broken.returncode, broken.stdout, broken.stderr) == (0, "{}\n", "")


def test_a_tool_that_is_not_a_file_tool_is_ignored(scoped: Path) -> None:
    """An MCP tool naming a path in another repository says nothing about ours."""
    payload = {
        "sessionId": "m",
        "cwd": str(scoped),
        "toolName": "github-mcp-server-get_file_contents",
        "toolArgs": {"owner": "acme", "repo": "other", "path": "billing/invoice.py"},
    }
    assert hook(scoped, "copilot", payload) == (0, "", "")


def test_a_shell_command_run_in_a_folder_did_not_read_it(scoped: Path) -> None:
    payload = json.loads(fixture("gemini-cli.AfterTool.run_shell_command", scoped, "sh"))
    payload["tool_input"] = {"command": "npm test", "dir_path": "billing"}
    assert hook(scoped, "gemini", payload) == (0, "{}\n", "")


def test_cursor_with_several_roots_finds_the_one_holding_orbit(
    scoped: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    payload = json.loads(fixture("cursor.postToolUse.Read", scoped, "roots"))
    payload.pop("cwd")
    payload["workspace_roots"] = [str(other), str(scoped)]
    code, out, _ = hook(other, "cursor", payload)
    assert code == 0 and "L-0001" in cursor_context(out)


@pytest.mark.parametrize("name", ["cursor", "claude-code"])
def test_a_cursor_payload_with_only_workspace_roots_answers_alike_through_both_entries(
    scoped: Path, tmp_path: Path, name: str
) -> None:
    """Cursor runs either entry; one without `cwd` is answered from its workspace roots,
    whichever entry reads it (the Claude Code one once found no workspace and said nothing)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    payload = json.loads(fixture("cursor.postToolUse.Read", scoped, f"roots-{name}"))
    payload.pop("cwd")
    code, out, _ = hook(elsewhere, name, payload)
    assert code == 0
    assert "L-0001 (scope billing/**, 0 votes): Money is integer cents." in cursor_context(out)


def test_an_unknown_hook_name_still_exits_zero(scoped: Path) -> None:
    code, out, err = hook(scoped, "claude", {"tool_name": "Read"})
    assert (code, out) == (0, "") and "no hook named 'claude'" in err
