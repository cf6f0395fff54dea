"""Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`), as written today.

Record types read: `user` and `assistant` messages (text, `tool_use`, `tool_result`),
`attachment` records of type `queued_command` (what the person typed while the agent worked,
with `commandMode: prompt`), and everything else counted but not needed (`summary`,
`system`, `file-history-snapshot`, `queue-operation`, whose prompts the attachment repeats).
`isMeta` and `isCompactSummary` user records are the harness's; `isSidechain` marks a
subagent's turns. A refused tool call comes back as an error `tool_result` whose text carries
the person's reason after "The user provided the following reason for the rejection:".
"""

from __future__ import annotations

from orbit_learnings.core.agents.transcripts import message_blocks
from orbit_learnings.curation.capture.sessions import (
    ASSISTANT,
    INJECTED,
    TOOL_RESULT,
    TOOL_USE,
    USER,
    Session,
    Turn,
    clip,
    person_text,
    rejection_reason,
)

_KNOWN = {
    "user",
    "assistant",
    "attachment",
    "summary",
    "system",
    "file-history-snapshot",
    "saved_hook_context",  # a hook's added context, saved: the harness's, never the person's
    "queue-operation",
    "progress",
    "custom-title",
    "tag",
    "agent-name",
    "permission-mode",
    "mode",
    "ai-title",
    "last-prompt",
    "pr-link",
}


def read(path: str, rows: list[tuple[int, dict[str, object]]]) -> Session:
    session = Session(path, "claude-code", [])
    for number, row in rows:
        kind = row.get("type")
        if not session.cwd and isinstance(row.get("cwd"), str):
            session.cwd = str(row["cwd"])
        if kind == "attachment":
            _attachment(session, number, row)
        elif kind in ("user", "assistant"):
            _message(session, number, row)
        elif kind not in _KNOWN:
            session.skipped += 1
    return session


def _attachment(session: Session, number: int, row: dict[str, object]) -> None:
    attachment = row.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return
    origin = attachment.get("origin")
    human = not isinstance(origin, dict) or origin.get("kind") in (None, "human")
    prompt = attachment.get("prompt")
    if attachment.get("commandMode", "prompt") == "prompt" and human and isinstance(prompt, str):
        kind, text = person_text(prompt)
        session.turns.append(Turn(number, kind, text=clip(text), queued=True))


def _message(session: Session, number: int, row: dict[str, object]) -> None:
    message = row.get("message")
    if not isinstance(message, dict):
        session.skipped += 1
        return
    role = message.get("role") or row.get("type")
    # The harness's own messages: meta and compaction text, and the API errors it writes
    # as an assistant turn of the model "<synthetic>" ("Not logged in · Please run /login").
    synthetic = message.get("model") == "<synthetic>"
    injected = bool(row.get("isMeta") or row.get("isCompactSummary") or synthetic)
    sidechain = bool(row.get("isSidechain"))
    for block in message_blocks(row):
        turn = _turn(number, str(role), block, injected=injected)
        if turn is not None:
            turn.sidechain = sidechain
            session.turns.append(turn)
            _add_reason(session, turn, row)


def _turn(number: int, role: str, block: dict[str, object], *, injected: bool) -> Turn | None:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", ""))
        if role == ASSISTANT:
            return Turn(number, INJECTED if injected else ASSISTANT, text=clip(text))
        speaker, said = person_text(text)
        return Turn(number, INJECTED if injected else speaker, text=clip(said))
    if kind == "tool_use":
        raw = block.get("input")
        return Turn(
            number,
            TOOL_USE,
            tool=str(block.get("name", "")),
            tool_input=raw if isinstance(raw, dict) else {},
            tool_id=str(block.get("id", "")),
        )
    if kind == "tool_result":
        text = result_text(block.get("content"))
        return Turn(
            number,
            TOOL_RESULT,
            text=clip(text),
            tool_id=str(block.get("tool_use_id", "")),
            is_error=bool(block.get("is_error")),
            rejected=rejection_reason(text) is not None,
        )
    return None


def _add_reason(session: Session, turn: Turn, row: dict[str, object]) -> None:
    """A refused call's reason is the person speaking: it becomes a USER turn of its own."""
    if not turn.rejected:
        return
    extra = row.get("toolUseResult")
    reason = rejection_reason(turn.text) or (
        rejection_reason(extra) if isinstance(extra, str) else None
    )
    if reason:
        session.turns.append(Turn(turn.line, USER, text=clip(reason), tool_id=turn.tool_id))


def result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


__all__ = ["TOOL_RESULT", "read", "result_text"]
