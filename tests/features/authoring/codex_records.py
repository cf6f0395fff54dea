"""Codex CLI rollout records as the agent writes them, for building session-shaped inputs.

One definition for the capture tests (moments, the nudge and the reflection): messages, shell
calls and their output, patches, in `~/.codex/sessions/…/rollout-*.jsonl` form.
"""

from __future__ import annotations

import json
from pathlib import Path


def rollout(tmp_path: Path, events: list[tuple[object, ...]], cwd: str) -> str:
    """A Codex CLI rollout: ("user"|"assistant", text), ("shell", id, command),
    ("output", id, text, exit_code), ("patch", id, patch)."""
    rows: list[dict[str, object]] = [{"type": "session_meta", "payload": {"id": "019a5820",
                                       "cwd": cwd, "originator": "codex_cli_rs"}}]  # fmt: skip
    for event in events:
        kind = event[0]
        item: dict[str, object]
        if kind in ("user", "assistant"):
            part = "input_text" if kind == "user" else "output_text"
            item = {"type": "message", "role": kind, "content": [{"type": part, "text": event[1]}]}
        elif kind == "shell":
            arguments = {"command": ["bash", "-lc", event[2]], "workdir": cwd}
            item = {"type": "function_call", "name": "shell", "call_id": event[1],
                    "arguments": json.dumps(arguments)}  # fmt: skip
        elif kind == "output":
            output = {"output": event[2], "metadata": {"exit_code": event[3]}}
            item = {
                "type": "function_call_output",
                "call_id": event[1],
                "output": json.dumps(output),
            }
        else:
            item = {"type": "custom_tool_call", "name": "apply_patch", "call_id": event[1],
                    "status": "completed", "input": event[2]}  # fmt: skip
        rows.append({"timestamp": "2026-11-05T09:00:00Z", "type": "response_item", "payload": item})
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)
