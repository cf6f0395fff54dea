"""The agent asked to propose at the moment a lesson shows: opt-in, once, never blocking.

Real `orbit hook claude-code` processes fed the documented payloads
(tests/fixtures/agents/claude-code.UserPromptSubmit.json, claude-code.Stop.json).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.testing import REPO, run_orbit

AGENTS = REPO / "tests/fixtures/agents"


def payload(name: str, root: Path, **fields: object) -> str:
    text = (AGENTS / name).read_text().replace("{session}", "s-1").replace("{root}", str(root))
    return json.dumps({**json.loads(text), **fields})


def hook(root: Path, stdin: str) -> str:
    outcome = run_orbit("hook", "claude-code", cwd=root, stdin=stdin)
    assert outcome.code == 0, outcome.err
    return outcome.out


def switch_on(root: Path) -> None:
    (root / ".orbit/config.yaml").write_text("capture:\n  nudge: true\n  reflect: true\n")


RULE = "no, we never use floats for money here, use integer cents"


def test_off_by_default_nothing_is_added_and_stop_is_silent(workspace: Path) -> None:
    said = hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=RULE))
    assert "propose" not in said
    assert hook(workspace, payload("claude-code.Stop.json", workspace)) == ""


def test_a_rule_shaped_prompt_is_nudged_and_the_stop_asks_once(workspace: Path) -> None:
    switch_on(workspace)
    plain = hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace))
    assert "propose" not in plain  # "Fix the rounding bug…" states no rule
    said = hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=RULE))
    context = json.loads(said)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "orbit learning propose" in context["additionalContext"]
    stop = json.loads(hook(workspace, payload("claude-code.Stop.json", workspace)))
    assert stop["decision"] == "block" and "propose" in stop["reason"]
    assert hook(workspace, payload("claude-code.Stop.json", workspace)) == ""  # once


def test_no_reflection_when_the_session_proposed_or_a_stop_hook_is_active(
    workspace: Path,
) -> None:
    switch_on(workspace)
    hook(workspace, payload("claude-code.UserPromptSubmit.json", workspace, prompt=RULE))
    active = payload("claude-code.Stop.json", workspace, stop_hook_active=True)
    assert hook(workspace, active) == ""
    run_orbit("learning", "propose", "--summary", "Money is integer cents", "-t", "money",
              cwd=workspace)  # fmt: skip
    assert hook(workspace, payload("claude-code.Stop.json", workspace)) == ""


def test_reflect_installs_the_stop_entry_only_when_switched_on(workspace: Path) -> None:
    assert run_orbit("hooks", "install", "--claude", cwd=workspace).code == 0
    settings = json.loads((workspace / ".claude/settings.json").read_text())
    assert "Stop" not in settings["hooks"]
    switch_on(workspace)
    assert run_orbit("hooks", "install", "--claude", cwd=workspace).code == 0
    settings = json.loads((workspace / ".claude/settings.json").read_text())
    assert "Stop" in settings["hooks"]
