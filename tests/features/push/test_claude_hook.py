"""Layer 3: the Claude Code hook, fed documented payloads in real processes.

Payloads come from tests/fixtures/agents/ (copied from each agent's hook reference) or are
built in the same shape. Every call exits 0; context comes back for the event that called.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.testing import ORBIT_BIN, REPO, CliRunner, as_teammate, run_orbit

FIXTURES = REPO / "tests/fixtures/agents"


def fixture(name: str, root: Path, session: str = "sess-1") -> str:
    text = (FIXTURES / f"{name}.json").read_text()
    return text.replace("{root}", str(root)).replace("{session}", session)


def payload(
    root: Path,
    tool: str,
    tool_input: Mapping[str, object],
    *,
    session: str = "sess-1",
    event: str = "PostToolUse",
    agent_id: str | None = None,
) -> str:
    data: dict[str, object] = {
        "session_id": session,
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if agent_id:
        data.update(agent_id=agent_id, agent_type="Explore")
    if event == "PostToolUse":
        data["tool_response"] = {"success": True}
    return json.dumps(data)


def read(root: Path, path: str, **kw: str) -> str:
    return payload(root, "Read", {"file_path": str(root / path)}, **kw)


def session_start(root: Path, source: str, session: str = "sess-1") -> str:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(root),
            "hook_event_name": "SessionStart",
            "source": source,
        }
    )


@pytest.fixture
def scoped(workspace: Path, orbit: CliRunner) -> Path:
    orbit("learning", "add", "--summary", "Money is integer cents.", "--path", "billing/**")
    orbit("learning", "add", "--summary", "Notebooks keep outputs cleared.", "--path", "**/*.ipynb")
    orbit("learning", "upvote", "--id", "L-0001", "--model", "claude", "--task", "T-1")
    (workspace / "billing").mkdir()
    (workspace / "billing/invoice.py").write_text("def total():\n    return 0\n")
    return workspace


def hook(
    root: Path, stdin: str, *args: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    outcome = run_orbit("hook", "claude-code", *args, cwd=root, stdin=stdin, env=env)
    return outcome.code, outcome.out, outcome.err


def context(out: str, event: str = "PostToolUse") -> str:
    specific = json.loads(out)["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    return str(specific["additionalContext"])


@pytest.mark.parametrize(
    "name",
    [
        "claude-code.PostToolUse.Read",
        "claude-code.PostToolUse.Bash",
        "claude-code.PostToolUse.Grep",
    ],
)
def test_documented_tool_payloads_get_the_learning_after_the_tool(scoped: Path, name: str) -> None:
    code, out, err = hook(scoped, fixture(name, scoped))
    assert code == 0, err
    assert "L-0001 (scope billing/**, 1 vote): Money is integer cents." in context(out)


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        (
            "Edit",
            {"file_path": "billing/invoice.py", "old_string": "0", "new_string": "1"},
            "L-0001",
        ),
        ("Write", {"file_path": "billing/new.py", "content": "x = 1\n"}, "L-0001"),
        ("NotebookEdit", {"notebook_path": "analysis/report.ipynb", "new_source": "1"}, "L-0002"),
        ("Glob", {"pattern": "**/*.py", "path": "billing"}, "L-0001"),
        ("Bash", {"command": "git diff -- billing/invoice.py"}, "L-0001"),
    ],
)
def test_every_file_reading_tool_is_covered(
    scoped: Path, tool: str, tool_input: dict[str, str], expected: str
) -> None:
    absolute = {k: str(scoped / v) if k.endswith("path") else v for k, v in tool_input.items()}
    code, out, _ = hook(scoped, payload(scoped, tool, absolute))
    assert code == 0 and f"{expected} (scope" in context(out)


def test_the_scripted_session_shows_the_learning_exactly_three_times(scoped: Path) -> None:
    """startup, Read, Read, compact, Read, SubagentStart, Read in the subagent."""
    steps = [
        ("SessionStart", session_start(scoped, "startup")),
        ("PostToolUse", read(scoped, "billing/invoice.py")),
        ("PostToolUse", read(scoped, "billing/invoice.py")),
        ("SessionStart", session_start(scoped, "compact")),
        ("PostToolUse", read(scoped, "billing/invoice.py")),
        ("SubagentStart", fixture("claude-code.SubagentStart", scoped)),
        ("PostToolUse", read(scoped, "billing/invoice.py", agent_id="agent-abc123")),
    ]
    shown = 0
    for event, stdin in steps:
        code, out, err = hook(scoped, stdin)
        assert code == 0, err
        if out:
            text = context(out, event)  # each answer names its own event
            shown += "L-0001" in text
    assert shown == 3


def test_session_start_adds_a_note_and_resume_keeps_what_was_shown(scoped: Path) -> None:
    code, out, _ = hook(scoped, session_start(scoped, "startup"))
    assert code == 0 and ".orbit/learnings" in context(out, "SessionStart")
    assert "L-0001" in context(hook(scoped, read(scoped, "billing/invoice.py"))[1])
    assert hook(scoped, session_start(scoped, "resume"))[1] == ""
    assert hook(scoped, read(scoped, "billing/invoice.py"))[1] == ""  # still in context


def transcript_with_launches(root: Path, *launches: tuple[str, str, str]) -> Path:
    """A Claude Code transcript (JSONL) whose assistant turns launch subagents."""
    rows = [{"type": "user", "message": {"role": "user", "content": "Fix the totals"}}]
    for tool_id, kind, prompt in launches:
        block = {
            "type": "tool_use",
            "id": tool_id,
            "name": "Task",
            "input": {"description": "delegate", "prompt": prompt, "subagent_type": kind},
        }
        rows.append({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
    path = root / "transcript.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def subagent_start(root: Path, agent_id: str, kind: str, transcript: Path) -> str:
    return json.dumps(
        {
            "session_id": "sess-1",
            "transcript_path": str(transcript),
            "cwd": str(root),
            "hook_event_name": "SubagentStart",
            "agent_id": agent_id,
            "agent_type": kind,
        }
    )


def test_a_subagent_gets_the_learnings_of_the_files_its_task_names(scoped: Path) -> None:
    """The task is read from the parent's transcript: no pre-tool hook that could block it."""
    transcript = transcript_with_launches(
        scoped,
        ("toolu_1", "general-purpose", "Fix the rounding in billing/invoice.py"),
        ("toolu_2", "Explore", "Update the README wording"),
    )
    explore = hook(scoped, subagent_start(scoped, "agent-b", "Explore", transcript))
    assert explore[:2] == (0, "")  # its own task names no file with a learning
    general = hook(scoped, subagent_start(scoped, "agent-a", "general-purpose", transcript))
    assert general[0] == 0 and "L-0001" in context(general[1], "SubagentStart")
    again = hook(scoped, subagent_start(scoped, "agent-c", "general-purpose", transcript))
    assert again[1] == ""  # that task was handed out already


def test_pre_tool_use_adds_no_context(scoped: Path) -> None:
    """Context before the tool would be marked shown even when the call is then denied."""
    assert hook(scoped, read(scoped, "billing/invoice.py", event="PreToolUse")) == (0, "", "")
    assert "L-0001" in context(hook(scoped, read(scoped, "billing/invoice.py"))[1])


def test_claude_cwd_in_a_subfolder(scoped: Path) -> None:
    """Claude's cwd may be below the repository root; matching stays repo-relative."""
    run_orbit("learning", "add", "--summary", "One level", "--path", "billing/*.py", cwd=scoped)
    stdin = json.dumps(
        {
            "session_id": "sub",
            "cwd": str(scoped / "billing"),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(scoped / "billing/a.py")},
        }
    )
    code, out, _ = hook(scoped / "billing", stdin)
    assert code == 0 and "L-0003 (scope billing/*.py" in context(out)


def test_same_agent_context_sees_a_learning_once(scoped: Path) -> None:
    first = hook(scoped, read(scoped, "billing/a.py"))[1]
    edit = {"file_path": str(scoped / "billing/a.py"), "old_string": "a", "new_string": "b"}
    second = hook(scoped, payload(scoped, "Edit", edit))[1]
    assert "L-0001" in first and second == ""


def test_commands_that_read_nothing_are_silent(scoped: Path) -> None:
    for command in ("ls", "npm test", "rm -rf billing/invoice.py"):
        assert hook(scoped, payload(scoped, "Bash", {"command": command})) == (0, "", "")
    assert (scoped / "billing/invoice.py").exists()  # commands are read, never run


@pytest.mark.parametrize(
    ("stdin", "fragment"),
    [("not json at all", "not JSON"), ("[1, 2]", "not an object"), ('{"cwd": "/"}', "")],
)
def test_bad_input_never_blocks(scoped: Path, stdin: str, fragment: str) -> None:
    code, out, err = hook(scoped, stdin)
    assert (code, out) == (0, "") and fragment in err


def test_path_outside_the_repo_and_no_workspace_never_block(scoped: Path, tmp_path: Path) -> None:
    assert hook(scoped, payload(scoped, "Read", {"file_path": "/etc/hosts"})) == (0, "", "")
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    code, out, err = hook(lonely, read(lonely, "x.py"))
    assert (code, out) == (0, "") and "orbit init" in err


def test_unknown_arguments_still_exit_zero(scoped: Path) -> None:
    code, out, _ = hook(scoped, read(scoped, "billing/a.py", session="x"), "--bogus")
    assert code == 0 and "L-0001" in context(out)


def test_deny_new_writes_denies_once_then_allows(scoped: Path) -> None:
    write = {"file_path": str(scoped / "billing/new_module.py"), "content": "x"}
    stdin = payload(scoped, "Write", write, session="deny", event="PreToolUse")
    code, out, _ = hook(scoped, stdin, "--deny-new-writes")
    decision = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and decision["permissionDecision"] == "deny"
    assert "L-0001" in decision["permissionDecisionReason"]
    assert hook(scoped, stdin, "--deny-new-writes") == (0, "", "")  # the retry goes through


def test_deny_mode_never_denies_an_existing_file(scoped: Path) -> None:
    write = {"file_path": str(scoped / "billing/invoice.py"), "content": "x"}
    stdin = payload(scoped, "Write", write, session="d2", event="PreToolUse")
    assert hook(scoped, stdin, "--deny-new-writes") == (0, "", "")


def test_hook_records_injections(scoped: Path) -> None:
    hook(scoped, read(scoped, "billing/a.py", session="log"))
    rows = [
        json.loads(x) for x in (scoped / ".orbit/state/injections.jsonl").read_text().splitlines()
    ]
    assert rows[-1]["layer"] == "claude-code" and rows[-1]["session"] == "log"
    assert rows[-1]["trigger"] == {"tool": "Read", "paths": ["billing/a.py"]}


def test_copilot_cli_and_vs_code_payloads_get_answers_they_read(scoped: Path) -> None:
    """Both read .claude/settings.json and send their own shapes."""
    code, out, _ = hook(scoped, fixture("copilot-cli.postToolUse.view", scoped))
    assert code == 0 and "L-0001" in json.loads(out)["additionalContext"]
    code, out, _ = hook(scoped, fixture("vscode.PostToolUse.read_file", scoped, session="vs"))
    assert code == 0 and "L-0001" in context(out)


SETTINGS_BEFORE: dict[str, Any] = {
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


def installed_command(root: Path) -> str:
    data = json.loads((root / ".claude/settings.json").read_text())
    group = data["hooks"]["PostToolUse"][-1]
    return str(group["hooks"][0]["command"])


def test_hooks_install_claude_merges_and_uninstall_restores(
    workspace: Path, orbit: CliRunner
) -> None:
    settings = workspace / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(SETTINGS_BEFORE, indent=2))
    assert orbit("hooks", "install", "--claude").code == 0
    first = settings.read_text()
    assert orbit("hooks", "install", "--claude").code == 0
    assert settings.read_text() == first  # twice adds nothing
    data = json.loads(first)
    assert data["permissions"] == SETTINGS_BEFORE["permissions"]
    assert data["hooks"]["PreToolUse"][0] == SETTINGS_BEFORE["hooks"]["PreToolUse"][0]
    assert data["hooks"]["PostToolUse"][0] == SETTINGS_BEFORE["hooks"]["PostToolUse"][0]
    ours = data["hooks"]["PostToolUse"][1]
    assert ours["matcher"] == "Read|Edit|Write|NotebookEdit|Bash|PowerShell|Grep|Glob"
    assert set(data["hooks"]) == {
        "PreToolUse",
        "PostToolUse",
        "SessionStart",
        "SubagentStart",
        "UserPromptSubmit",
    }
    assert data["hooks"]["PreToolUse"] == SETTINGS_BEFORE["hooks"]["PreToolUse"]  # none of ours
    skill = workspace / ".claude/skills/orbit-learnings/SKILL.md"
    assert skill.read_text().startswith("---\nname: orbit-learnings\n")
    removed = orbit("hooks", "uninstall", "--claude")
    assert removed.code == 0
    assert json.loads(settings.read_text()) == SETTINGS_BEFORE
    assert not skill.exists()
    said = removed.out + removed.err  # what it took out, never "removed" of a file still there
    assert "removed .claude/settings.json\n" not in said
    line = said.splitlines()[0]
    assert line.startswith("removed orbit's "), said
    assert line.endswith(" entries from .claude/settings.json (the rest of the file kept)")
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "SubagentStart"):
        assert event in line, said
    alone = orbit("hooks", "uninstall", "--claude")
    assert "removed" not in alone.out + alone.err


def test_uninstall_of_a_file_only_orbit_filled_says_it_is_gone(
    workspace: Path, orbit: CliRunner
) -> None:
    assert orbit("hooks", "install", "--claude").code == 0
    removed = orbit("hooks", "uninstall", "--claude")
    said = removed.out + removed.err
    assert "removed .claude/settings.json (it held only orbit's entries)" in said
    assert not (workspace / ".claude/settings.json").exists()


def test_an_older_install_is_replaced_not_duplicated(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{ORBIT_BIN.parent}:{os.environ['PATH']}")
    settings = workspace / ".claude/settings.json"
    settings.parent.mkdir()
    old_group = {
        "matcher": "Read|Edit|Write|MultiEdit|NotebookEdit",
        "hooks": [{"type": "command", "command": "orbit hook claude-code"}],
    }
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [old_group]}}))
    assert "older orbit entry" in orbit("doctor").out
    orbit("hooks", "install", "--claude")
    hooks = json.loads(settings.read_text())["hooks"]
    assert "PreToolUse" not in hooks and "PostToolUse" in hooks  # replaced, not duplicated


def test_the_installed_entry_is_silent_and_green_without_orbit(
    scoped: Path, orbit: CliRunner
) -> None:
    """A teammate without orbit, or Copilot CLI running the shared file: exit 0, no output."""
    orbit("hooks", "install", "--claude")
    command = as_teammate(installed_command(scoped))
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    assert shutil.which("orbit", path=bare["PATH"]) is None
    for stdin in (
        read(scoped, "billing/invoice.py"),
        fixture("copilot-cli.postToolUse.view", scoped),
    ):
        proc = subprocess.run(
            ["sh", "-c", command], input=stdin, capture_output=True, text=True, env=bare, cwd=scoped
        )
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    with_orbit = {**os.environ, "PATH": f"{ORBIT_BIN.parent}:{os.environ['PATH']}"}
    proc = subprocess.run(
        ["sh", "-c", command],
        input=read(scoped, "billing/invoice.py", session="e2e"),
        capture_output=True,
        text=True,
        env=with_orbit,
        cwd=scoped,
    )
    assert proc.returncode == 0 and "L-0001" in context(proc.stdout)


def test_doctor_says_the_shared_entry_is_safe_or_risky(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{ORBIT_BIN.parent}:{os.environ['PATH']}")
    orbit("hooks", "install", "--claude")
    assert "silently skipped where orbit is not installed" in orbit("doctor").out
    orbit("hooks", "uninstall", "--claude")
    orbit("hooks", "install", "--claude", "--command", "orbit hook claude-code")
    assert "teammates without orbit on PATH" in orbit("doctor").out


def test_uninstall_keeps_an_edited_skill(workspace: Path, orbit: CliRunner) -> None:
    orbit("hooks", "install", "--claude", "--command", "scripts/claude-code-hook.sh")
    data = json.loads((workspace / ".claude/settings.json").read_text())
    assert data["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "scripts/claude-code-hook.sh"
    skill = workspace / ".claude/skills/orbit-learnings/SKILL.md"
    skill.write_text(skill.read_text() + "\nOur team's note.\n")
    outcome = orbit("hooks", "uninstall", "--claude", "--command", "scripts/claude-code-hook.sh")
    assert "edited, kept" in outcome.out
    assert skill.exists()
    assert not (workspace / ".claude/settings.json").exists()  # we created it: gone again


def test_install_refuses_invalid_settings_without_writing(
    workspace: Path, orbit: CliRunner
) -> None:
    settings = workspace / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    outcome = orbit("hooks", "install", "--claude")
    assert outcome.code == 1 and "not valid JSON" in outcome.err
    assert settings.read_text() == "{ not json"


def test_the_skill_pre_approves_the_read_commands_it_recommends(
    tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert orbit("init", "--skill").code == 0
    text = (tmp_path / ".claude/skills/orbit-learnings/SKILL.md").read_text()
    front = text.split("---\n")[1]
    assert "allowed-tools:" in front and '"Bash(orbit learning list:*)"' in front
    for needle in ("what should I know about", "orbit learning list --path", "upvote"):
        assert needle in text


def test_a_file_name_that_is_not_utf8_still_gets_its_learning(scoped: Path) -> None:
    """A Latin-1 name in the payload (JSON escapes it as a lone surrogate) is looked up
    like any other instead of failing the hook silently."""
    code, out, err = hook(scoped, read(scoped, os.fsdecode(b"billing/caf\xe9.py")))
    assert code == 0, err
    assert "Money is integer cents." in context(out)


def test_a_stuck_holder_of_the_session_lock_never_blocks_the_hook(scoped: Path) -> None:
    """Measured on main: `flock(LOCK_EX)` with no deadline, so a stuck holder blocked
    every tool call of the agent. Now the hook waits ~200 ms, then answers without the
    dedup (and records nothing as shown). The 30 s is a hang guard."""
    import fcntl

    from orbit_learnings.push import inject
    from orbit_learnings.store.layout import SESSION_SHOWN_FILE
    from orbit_learnings.store.workspace import Workspace

    folder = Path(inject.session_dir(Workspace(scoped), "stuck"))
    folder.mkdir(parents=True)
    holder = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        for _ in range(2):  # no dedup while the lock is stuck: both calls get the learning
            proc = subprocess.run(
                [str(ORBIT_BIN), "hook", "claude-code"],
                input=read(scoped, "billing/invoice.py", session="stuck"),
                capture_output=True,
                text=True,
                cwd=scoped,
                timeout=30,
            )
            assert proc.returncode == 0 and "L-0001" in proc.stdout, proc.stderr
    finally:
        os.close(holder)
    assert not (folder / SESSION_SHOWN_FILE).exists()
