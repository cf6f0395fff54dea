"""Which task did a parent hand to the subagent that is starting?

`SubagentStart` names the subagent (`agent_id`, `agent_type`) and the parent's transcript,
not the task. The task is the parent's latest `Task`/`Agent` tool call for that agent type
that no earlier subagent has claimed, read from the end of the transcript. Reading it here
instead of in a `PreToolUse` hook means no hook runs before the call, so nothing can ever
block a subagent from starting (Copilot CLI denies a call whose pre-tool hook fails).
Stdlib only.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.agents.transcripts import tool_uses
from orbit_learnings.push import inject
from orbit_learnings.store.fileops import (
    HOT_LOCK_SECONDS,
    LockBusy,
    atomic_write_text,
    posix_lock,
)
from orbit_learnings.store.layout import SESSION_CLAIMED_FILE, SESSION_LOCK_FILE
from orbit_learnings.store.workspace import Workspace

SUBAGENT_TOOLS = ("Task", "Agent")
TAIL_BYTES = 512 * 1024  # the handover is recent: the transcript's tail holds it
CLAIMED_FILE = SESSION_CLAIMED_FILE  # per session: tool-use ids already handed out


class Handover:
    __slots__ = ("agent_type", "text", "tool_use_id")

    def __init__(self, tool_use_id: str, agent_type: str, text: str) -> None:
        self.tool_use_id = tool_use_id
        self.agent_type = agent_type
        self.text = text


def handovers(transcript_path: str) -> list[Handover]:
    """Subagent launches in the transcript's tail, oldest first."""
    try:
        with open(transcript_path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(size - TAIL_BYTES, 0))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = tail.splitlines()[1:] if size > TAIL_BYTES else tail.splitlines()
    found: list[Handover] = []
    for line in lines:
        found += _launches(line)
    return found


def _launches(line: str) -> list[Handover]:
    try:
        row = json.loads(line)
    except ValueError:
        return []
    launches: list[Handover] = []
    for block in tool_uses(row):
        data = block.get("input")
        if block.get("name") in SUBAGENT_TOOLS and isinstance(data, dict):
            text = " ".join(str(data.get(k, "")) for k in ("description", "prompt"))
            kind = str(data.get("subagent_type") or "")
            launches.append(Handover(str(block.get("id", "")), kind, text))
    return launches


def claim(ws: Workspace, session_id: str, transcript_path: str, agent_type: str | None) -> str:
    """The task text for a starting subagent ("" when none is left to claim)."""
    folder = inject.session_dir(ws, session_id)
    claimed_file = os.path.join(folder, CLAIMED_FILE)
    try:
        return _claim_locked(folder, claimed_file, transcript_path, agent_type)
    except LockBusy:
        return ""  # a stuck holder: this subagent starts without its task's learnings


def _claim_locked(
    folder: str, claimed_file: str, transcript_path: str, agent_type: str | None
) -> str:
    with posix_lock(os.path.join(folder, SESSION_LOCK_FILE), deadline=HOT_LOCK_SECONDS):
        claimed = _read_claimed(claimed_file)
        open_ones = [h for h in handovers(transcript_path) if h.tool_use_id not in claimed]
        same_kind = [h for h in open_ones if agent_type and h.agent_type == agent_type]
        candidates = same_kind or open_ones
        if not candidates:
            return ""
        chosen = candidates[-1]
        claimed.append(chosen.tool_use_id)
        atomic_write_text(claimed_file, json.dumps(claimed[-200:]) + "\n", durable=False)
    return chosen.text


def _read_claimed(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (FileNotFoundError, ValueError):
        return []
    return [str(x) for x in data] if isinstance(data, list) else []
