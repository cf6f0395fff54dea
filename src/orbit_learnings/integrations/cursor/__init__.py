"""Cursor: `orbit hook cursor` after its file tools, from `.cursor/hooks.json`.

Cursor adds context only from `postToolUse` and `sessionStart`, in a top-level
`additional_context`; `preCompact` tells us the conversation is about to be compacted,
so what it was shown is forgotten. Payloads carry `conversation_id`, `tool_name`
(`Read`, `Write`, `Grep`, `Shell`, ...) and `tool_input`.

Reference (read 2026-11-24): https://cursor.com/docs/hooks
"""

from __future__ import annotations

import json

from orbit_learnings.integrations.agenthook import AgentHook

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing imports
    from typing import Any, ClassVar

    from orbit_learnings.store.workspace import Workspace


class Cursor(AgentHook):
    name = "cursor"
    summary = "Cursor: context after Read/Write/Grep/Shell (postToolUse), in .cursor/hooks.json"
    hook_help = (
        "Cursor hook: reads a postToolUse, sessionStart or preCompact payload on stdin and "
        'prints {"additional_context": ...} when learnings apply.\n\n'
        "\b\nExample (.cursor/hooks.json, written by `orbit hooks install cursor`):\n"
        '  {"version": 1, "hooks": {"postToolUse": [{"command": "orbit hook cursor"}]}}'
    )
    settings = ".cursor/hooks.json"
    events: ClassVar[dict[str, str | None]] = {
        "postToolUse": "Read|Write|Grep|Shell",
        "sessionStart": None,
        "preCompact": None,
    }

    def extra_settings(self) -> dict[str, Any]:
        return {"version": 1}

    session_keys = ("conversation_id", "session_id")
    start_events = ("sessionStart",)
    compact_events = ("preCompact",)

    def answer(self, event: str, text: str) -> str:
        return json.dumps({"additional_context": text}) + "\n" if text else ""

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        payload: dict[str, object] = {"conversation_id": "orbit-doctor"}
        payload |= {"hook_event_name": "postToolUse"}
        payload |= {"workspace_roots": [ws.root_str], "tool_name": "Read"}
        return "postToolUse", {**payload, "tool_input": {"file_path": str(ws.root / path)}}


INTEGRATION = Cursor()
