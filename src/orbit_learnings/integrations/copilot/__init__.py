"""GitHub Copilot CLI and the Copilot coding agent: `orbit hook copilot`, from
`.github/hooks/orbit-learnings.json` (a file of our own; both read `.github/hooks/`).

Payloads are camelCase: `toolName` (`view`, `edit`, `create`, `bash`, `grep`, `glob`),
`toolArgs` (a JSON string or an object), `cwd`, `sessionId`. Context goes in a top-level
`additionalContext` (postToolUse from CLI 1.0.51, sessionStart from 1.0.11); `preCompact`
lets us forget what a compacted session was shown. A failing preToolUse hook denies the
tool call in recent CLIs, which is why orbit installs no preToolUse entry at all.

Reference (read 2026-11-24): https://docs.github.com/en/copilot/reference/hooks-reference
"""

from __future__ import annotations

import json

from orbit_learnings.integrations.agenthook import AgentHook

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing imports
    from typing import Any, ClassVar

    from orbit_learnings.store.workspace import Workspace


class Copilot(AgentHook):
    name = "copilot"
    summary = "GitHub Copilot CLI and coding agent: context after view/edit/bash/grep/glob"
    hook_help = (
        "Copilot hook: reads a postToolUse, sessionStart or preCompact payload on stdin and "
        'prints {"additionalContext": ...} when learnings apply.\n\n'
        "\b\nExample (.github/hooks/orbit-learnings.json, written by orbit hooks install):\n"
        '  {"version": 1, "hooks": {"postToolUse": [\n'
        '    {"type": "command", "bash": "orbit hook copilot"}]}}'
    )
    settings = ".github/hooks/orbit-learnings.json"
    events: ClassVar[dict[str, str | None]] = {
        "postToolUse": None,
        "sessionStart": None,
        "preCompact": None,
    }

    def handler(self, command: str, matcher: str | None) -> dict[str, Any]:
        return {"type": "command", "bash": command, "timeoutSec": 10}

    def extra_settings(self) -> dict[str, Any]:
        return {"version": 1}

    session_keys = ("sessionId", "session_id")
    tool_keys = ("toolName", "toolArgs")
    start_events = ("sessionStart",)
    compact_events = ("preCompact",)

    def event_of(self, payload: dict[str, object]) -> str:
        """camelCase payloads carry no event name: each event has its own fields."""
        if "toolName" in payload:
            return "postToolUse"
        if "source" in payload:
            return "sessionStart"
        return "preCompact" if "trigger" in payload else ""

    def answer(self, event: str, text: str) -> str:
        return json.dumps({"additionalContext": text}) + "\n" if text else ""

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        payload = {"sessionId": "orbit-doctor", "cwd": ws.root_str, "toolName": "view"}
        return "postToolUse", {**payload, "toolArgs": json.dumps({"path": str(ws.root / path)})}


INTEGRATION = Copilot()
