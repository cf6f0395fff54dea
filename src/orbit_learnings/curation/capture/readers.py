"""Which reader a session file needs, decided by its shape, and the plain-text reader.

A `.jsonl` file is never re-read as plain text: a line that does not parse is skipped and
counted (`Session.skipped`), so a damaged file says so instead of yielding "0 drafts".
"""

from __future__ import annotations

import json
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
    return session_of_text(path, raw.decode("utf-8", errors="replace"))


def session_of_text(path: str, text: str) -> Session:
    """A session already read, by its shape: JSONL by its first record, else plain text."""
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
        if _is_record(row):
            rows.append((number, row))
        else:
            skipped += 1
    return rows, lines, skipped


def _is_record(row: object) -> bool:
    """An object whose `type` (and its payload's, in a Codex rollout) is text when present:
    every agent writes one so; anything else is a damaged line, skipped and counted."""
    if not isinstance(row, dict):
        return False
    payload = row.get("payload")
    types = [row.get("type"), payload.get("type") if isinstance(payload, dict) else None]
    return all(kind is None or isinstance(kind, str) for kind in types)


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
