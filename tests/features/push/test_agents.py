"""Cursor, Copilot and Gemini: each installed entry fed its agent's documented payloads.

The command run is the one `orbit hooks install NAME` wrote, through `sh -c` as the agents
run it: with orbit on PATH it answers in that agent's own context field; without it, it is
silent and exits 0.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.testing import ORBIT_BIN, REPO, CliRunner

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


def first_command(settings: dict[str, object], event: str, *, key: str = "command") -> str:
    entry = settings["hooks"][event][0]  # type: ignore[index]
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
    scoped: Path, orbit: CliRunner, agent: str
) -> None:
    settings_file, event, key, payloads, _, _ = AGENTS[agent]
    orbit("hooks", "install", agent)
    command = first_command(json.loads((scoped / settings_file).read_text()), event, key=key)
    assert run(command, fixture(payloads[0], scoped, "s"), scoped, WITHOUT_ORBIT) == (0, "", "")


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
    assert run(command, stdin, scoped, WITH_ORBIT)[1] == ""  # already in this context
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
    theirs = {"version": 1, "hooks": {"stop": [{"command": "./notify.sh"}]}, "other": True}
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
    for event, entries in theirs["hooks"].items():  # type: ignore[union-attr]
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
