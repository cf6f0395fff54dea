"""Codex CLI session files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Each line is `{"timestamp", "type", "payload"}`: `session_meta` (with `cwd`), `response_item`
(a `message` by role, a `function_call` such as `shell` / `exec_command` with its JSON
`arguments`, a `custom_tool_call` such as `apply_patch` with the patch as `input`, and their
`*_output`), `event_msg` (`user_message`, `turn_aborted`, …) and `turn_context`. Early
rollouts wrote the items bare, without the envelope; both are read. Codex puts the
environment context and AGENTS.md in user messages: those are the harness's, not the person's.
Shell commands become `Bash` turns and patches `apply_patch` turns with the files they name,
so the detectors treat every agent alike.
"""

from __future__ import annotations

import json
import re

from orbit_learnings.curation.capture.sessions import (
    ASSISTANT,
    INTERRUPT,
    TOOL_RESULT,
    TOOL_USE,
    USER,
    Session,
    Turn,
    clip,
    person_text,
)

_EXIT = re.compile(r"(?:Exit code|Process exited with code)[:\s]+(-?\d+)")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
_SHELLS = {"shell", "exec_command", "local_shell", "container.exec", "shell_command"}
_ITEMS = {"message", "function_call", "function_call_output", "custom_tool_call", "reasoning"}


def recognises(rows: list[tuple[int, dict[str, object]]]) -> bool:
    for _, row in rows[:5]:
        # any Codex record type: the end of a rollout may open with event_msg rows only
        if row.get("type") in ("session_meta", "response_item", "turn_context", "event_msg"):
            return True
        if "instructions" in row and "id" in row and "type" not in row:
            return True  # the bare first line of an early rollout
    return False


def read(path: str, rows: list[tuple[int, dict[str, object]]]) -> Session:
    session = Session(path, "codex", [])
    typed: list[Turn] = []  # event_msg user_message: used only when no message item exists
    for number, row in rows:
        kind, payload = _unwrap(row)
        if kind == "session_meta":
            cwd = payload.get("cwd")
            session.cwd = session.cwd or (cwd if isinstance(cwd, str) else None)
        elif kind == "event_msg":
            _event(session, typed, number, payload)
        elif kind == "response_item":
            turn = _item(number, payload)
            if turn is not None:
                session.turns.append(turn)
    if typed and not any(t.kind == USER for t in session.turns):
        session.turns = sorted(session.turns + typed, key=lambda t: t.line)
    return session


def _unwrap(row: dict[str, object]) -> tuple[str, dict[str, object]]:
    payload = row.get("payload")
    if isinstance(payload, dict):
        return str(row.get("type")), payload
    if row.get("type") in _ITEMS or str(row.get("type", "")).endswith("_output"):
        return "response_item", row
    return str(row.get("type", "")), {}


def _event(session: Session, typed: list[Turn], number: int, payload: dict[str, object]) -> None:
    kind = payload.get("type")
    if kind == "turn_aborted":
        session.turns.append(Turn(number, INTERRUPT))
    elif kind == "user_message" and isinstance(payload.get("message"), str):
        speaker, text = person_text(str(payload["message"]))
        typed.append(Turn(number, speaker, text=clip(text)))


def _item(number: int, item: dict[str, object]) -> Turn | None:
    kind = item.get("type")
    if kind == "message":
        content = item.get("content")
        parts = content if isinstance(content, list) else []
        text = "\n".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))
        if item.get("role") == "assistant":
            return Turn(number, ASSISTANT, text=clip(text))
        if item.get("role") == "user":
            speaker, said = person_text(text)
            return Turn(number, speaker, text=clip(said))
        return None  # developer / system: the harness's
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        return _call(number, item)
    if kind in ("function_call_output", "custom_tool_call_output"):
        return _output(number, item)
    return None


def _call(number: int, item: dict[str, object]) -> Turn:
    name = str(item.get("name") or item.get("type"))
    call_id = str(item.get("call_id") or item.get("id") or "")
    if name == "apply_patch" or "*** Begin Patch" in str(item.get("input", "")):
        patch = str(item.get("input") or _arguments(item).get("input") or "")
        paths = [p.strip() for p in _PATCH_FILE.findall(patch)]
        return Turn(number, TOOL_USE, tool="apply_patch", tool_id=call_id,
                    tool_input={"patch": clip(patch), "paths": paths})  # fmt: skip
    arguments = _arguments(item)
    if name in _SHELLS or item.get("type") == "local_shell_call":
        escalated = arguments.get("sandbox_permissions") == "require_escalated" or bool(
            arguments.get("with_escalated_permissions")
        )
        settings = {"workdir": arguments.get("workdir"), "escalated": escalated}
        return Turn(number, TOOL_USE, tool="Bash", tool_id=call_id,
                    tool_input={"command": _command(arguments), **settings})  # fmt: skip
    return Turn(number, TOOL_USE, tool=name, tool_id=call_id, tool_input=arguments)


def _arguments(item: dict[str, object]) -> dict[str, object]:
    raw = item.get("arguments") or item.get("action")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {"input": raw}
    return raw if isinstance(raw, dict) else {}


def _command(arguments: dict[str, object]) -> str:
    command = arguments.get("command", arguments.get("cmd", ""))
    if isinstance(command, list):
        words = [str(w) for w in command]
        if len(words) >= 3 and words[1] in ("-lc", "-c"):
            return words[2]
        return " ".join(words)
    return str(command)


def _output(number: int, item: dict[str, object]) -> Turn:
    raw = item.get("output")
    text, code = (raw, None) if isinstance(raw, str) else (json.dumps(raw), None)
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict):
            text = str(parsed.get("output", text))
            metadata = parsed.get("metadata")
            if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
                code = metadata["exit_code"]
    except ValueError:
        pass
    found = _EXIT.search(text[:400])
    if code is None and found:
        code = int(found.group(1))
    call_id = str(item.get("call_id") or "")
    return Turn(number, TOOL_RESULT, text=clip(text), tool_id=call_id, is_error=bool(code))
