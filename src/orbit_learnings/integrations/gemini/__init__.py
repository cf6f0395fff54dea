"""Gemini CLI: `orbit hook gemini` after its file tools, from `.gemini/settings.json`.

`AfterTool` appends `hookSpecificOutput.additionalContext` to the tool result;
`BeforeAgent` (after the user submits a prompt, before planning; the text in `prompt`)
adds it to that turn; `SessionStart` with source `clear`, and `PreCompress`, forget what
the session was shown. Tools: `read_file` (`file_path`), `read_many_files` (`include`),
`write_file`, `replace`, `glob` and `grep_search` (`dir_path`, `pattern`), `list_directory`,
`run_shell_command` (`command`). Gemini's hook timeouts are milliseconds. Hooks are
on by default from v0.27.0.

Reference (read 2026-11-24): https://geminicli.com/docs/hooks/ (repository docs/hooks/)
"""

from __future__ import annotations

import json

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.integrations.agenthook import AgentHook

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing imports
    from typing import Any, ClassVar

    from orbit_learnings.store.workspace import Workspace

FILE_TOOLS = agenttools.matcher("gemini")


class Gemini(AgentHook):
    name = "gemini"
    summary = "Gemini CLI: context after read_file/replace/glob/grep/shell, and for the prompt"
    hook_help = (
        "Gemini CLI hook: reads an AfterTool, BeforeAgent, SessionStart or PreCompress payload "
        "on stdin and "
        "prints hookSpecificOutput.additionalContext when learnings apply.\n\n"
        "\b\nExample (.gemini/settings.json, written by `orbit hooks install gemini`):\n"
        '  {"hooks": {"AfterTool": [{"matcher": "read_file|replace", "hooks": [\n'
        '    {"type": "command", "command": "orbit hook gemini", "timeout": 10000}]}]}}'
    )
    settings = ".gemini/settings.json"
    nested = True
    events: ClassVar[dict[str, str | None]] = {
        "AfterTool": FILE_TOOLS,
        "BeforeAgent": None,
        "SessionStart": None,  # lifecycle matchers are exact strings, not alternations
        "PreCompress": None,
    }

    def handler(self, command: str, matcher: str | None) -> dict[str, Any]:
        return {"type": "command", "command": command, "timeout": 10000}  # milliseconds

    start_events = ("SessionStart",)
    compact_events = ("PreCompress",)
    prompt_events = ("BeforeAgent",)
    # Gemini turns any non-JSON stdout, or stderr when stdout is empty, into a message
    # for the user: answer JSON always and keep stderr quiet.
    empty_answer = "{}\n"
    quiet = True

    def answer(self, event: str, text: str) -> str:
        if not text:
            return ""
        specific = {"hookEventName": event or "AfterTool", "additionalContext": text}
        return json.dumps({"hookSpecificOutput": specific}) + "\n"

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        tool_input = {"file_path": str(ws.root / path)}
        payload = {"session_id": "orbit-doctor", "cwd": ws.root_str, "hook_event_name": "AfterTool"}
        return "AfterTool", {**payload, "tool_name": "read_file", "tool_input": tool_input}


INTEGRATION = Gemini()
