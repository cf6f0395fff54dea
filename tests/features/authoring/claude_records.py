"""Claude Code session records as the agent writes them, for building session-shaped inputs.

One definition for the capture tests (drafting, the draft gate): a record, a tool call, its
result, a refusal with the harness's wording, an interruption, and the file they go into.
"""

from __future__ import annotations

import json
from pathlib import Path

CWD = "/Users/dev/shop"


def record(kind: str, content: object) -> dict[str, object]:
    """A turn: `assistant` for the agent, anything else is the user's side of the exchange."""
    role = "assistant" if kind == "assistant" else "user"
    return {"type": role, "cwd": CWD, "isSidechain": False, "sessionId": "s",
            "message": {"role": role, "content": content}}  # fmt: skip


def call(call_id: str, tool: str, **given: object) -> dict[str, object]:
    return record("assistant", [{"type": "tool_use", "id": call_id, "name": tool, "input": given}])


def result(call_id: str, text: str, *, error: bool = False) -> dict[str, object]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
    return record("user", [block])


def refused(call_id: str, reason: str) -> dict[str, object]:
    """A tool call the person refused, with the reason they typed (the harness's wording)."""
    return result(
        call_id,
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
        "it was a file edit, the new_string was NOT written to the file). The user provided the "
        f"following reason for the rejection: {reason}",
        error=True,
    )


def interrupted() -> dict[str, object]:
    return record("user", [{"type": "text", "text": "[Request interrupted by user for tool use]"}])


def write_session(tmp_path: Path, *records: dict[str, object]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path
