"""Kiro CLI: `orbit hooks install kiro` into the project's custom agents
(`.kiro/agents/*.json`), and `orbit hook kiro` fed the documented events through the
command it wrote (`sh -c`, as Kiro runs it). Kiro adds the stdout of `agentSpawn` and
`userPromptSubmit` to the agent's context; tool events get nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.testing import (
    CliRunner,
    agent_payload,
    as_teammate,
    run_entry,
    three_scoped_learnings,
)

OWN = ".kiro/agents/orbit.json"
MONEY = "L-0001 (scope billing/**, 0 votes): Money is integer cents."
WITHOUT_ORBIT = {**os.environ, "PATH": "/usr/bin:/bin"}

fixture, run = agent_payload, run_entry


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    three_scoped_learnings(workspace, orbit)
    assert orbit("hooks", "install", "--kiro").code == 0
    return workspace


def entry(root: Path, event: str, agent: str = OWN) -> str:
    return str(json.loads((root / agent).read_text())["hooks"][event][0]["command"])


def prompt(root: Path, text: str) -> str:
    data = json.loads(fixture("kiro.userPromptSubmit", root, ""))
    return json.dumps({**data, "prompt": text})


def test_the_documented_events_get_the_learnings_where_kiro_reads_them(store: Path) -> None:
    command = entry(store, "userPromptSubmit")
    spawned = run(command, fixture("kiro.agentSpawn", store, ""), store)
    assert ".orbit/learnings" in spawned and "L-000" not in spawned  # plain text, no JSON
    for name in ("kiro.postToolUse.read", "kiro.preToolUse.mcp"):
        assert run(command, fixture(name, store, ""), store) == ""  # no model reads it
    asked = run(command, fixture("kiro.userPromptSubmit", store, ""), store)
    assert MONEY in asked and not asked.lstrip().startswith("{")  # the read marked nothing


def test_a_scripted_session_shows_each_learning_once_where_it_belongs(store: Path) -> None:
    """agentSpawn -> a prompt found by its words -> one naming a file -> one naming the
    file whose learning the first prompt showed; a new agentSpawn (a new conversation)
    shows them again."""
    command = entry(store, "userPromptSubmit")
    assert "L-000" not in run(command, fixture("kiro.agentSpawn", store, ""), store)
    asked = run(command, prompt(store, "fix the flaky payments webhook test"), store)
    assert asked.count("L-0002 (") == 1 and "L-0001" not in asked and "L-0003" not in asked
    billing = prompt(store, "now fix the rounding in billing/invoice.py")
    named = run(command, billing, store)
    assert MONEY in named and "L-0002" not in named and "L-0003" not in named
    webhook = prompt(store, "and check payments/webhook/handler.py")
    assert run(command, webhook, store) == ""  # shown at the first prompt already
    assert run(command, billing, store) == ""
    run(command, fixture("kiro.agentSpawn", store, ""), store)
    assert MONEY in run(command, billing, store)


def test_install_merges_into_every_agent_and_uninstall_restores_them(
    workspace: Path, orbit: CliRunner
) -> None:
    folder = workspace / ".kiro/agents"
    folder.mkdir(parents=True)
    theirs = {
        "name": "dev",
        "tools": ["read", "write", "shell"],
        "hooks": {
            "agentSpawn": [{"command": "git status --short"}],
            "preToolUse": [{"matcher": "shell", "command": "./audit.sh", "timeout_ms": 5000}],
        },
    }
    (folder / "dev.json").write_text(json.dumps(theirs, indent=2))
    (folder / "review.json").write_text('{"name": "review", "tools": ["read"]}')
    assert orbit("hooks", "install", "--kiro").code == 0
    once = (folder / "dev.json").read_text()
    assert orbit("hooks", "install", "kiro").code == 0
    assert (folder / "dev.json").read_text() == once  # a second run adds nothing
    merged = json.loads(once)
    assert merged["hooks"]["agentSpawn"][0] == {"command": "git status --short"}
    assert merged["hooks"]["preToolUse"] == theirs["hooks"]["preToolUse"]  # type: ignore[index]
    assert "hook kiro" in merged["hooks"]["userPromptSubmit"][0]["command"]
    assert "hook kiro" in entry(workspace, "agentSpawn", ".kiro/agents/review.json")
    assert not (workspace / OWN).exists()  # the project has agents: no agent of ours
    assert orbit("hooks", "uninstall", "--kiro").code == 0
    assert json.loads((folder / "dev.json").read_text()) == theirs
    assert json.loads((folder / "review.json").read_text()) == {"name": "review", "tools": ["read"]}


def test_without_agents_install_writes_its_own_and_uninstall_takes_it_away(
    workspace: Path, orbit: CliRunner
) -> None:
    outcome = orbit("hooks", "install", "kiro", "--no-prompt")
    assert outcome.code == 0 and "kiro-cli --agent orbit" in outcome.err
    agent = json.loads((workspace / OWN).read_text())
    assert agent["name"] == "orbit" and agent["tools"] == ["*"]
    assert set(agent["hooks"]) == {"agentSpawn"}  # --no-prompt
    orbit("hooks", "install", "kiro")
    assert set(json.loads((workspace / OWN).read_text())["hooks"]) == {
        "agentSpawn",
        "userPromptSubmit",
    }
    orbit("hooks", "uninstall", "kiro")
    assert not (workspace / ".kiro").exists()


def test_the_entry_is_silent_without_orbit_and_never_fails(store: Path) -> None:
    command = entry(store, "userPromptSubmit")
    stdin = fixture("kiro.userPromptSubmit", store, "")
    assert run(as_teammate(command), stdin, store, WITHOUT_ORBIT) == ""
    for bad in ("", "not json", "[]", '{"hook_event_name": "userPromptSubmit"}'):
        assert run(command, bad, store) == ""


def test_doctor_reports_the_kiro_entry_and_runs_it(store: Path, orbit: CliRunner) -> None:
    checks = {c["name"]: c for c in orbit("doctor", "--json").json()["checks"]}
    assert checks["kiro hook"]["status"] == "ok", checks["kiro hook"]
    assert checks["kiro dry run"]["status"] == "ok", checks["kiro dry run"]
    (store / OWN).write_text("{not json")
    checks = {c["name"]: c for c in orbit("doctor", "--json").json()["checks"]}
    assert checks["kiro hook"]["status"] == "fail"


def test_a_broken_agent_file_stops_the_install_before_any_write(
    workspace: Path, orbit: CliRunner
) -> None:
    folder = workspace / ".kiro/agents"
    folder.mkdir(parents=True)
    (folder / "a.json").write_text('{"name": "a", "tools": ["*"]}')
    (folder / "b.json").write_text("{not json")
    outcome = orbit("hooks", "install", "--kiro")
    assert outcome.code != 0 and "b.json" in outcome.err and "Traceback" not in outcome.err
    assert (folder / "a.json").read_text() == '{"name": "a", "tools": ["*"]}'


def test_a_teams_own_orbit_agent_keeps_its_settings(workspace: Path, orbit: CliRunner) -> None:
    """An agent the team named `orbit` is theirs: orbit adds its hooks and nothing else."""
    agent = workspace / OWN
    agent.parent.mkdir(parents=True)
    agent.write_text('{"name": "orbit", "tools": ["read"], "model": "m"}')
    orbit("hooks", "install", "--kiro")
    written = json.loads(agent.read_text())
    assert written["tools"] == ["read"] and "description" not in written
    orbit("hooks", "uninstall", "--kiro")
    assert json.loads(agent.read_text()) == {"name": "orbit", "tools": ["read"], "model": "m"}
