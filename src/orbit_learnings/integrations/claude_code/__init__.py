"""Claude Code: the hook that adds matching learnings to file-tool calls, and its installer.

`hook.py` answers the hook (stdlib only, it runs on every file Claude touches);
`setup.py` merges the hook entry into `.claude/settings.json` and writes the skill.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.integrations.agenthook import AgentHook
from orbit_learnings.integrations.base import Check, SetupReport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any

    from orbit_learnings.store.workspace import Workspace

DENY_FLAG = "--deny-new-writes"


class ClaudeCode(AgentHook):
    name = "claude-code"
    summary = (
        "Claude Code: context after file tools, for the prompt, at session start, for subagents"
    )
    hook_help = (
        "Claude Code hook for PostToolUse, UserPromptSubmit, SessionStart and SubagentStart: "
        "reads the event on stdin and prints additionalContext for it; always exits 0.\n\n"
        f"{DENY_FLAG} (on a PreToolUse entry for Write): deny creating a new file once, with "
        "the learnings as the reason.\n\n"
        "\b\nExample (.claude/settings.json, by `orbit hooks install claude-code`):\n"
        f'  {{"matcher": "{agenttools.matcher("claude-code")}",\n'
        '   "hooks": [{"type": "command", "command": "orbit hook claude-code"}]}'
    )
    deny_new_writes = False  # `--deny-new-writes` on the hook's command line

    def hook(self, stdin_text: str, *, root: str | None, flags: Sequence[str]) -> tuple[str, str]:
        self.deny_new_writes = DENY_FLAG in (flags or ())
        return super().hook(stdin_text, root=root, flags=flags)

    def respond(self, payload: dict[str, object], ws: Workspace, *, record: bool) -> str:
        """Claude Code's events (and the Copilot and Cursor shapes that run this entry)."""
        from orbit_learnings.integrations.claude_code import hook

        return hook.respond(payload, ws, deny_new_writes=self.deny_new_writes, record=record)

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        from orbit_learnings.integrations.claude_code import setup

        return setup.install(ws.root, command, prompt=prompt)

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        from orbit_learnings.integrations.claude_code import setup

        return setup.uninstall(ws.root, command)

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        return [_hook_check(ws), _dry_run(ws, sample_path)]


def _hook_check(ws: Workspace) -> Check:
    import json as json_module

    from orbit_learnings.core.errors import OrbitError
    from orbit_learnings.integrations import hookfiles
    from orbit_learnings.integrations.claude_code import setup

    name = "claude code hook"
    path = ws.root / setup.SETTINGS
    try:
        commands = setup.hook_commands(ws.root)
        text = hookfiles.read_settings(path)
        data = json_module.loads(text) if text is not None else {}
    except ValueError:
        return Check(name, "fail", f"{setup.SETTINGS} is not valid JSON")
    except OrbitError as exc:  # a link out of the repository, a FIFO, a device
        return Check(name, "fail", exc.message)
    if not commands:
        return Check(
            name, "warn", f"no orbit entry in {setup.SETTINGS}; run `orbit hooks install --claude`"
        )
    missing = _missing_program(ws, [c for c in commands if not hookfiles.is_guarded(c)])
    if missing:
        return Check(
            name,
            "fail",
            f"the hook runs `{missing}`, which is not on PATH; install orbit with pip/pipx, "
            "or run `orbit hooks install --claude` for an entry that skips itself without orbit",
        )
    events = {event for event in data.get("hooks", {}) if setup.EVENTS.get(event, "") != ""}
    if "PostToolUse" not in events:
        return Check(
            name,
            "warn",
            f"{setup.SETTINGS} has an older orbit entry (context before the tool, no compaction "
            "or subagent support); run `orbit hooks install --claude` to update it",
        )
    if setup.reflects(ws.root) and not _runs_at_stop(data, commands):
        return Check(
            name,
            "warn",
            f"capture.reflect is on in .orbit/config.yaml but {setup.SETTINGS} has no orbit "
            "Stop entry, so the reflection never asks; run `orbit hooks install --claude`",
        )
    unguarded = [c for c in commands if not hookfiles.is_guarded(c)]
    if unguarded:
        return Check(
            name,
            "warn",
            f"teammates without orbit on PATH get a failing hook on every tool call (and Copilot "
            f"CLI denies the call): `{unguarded[0]}`; `orbit hooks install --claude` writes a "
            "guarded entry",
        )
    return Check(
        name, "ok", f"{setup.SETTINGS} runs orbit, silently skipped where orbit is not installed"
    )


def _runs_at_stop(settings: dict[str, Any], commands: list[str]) -> bool:
    """Whether one of orbit's commands is an entry of the `Stop` event."""
    from orbit_learnings.integrations import hookfiles

    hooks = settings.get("hooks")
    stop = hooks.get("Stop") if isinstance(hooks, dict) else None
    return any(command in commands for command in hookfiles.event_commands(stop))


def _missing_program(ws: Workspace, commands: list[str]) -> str | None:
    """The first command whose program this machine cannot run, if any."""
    import shlex
    import shutil

    for command in commands:
        words = shlex.split(command) if command.strip() else [""]
        if not (shutil.which(words[0]) or os.path.exists(os.path.join(ws.root_str, words[0]))):
            return command
    return None


def _dry_run(ws: Workspace, sample_path: str | None) -> Check:
    """Run the installed PostToolUse entry for real, as Claude Code would (its shell, this
    PATH, a Read payload on stdin) and say what the model would receive. An entry that
    answers nothing for a file that has learnings fails: the agent gets nothing either.
    Before any install, the hook's answer in-process: a preview of what it would say."""
    from orbit_learnings.integrations.claude_code import setup
    from orbit_learnings.integrations.doctor import sample_path as find_sample

    path = sample_path or find_sample(ws)
    if path is None:
        return Check("dry run", "skip", "no file in the repository matches any learning's scope")
    command = _installed_entry(ws, setup)
    if command is None:  # not installed yet: what the hook would say, answered in-process
        from orbit_learnings.integrations.claude_code import hook

        try:
            payload = json.loads(_read_payload(ws, path))
            output = hook.respond(payload, ws, deny_new_writes=False, record=False)
            why = ""
        except Exception as exc:  # the doctor reports what a hook would have swallowed
            return Check("dry run", "fail", f"the hook failed on {path}: {exc}")
        if not output:
            return Check("dry run", "warn", f"the hook would add nothing for {path}")
    else:
        from orbit_learnings.integrations.dryrun import run_entry

        output, why = run_entry(ws, command, _read_payload(ws, path))
        output = output.strip()
    if not output:
        return Check(
            "dry run",
            "fail",
            f"the installed entry answered nothing for a Read of {path}, which has learnings"
            f"{why}: is orbit reachable from it? Install orbit on PATH (pipx) or run "
            "`orbit hooks install --claude` from the install you use",
        )
    from orbit_learnings.integrations.dryrun import context_in

    context = context_in(output)
    return Check("dry run", "ok", f"for a Read of {path} the model would receive:", context)


def _installed_entry(ws: Workspace, setup: ModuleType) -> str | None:
    """The command the settings run for this hook (every event's entry is the same one)."""
    from orbit_learnings.core.errors import OrbitError

    try:
        commands: list[str] = setup.hook_commands(ws.root)
    except (ValueError, OrbitError):
        return None  # `_hook_check` reports an unreadable settings file
    return commands[0] if commands else None


def _read_payload(ws: Workspace, path: str) -> str:
    return json.dumps(
        {
            "session_id": "orbit-doctor",
            "cwd": ws.root_str,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": os.path.join(ws.root_str, path)},
            "tool_response": {"type": "text"},
        }
    )


INTEGRATION = ClaudeCode()
