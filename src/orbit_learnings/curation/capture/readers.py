"""Which reader a session file needs, decided by its shape, and the plain-text reader.

A `.jsonl` file is never re-read as plain text: a line that does not parse is skipped and
counted (`Session.skipped`), so a damaged file says so instead of yielding "0 drafts".
"""

from __future__ import annotations

import json
import os
import re

from orbit_learnings.curation.capture import claude, codex
from orbit_learnings.curation.capture.sessions import (
    ASSISTANT,
    USER,
    Session,
    Turn,
    person_text,
)


def read_session(path: str, *, max_bytes: int) -> Session:
    """The session at `path`, by its shape: JSONL by its first record, else plain text."""
    with open(path, "rb") as handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise ValueError(f"larger than {max_bytes // (1 << 20)} MiB")
    return _session_of(path, raw.decode("utf-8", errors="replace"))


def read_session_end(path: str, *, max_bytes: int) -> Session:
    """The last `max_bytes` of a JSONL session, from a record's start: what a hook at the end
    of a turn reads, bounded however long the session has grown (line numbers count from
    where the read began)."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - max_bytes))
        raw = handle.read(max_bytes)
    if size > max_bytes:
        raw = raw.partition(b"\n")[2]  # the record cut in half is not read
    return _session_of(path, raw.decode("utf-8", errors="replace"))


def _session_of(path: str, text: str) -> Session:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not first.startswith("{"):
        return Session(path, "text", _from_text(text), lines=len(text.splitlines()))
    rows, lines, skipped = _json_rows(text)
    session = codex.read(path, rows) if codex.recognises(rows) else claude.read(path, rows)
    session.lines, session.skipped = lines, skipped + session.skipped
    return session


def _json_rows(text: str) -> tuple[list[tuple[int, dict[str, object]]], int, int]:
    rows: list[tuple[int, dict[str, object]]] = []
    lines = skipped = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        lines += 1
        try:
            row = json.loads(line)
        except ValueError:
            skipped += 1
            continue
        if isinstance(row, dict):
            rows.append((number, row))
        else:
            skipped += 1
    return rows, lines, skipped


_SPEAKER = re.compile(
    r"^\s*(?:#+\s*)?(?:\*\*)?(User|Human|You|Assistant|Claude|AI|Agent)(?:\*\*)?\s*:?(?:\*\*)?"
    r"\s*(.*)$",
    re.I,
)


def _from_text(text: str) -> list[Turn]:
    """A pasted or exported transcript: `User:` / `Assistant:` (or `## User`) paragraphs."""
    turns: list[Turn] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _SPEAKER.match(line)
        if match and (":" in line or line.lstrip().startswith("#")):
            speaker = match.group(1).lower()
            kind = USER if speaker in ("user", "human", "you") else ASSISTANT
            turns.append(Turn(number, kind, text=match.group(2)))
        elif turns and line.strip():
            turns[-1].text = (turns[-1].text + "\n" + line.strip()).strip()
    for turn in turns:
        if turn.kind == USER:
            turn.kind, turn.text = person_text(turn.text)
    return turns
