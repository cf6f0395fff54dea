"""Prompt-time delivery: the user's prompt searched with the confidence gate, in real
processes through the command `orbit hooks install` wrote (`sh -c`, as agents run it).

A learning shown at the prompt is not shown again when the file is read: the prompt and
the tool calls share one dedup set per agent context.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.testing import (
    PAYMENTS_WEBHOOK,
    CliRunner,
    agent_payload,
    hook_context,
    run_entry,
    three_scoped_learnings,
)

WEBHOOK = PAYMENTS_WEBHOOK


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    return three_scoped_learnings(workspace, orbit)


fixture = agent_payload


def installed(root: Path, settings: str, event: str) -> str:
    entry = json.loads((root / settings).read_text())["hooks"][event][0]
    return str(entry["hooks"][0]["command"])


run, context = run_entry, hook_context


def prompt(root: Path, text: str, session: str) -> str:
    data = {
        "session_id": session,
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    return json.dumps(data)


def read(root: Path, path: str, session: str) -> str:
    data = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(root / path)},
        "tool_response": {"type": "text"},
    }
    return json.dumps(data)


def test_claude_code_installs_a_prompt_entry_that_answers_the_documented_payload(
    store: Path, orbit: CliRunner
) -> None:
    assert orbit("hooks", "install", "--claude").code == 0
    command = installed(store, ".claude/settings.json", "UserPromptSubmit")
    out = run(command, fixture("claude-code.UserPromptSubmit", store, "s1"), store)
    text = context(out, "UserPromptSubmit")
    assert "L-0001 (scope billing/**, 0 votes): Money is integer cents." in text
    assert "L-0002" not in text and "L-0003" not in text
    asked = run(command, prompt(store, "is reports/daily.py right?", "s1"), store)
    assert "reports/daily.py" in context(asked, "UserPromptSubmit")  # the `?` is prose
    assert "L-0003 (" in asked and "L-0001" not in asked  # shown once per session


def test_a_prompt_found_by_its_words_alone_then_the_read_adds_nothing(
    store: Path, orbit: CliRunner
) -> None:
    """The scripted Claude Code session: UserPromptSubmit, then Read of the scoped file."""
    orbit("hooks", "install", "--claude")
    command = installed(store, ".claude/settings.json", "UserPromptSubmit")
    out = run(command, prompt(store, "fix the flaky payments webhook test", "s2"), store)
    assert context(out, "UserPromptSubmit").count("L-0002 (") == 1
    assert "L-0001" not in out and "L-0003" not in out
    after_read = installed(store, ".claude/settings.json", "PostToolUse")
    assert run(after_read, read(store, "payments/webhook/handler.py", "s2"), store) == ""
    billing = run(after_read, read(store, "billing/invoice.py", "s2"), store)
    assert "L-0001" in context(billing, "PostToolUse") and "L-0002" not in billing
    fresh = run(after_read, read(store, "payments/webhook/handler.py", "other"), store)
    assert "L-0002" in fresh  # another session was never shown it


@pytest.mark.parametrize(
    "text",
    ["what is the vacation policy", "fix the docs", "   ", "thanks!"],
)
def test_nothing_confident_means_silence(store: Path, orbit: CliRunner, text: str) -> None:
    orbit("hooks", "install", "--claude")
    command = installed(store, ".claude/settings.json", "UserPromptSubmit")
    assert run(command, prompt(store, text, "quiet"), store) == ""


def test_no_prompt_leaves_the_entry_out_and_a_reinstall_brings_it_back(
    store: Path, orbit: CliRunner
) -> None:
    settings = store / ".claude/settings.json"
    assert orbit("hooks", "install", "--claude").code == 0
    assert orbit("hooks", "install", "--claude", "--no-prompt").code == 0
    hooks = json.loads(settings.read_text())["hooks"]
    assert "UserPromptSubmit" not in hooks and "PostToolUse" in hooks
    orbit("hooks", "install", "--claude")
    assert "UserPromptSubmit" in json.loads(settings.read_text())["hooks"]
    orbit("hooks", "uninstall", "--claude")
    assert not settings.exists()


def test_gemini_before_agent_answers_the_prompt(store: Path, orbit: CliRunner) -> None:
    assert orbit("hooks", "install", "--gemini").code == 0
    command = installed(store, ".gemini/settings.json", "BeforeAgent")
    out = run(command, fixture("gemini-cli.BeforeAgent", store, "g1"), store)
    assert "L-0001 (scope billing/**" in context(out, "BeforeAgent")
    assert run(command, prompt(store, "what is the vacation policy", "g2"), store) == "{}\n"
    orbit("hooks", "install", "--gemini", "--no-prompt")
    assert "BeforeAgent" not in json.loads((store / ".gemini/settings.json").read_text())["hooks"]


def test_cursor_running_the_claude_entry_at_the_prompt_marks_nothing_shown(
    store: Path, orbit: CliRunner
) -> None:
    """Cursor runs `.claude/settings.json` too, but its prompt hook cannot add context: a
    learning it was never shown must still come with its first read."""
    orbit("hooks", "install", "--claude")
    command = installed(store, ".claude/settings.json", "UserPromptSubmit")
    data = {
        **json.loads(prompt(store, "look at billing/invoice.py", "c1")),
        "cursor_version": "2.1",
    }
    assert run(command, json.dumps(data), store) == ""
    read_data = {**json.loads(read(store, "billing/invoice.py", "c1")), "cursor_version": "2.1"}
    after_read = installed(store, ".claude/settings.json", "PostToolUse")
    shown = json.loads(run(after_read, json.dumps(read_data), store))["additional_context"]
    assert "L-0001" in shown


def test_a_scripted_claude_session_shows_each_learning_once_where_it_belongs(
    store: Path, orbit: CliRunner
) -> None:
    """SessionStart -> UserPromptSubmit -> Edit of a scoped file -> Bash `cat` of another,
    through the entries `hooks install --claude` wrote; a compaction shows them again."""
    orbit("hooks", "install", "--claude")
    settings = ".claude/settings.json"
    start, ask, after = (
        installed(store, settings, e) for e in ("SessionStart", "UserPromptSubmit", "PostToolUse")
    )
    begin = {"session_id": "cc", "cwd": str(store), "hook_event_name": "SessionStart"}
    started = run(start, json.dumps({**begin, "source": "startup"}), store)
    assert "L-000" not in started
    asked = context(
        run(ask, prompt(store, "fix the flaky payments webhook test", "cc"), store),
        "UserPromptSubmit",
    )
    assert "L-0002 (" in asked and "L-0001" not in asked and "L-0003" not in asked
    edit = json.loads(read(store, "payments/webhook/handler.py", "cc"))
    edit.update(
        tool_name="Edit",
        tool_input={
            "file_path": str(store / "payments/webhook/handler.py"),
            "old_string": "0",
            "new_string": "1",
        },
    )
    assert run(after, json.dumps(edit), store) == ""  # shown at the prompt already
    bash = {**edit, "tool_name": "Bash", "tool_input": {"command": "cd reports && cat daily.py"}}
    shown = context(run(after, json.dumps(bash), store), "PostToolUse")
    assert "L-0003 (scope reports/**" in shown and "L-0001" not in shown and "L-0002" not in shown
    billing = run(after, read(store, "billing/invoice.py", "cc"), store)
    assert context(billing, "PostToolUse").count("L-0001 (") == 1
    assert run(after, read(store, "billing/invoice.py", "cc"), store) == ""
    run(start, json.dumps({**begin, "source": "compact"}), store)
    assert "L-0001" in run(after, read(store, "billing/invoice.py", "cc"), store)


def test_a_prompt_naming_two_files_shows_each_files_learning(store: Path, orbit: CliRunner) -> None:
    """Measured before: the webhook learning matched the prompt's words so well that the
    billing learning fell under the relative floor, though the prompt names its file; and
    once the webhook one was shown, the prompt got nothing at all."""
    orbit("hooks", "install", "--claude")
    command = installed(store, ".claude/settings.json", "UserPromptSubmit")
    both = (
        "fix the flaky payments webhook test in payments/webhook/handler.py and billing/invoice.py"
    )
    text = context(run(command, prompt(store, both, "two"), store), "UserPromptSubmit")
    assert "L-0001 (" in text and "L-0002 (" in text and "L-0003" not in text
    run(command, prompt(store, "fix the flaky payments webhook test", "shown"), store)
    later = run(
        command,
        prompt(store, "look at payments/webhook/handler.py and billing/invoice.py", "shown"),
        store,
    )
    assert "L-0001 (" in context(later, "UserPromptSubmit") and "L-0002" not in later
