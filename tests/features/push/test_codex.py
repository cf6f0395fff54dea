"""Codex CLI: `orbit hooks install --codex` into `.codex/hooks.json`, and `orbit hook codex`
fed the documented payloads through the command it wrote (`sh -c`, as Codex runs it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.testing import (
    PAYMENTS_WEBHOOK,
    CliRunner,
    agent_payload,
    as_teammate,
    hook_context,
    run_entry,
    three_scoped_learnings,
)

WITHOUT_ORBIT = {**os.environ, "PATH": "/usr/bin:/bin"}
SETTINGS = ".codex/hooks.json"
MONEY = "L-0001 (scope billing/**, 0 votes): Money is integer cents."
WEBHOOK = PAYMENTS_WEBHOOK


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    three_scoped_learnings(workspace, orbit)
    assert orbit("hooks", "install", "--codex").code == 0
    return workspace


fixture = agent_payload


def entry(root: Path, event: str) -> str:
    group = json.loads((root / SETTINGS).read_text())["hooks"][event][0]
    return str(group["hooks"][0]["command"])


run, context = run_entry, hook_context


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("codex.UserPromptSubmit", "UserPromptSubmit"),
        ("codex.PostToolUse.apply_patch", "PostToolUse"),
        ("codex.PreToolUse.apply_patch", "PreToolUse"),
        ("codex.PostToolUse.Bash", "PostToolUse"),
        ("codex.PostToolUse.mcp", "PostToolUse"),
    ],
)
def test_each_documented_payload_gets_the_learning_in_additional_context(
    store: Path, name: str, event: str
) -> None:
    command = entry(store, "PostToolUse")
    assert MONEY in context(run(command, fixture(name, store, name), store), event)


def test_session_start_gets_the_note_and_the_entry_is_silent_without_orbit(store: Path) -> None:
    command = entry(store, "SessionStart")
    note = context(run(command, fixture("codex.SessionStart", store, "n"), store), "SessionStart")
    assert ".orbit/learnings" in note
    stdin = fixture("codex.PostToolUse.apply_patch", store, "n")
    assert run(as_teammate(entry(store, "PostToolUse")), stdin, store, WITHOUT_ORBIT) == ""


def tool_call(root: Path, session: str, tool: str, command: str) -> str:
    data = json.loads(fixture("codex.PostToolUse.Bash", root, session))
    data.update(tool_name=tool, tool_input={"command": command})
    return json.dumps(data)


def test_a_scripted_session_shows_each_learning_once_where_it_belongs(store: Path) -> None:
    """SessionStart -> UserPromptSubmit -> apply_patch on a scoped file -> Bash `cat` of
    another; then a compaction (SessionStart `compact`) lets the next touch show it again."""
    start, ask, after = (
        entry(store, e) for e in ("SessionStart", "UserPromptSubmit", "PostToolUse")
    )
    started = run(start, fixture("codex.SessionStart", store, "cx"), store)
    assert "L-000" not in started
    data = json.loads(fixture("codex.UserPromptSubmit", store, "cx"))
    data["prompt"] = "fix the flaky payments webhook test"
    asked = context(run(ask, json.dumps(data), store), "UserPromptSubmit")
    assert "L-0002 (" in asked and "L-0001" not in asked and "L-0003" not in asked
    patch = (
        "*** Begin Patch\n*** Update File: payments/webhook/handler.py\n@@\n-x\n+y\n"
        "*** Update File: billing/invoice.py\n@@\n-x\n+y\n*** End Patch\n"
    )
    patched = context(
        run(after, tool_call(store, "cx", "apply_patch", patch), store), "PostToolUse"
    )
    assert MONEY in patched and "L-0002" not in patched  # shown at the prompt already
    shown = run(after, tool_call(store, "cx", "Bash", "cd reports && cat daily.py"), store)
    assert "L-0003 (scope reports/**" in context(shown, "PostToolUse")
    assert "L-0001" not in shown and "L-0002" not in shown
    again = tool_call(store, "cx", "Bash", "cat billing/invoice.py reports/daily.py")
    assert run(after, again, store) == ""
    compact = json.loads(fixture("codex.SessionStart", store, "cx"))
    compact["source"] = "compact"
    run(start, json.dumps(compact), store)
    assert MONEY in context(run(after, again, store), "PostToolUse")


def test_install_merges_into_their_file_and_uninstall_restores_it(
    workspace: Path, orbit: CliRunner
) -> None:
    path = workspace / SETTINGS
    path.parent.mkdir()
    theirs: dict[str, Any] = {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "./notify.sh", "timeout": 30}]}],
        },
        "note": "kept",
    }
    path.write_text(json.dumps(theirs, indent=4))
    assert orbit("hooks", "install", "--codex").code == 0
    once = path.read_text()
    assert orbit("hooks", "install", "codex").code == 0
    assert path.read_text() == once  # a second run adds nothing
    merged = json.loads(once)
    assert merged["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]
    assert (
        merged["hooks"]["PostToolUse"][1]["matcher"] == "Bash|apply_patch|mcp__.*(file|director).*"
    )
    assert set(merged["hooks"]) == {
        *("PostToolUse", "Stop", "SessionStart", "UserPromptSubmit", "SubagentStart"),
    }
    assert orbit("hooks", "uninstall", "--codex").code == 0
    assert json.loads(path.read_text()) == theirs
    (workspace / ".codex/config.toml").write_text("[features]\n")
    path.write_text(json.dumps({"hooks": {}}))
    orbit("hooks", "install", "--codex")
    orbit("hooks", "uninstall", "--codex")
    assert (workspace / ".codex/config.toml").exists()  # a folder holding theirs stays


def test_an_install_into_no_file_is_undone_completely(workspace: Path, orbit: CliRunner) -> None:
    orbit("hooks", "install", "codex", "--no-prompt")
    hooks = json.loads((workspace / SETTINGS).read_text())["hooks"]
    assert "UserPromptSubmit" not in hooks and "PostToolUse" in hooks
    orbit("hooks", "uninstall", "codex")
    assert not (workspace / ".codex").exists()  # the folder it made goes too


def test_doctor_reports_the_codex_entry(store: Path, orbit: CliRunner) -> None:
    outcome = orbit("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(outcome.out)["checks"]}
    assert checks["codex hook"]["status"] == "ok", checks["codex hook"]
    (store / ".codex/config.toml").write_text('model = "x"\n[features]\nhooks = false\n')
    checks = {c["name"]: c for c in json.loads(orbit("doctor", "--json").out)["checks"]}
    assert checks["codex hooks enabled"]["status"] == "warn"
    (store / SETTINGS).write_text("{not json")
    checks = {c["name"]: c for c in json.loads(orbit("doctor", "--json").out)["checks"]}
    assert checks["codex hook"]["status"] == "fail"


def test_a_broken_payload_never_fails_codex(store: Path) -> None:
    command = entry(store, "PostToolUse")
    for stdin in ("", "not json", "[]", '{"hook_event_name": "PostToolUse"}'):
        assert run(command, stdin, store) == ""


def test_a_subagent_gets_the_note_and_its_own_dedup_set(store: Path) -> None:
    """SubagentStart (`session_id` is the parent's): the note; the subagent's tool calls
    carry `agent_id` and show it what the parent was shown, once, in its own context."""
    after = entry(store, "PostToolUse")
    read = fixture("codex.PostToolUse.Bash", store, "par")
    assert MONEY in context(run(after, read, store), "PostToolUse")  # the parent sees it
    started = run(
        entry(store, "SubagentStart"), fixture("codex.SubagentStart", store, "par"), store
    )
    assert ".orbit/learnings" in context(started, "SubagentStart")
    child = json.dumps({**json.loads(read), "agent_id": "par-worker-1", "agent_type": "default"})
    assert MONEY in context(run(after, child, store), "PostToolUse")
    assert run(after, child, store) == "" and run(after, read, store) == ""


def test_an_mcp_tool_that_touches_no_file_is_silent(store: Path) -> None:
    data = json.loads(fixture("codex.PostToolUse.mcp", store, "m"))
    data.update(tool_name="mcp__github__search_issues", tool_input={"query": "billing"})
    assert run(entry(store, "PostToolUse"), json.dumps(data), store) == ""


CONFIG = """# the team's Codex settings
model = "gpt-5.1-codex"

[features]
hooks = true

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "./notify.sh"  # tell the channel
timeout = 30
"""


def test_a_project_with_hooks_in_config_toml_gets_orbits_there(
    workspace: Path, orbit: CliRunner
) -> None:
    """Codex warns when one layer has both hooks.json and [hooks]: the install follows the
    project's choice, appends one block, and uninstall gives back the file byte for byte."""
    import tomllib

    three_scoped_learnings(workspace, orbit)
    toml = workspace / ".codex/config.toml"
    toml.parent.mkdir()
    toml.write_text(CONFIG)
    assert orbit("hooks", "install", "--codex").code == 0
    assert not (workspace / SETTINGS).exists()
    written = toml.read_text()
    assert written.startswith(CONFIG)  # their text, untouched, then orbit's block
    assert orbit("hooks", "install", "codex").code == 0 and toml.read_text() == written
    hooks = tomllib.loads(written)["hooks"]
    assert hooks["Stop"] == [
        {"hooks": [{"type": "command", "command": "./notify.sh", "timeout": 30}]}
    ]
    command = hooks["PostToolUse"][0]["hooks"][0]["command"]
    read = fixture("codex.PostToolUse.Bash", workspace, "t")
    assert MONEY in context(run(command, read, workspace), "PostToolUse")
    checks = {c["name"]: c for c in orbit("doctor", "--json").json()["checks"]}
    assert (
        checks["codex hook"]["status"] == "ok" and "config.toml" in checks["codex hook"]["message"]
    )
    assert checks["codex dry run"]["status"] == "ok", checks["codex dry run"]
    assert orbit("hooks", "uninstall", "--codex").code == 0
    assert toml.read_text() == CONFIG


def test_a_config_toml_orbit_cannot_extend_is_left_alone(workspace: Path, orbit: CliRunner) -> None:
    toml = workspace / ".codex/config.toml"
    toml.parent.mkdir()
    theirs = '[hooks]\nPostToolUse = [{matcher = "Bash", hooks = [{type = "command", command = "./a.sh"}]}]\n'
    toml.write_text(theirs)
    outcome = orbit("hooks", "install", "--codex")
    assert outcome.code != 0 and "config.toml" in outcome.err and "Traceback" not in outcome.err
    assert toml.read_text() == theirs and not (workspace / SETTINGS).exists()


def test_capture_reflect_adds_a_stop_entry_that_names_the_rollouts_moments(
    workspace: Path, orbit: CliRunner
) -> None:
    """With capture.reflect (and nudge) on, `hooks install --codex` writes a Stop entry; fed
    the documented Stop payload pointing at a rollout where `python` failed and `python3`
    passed, it blocks the stop once and names that moment; the nudge names it at the prompt
    of a session it was not named to yet."""
    from tests.features.authoring import codex_records

    assert orbit("hooks", "install", "--codex").code == 0
    assert "Stop" not in json.loads((workspace / SETTINGS).read_text())["hooks"]
    (workspace / ".orbit/config.yaml").write_text("capture:\n  nudge: true\n  reflect: true\n")
    assert orbit("hooks", "install", "--codex").code == 0
    (workspace / ".orbit/state").mkdir(exist_ok=True)
    rollout = codex_records.rollout(workspace / ".orbit/state", [
        ("user", "Regenerate the fixtures."),
        ("shell", "call_1", "python scripts/make_fixtures.py"),
        ("output", "call_1", "bash: python: command not found", 127),
        ("shell", "call_2", "python3 scripts/make_fixtures.py"),
        ("output", "call_2", "wrote 12 fixtures", 0),
    ], str(workspace))  # fmt: skip
    stop = json.loads(fixture("codex.Stop", workspace, "cx"))
    stop["transcript_path"] = rollout
    answer = json.loads(run(entry(workspace, "Stop"), json.dumps(stop), workspace))
    assert answer["decision"] == "block"
    assert (
        "- `python scripts/make_fixtures.py` failed (bash: python: command not found)"
        in (answer["reason"])
    )
    assert run(entry(workspace, "Stop"), json.dumps(stop), workspace) == ""  # once
    ask = json.loads(fixture("codex.UserPromptSubmit", workspace, "cy"))
    ask.update(prompt="Now the docs.", transcript_path=rollout)
    said = context(run(entry(workspace, "UserPromptSubmit"), json.dumps(ask), workspace),
                   "UserPromptSubmit")  # fmt: skip
    assert said.startswith("orbit noticed in this session") and "python3" in said
