"""A Claude Code transcript row (`~/.claude/projects/<project>/<session>.jsonl`), read in one
place: the subagent hand-over (push/handoff.py, on the hot path) and capture
(curation/capture/claude.py) both want a row's message blocks. Stdlib only, no I/O.
"""

from __future__ import annotations


def message_blocks(row: object) -> list[dict[str, object]]:
    """The content blocks of a message row, oldest first ([] for any other row). A message
    whose content is a plain string is one `text` block."""
    message = row.get("message") if isinstance(row, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def tool_uses(row: object) -> list[dict[str, object]]:
    """The row's `tool_use` blocks: `id`, `name` and `input` as the agent called the tool."""
    return [b for b in message_blocks(row) if b.get("type") == "tool_use"]
