"""Claude Code: the hook that adds matching learnings to file-tool calls, and its installer.

`hook.py` answers the hook (stdlib only, it runs on every file Claude touches);
`setup.py` merges the hook entry into `.claude/settings.json` and writes the skill.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.integrations.base import Check, Integration, SetupReport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from orbit_learnings.store.workspace import Workspace

DENY_FLAG = "--deny-new-writes"


class ClaudeCode(Integration):
    name = "claude-code"
    summary = "Claude Code: a PreToolUse hook on Read/Edit/Write/NotebookEdit, and the skill"
    hook_help = (
        "Claude Code PreToolUse hook: reads the tool call on stdin, prints additionalContext.\n\n"
        f"{DENY_FLAG}: deny a Write of a new file once, with the learnings as the reason.\n\n"
        "\b\nExample (in .claude/settings.json, installed by `orbit hooks install claude-code`):\n"
        '  {"matcher": "Read|Edit|Write|MultiEdit|NotebookEdit",\n'
        '   "hooks": [{"type": "command", "command": "orbit hook claude-code"}]}'
    )
    has_hook = True
    installs = True

    def hook(self, stdin_text: str, *, root: str | None, flags: Sequence[str]) -> tuple[str, str]:
        from orbit_learnings.integrations.claude_code import hook

        return hook.run(stdin_text, root=root, deny_new_writes=DENY_FLAG in flags)

    def install(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        from orbit_learnings.integrations.claude_code import setup

        return setup.install(ws.root, command or setup.HOOK_COMMAND)

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        from orbit_learnings.integrations.claude_code import setup

        return setup.uninstall(ws.root, command or setup.HOOK_COMMAND)

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        return [_hook_check(ws), _dry_run(ws, sample_path)]


def _hook_check(ws: Workspace) -> Check:
    import shlex
    import shutil

    from orbit_learnings.integrations.claude_code import setup

    name = "claude code hook"
    try:
        commands = setup.hook_commands(ws.root)
    except ValueError:
        return Check(name, "fail", f"{setup.SETTINGS} is not valid JSON")
    if not commands:
        return Check(
            name, "warn", f"no orbit entry in {setup.SETTINGS}; run `orbit hooks install --claude`"
        )
    program = shlex.split(commands[0])[0] if commands[0].strip() else ""
    if not (shutil.which(program) or os.path.exists(os.path.join(ws.root_dir, program))):
        return Check(
            name,
            "fail",
            f"the hook runs `{commands[0]}`, but `{program}` is not on PATH; "
            "install orbit with pip/pipx or point --command at scripts/claude-code-hook.sh",
        )
    return Check(name, "ok", f"{setup.SETTINGS} runs `{commands[0]}`")


def _dry_run(ws: Workspace, sample_path: str | None) -> Check:
    from orbit_learnings.integrations.claude_code import hook
    from orbit_learnings.integrations.doctor import sample_path as find_sample

    path = sample_path or find_sample(ws)
    if path is None:
        return Check("dry run", "skip", "no file in the repository matches any learning's scope")
    payload = json.dumps(
        {
            "session_id": "orbit-doctor",
            "cwd": ws.root_dir,
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": os.path.join(ws.root_dir, path)},
        }
    )
    try:
        output = hook.respond(payload, root=ws.root_dir, record=False)
    except Exception as exc:
        return Check("dry run", "fail", f"the hook failed on {path}: {exc}")
    if not output:
        return Check("dry run", "warn", f"the hook would add nothing for {path}")
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    return Check("dry run", "ok", f"for a Read of {path} the model would receive:", context)


INTEGRATION = ClaudeCode()
