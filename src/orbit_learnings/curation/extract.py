"""Draft learnings from agent transcripts: corrections, and errors followed by fixes.

Plain, deterministic detectors (no network, no model):

- corrections: a user message that corrects the agent ("no, use ...", "don't ...",
  "instead of ...", "that's wrong") answered by an acknowledgement ("you're right",
  "sorry", "good catch", ...). The draft states the corrected rule.
- error -> fix: a tool call that failed (non-zero exit, failing test, tool error)
  followed within a few steps by the same kind of call succeeding after a file
  change. The draft records the error and what fixed it.

Each draft carries its source (file, message range, detector, confidence) and a
proposed scope: globs for the files the surrounding tool calls touched, and tags
from the error kind. Drafts are reviewed by a person before they become learnings.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

CORRECTION_PHRASES = (
    "no, use",
    "no use",
    "no,",
    "actually",
    "don't",
    "do not",
    "instead of",
    "that's wrong",
    "that is wrong",
    "wrong",
    "not like that",
    "never ",
    "stop ",
    "please use",
    "you should use",
)
ACK_PHRASES = (
    "you're right",
    "you are right",
    "good catch",
    "sorry",
    "apologies",
    "my mistake",
    "i'll use",
    "i will use",
    "understood",
    "got it",
    "thanks for the correction",
    "noted",
    "i apologize",
    "let me fix",
    "you're correct",
    "right,",
)
FAILURE = re.compile(
    r"(exit code [1-9]\d*|exited with [1-9]\d*|\bFAILED\b|\bfailed\b|Traceback|Error:|error:|"
    r"ERROR|command not found|No such file|Permission denied|\d+ failed)"
)
ERROR_KINDS = (
    ("ModuleNotFoundError", "dependencies"),
    ("ImportError", "dependencies"),
    ("No module named", "dependencies"),
    ("SyntaxError", "syntax"),
    ("TypeError", "types"),
    ("AssertionError", "testing"),
    ("FAILED", "testing"),
    ("failed", "testing"),
    ("command not found", "tooling"),
    ("Permission denied", "permissions"),
    ("No such file", "paths"),
    ("timeout", "timeouts"),
    ("Timeout", "timeouts"),
)
FILE_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit", "Read"}
CHANGE_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
WINDOW = 8


@dataclass
class Event:
    index: int
    kind: str  # user | assistant | tool_use | tool_result
    text: str = ""
    tool: str = ""
    tool_input: dict[str, object] = field(default_factory=dict)
    tool_id: str = ""
    is_error: bool = False


@dataclass
class Draft:
    detector: str
    summary: str
    body: str
    paths: list[str]
    tags: list[str]
    confidence: float
    source: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {
            "detector": self.detector,
            "summary": self.summary,
            "body": self.body,
            "paths": self.paths,
            "tags": self.tags,
            "confidence": round(self.confidence, 2),
            "source": self.source,
        }


# --- reading transcripts ------------------------------------------------------------


def read_transcript(path: str) -> tuple[list[Event], str | None]:
    """Events from Claude Code JSONL, or from a plain text/markdown transcript; and the cwd."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if lines and all(ln.lstrip().startswith("{") for ln in lines[:3]):
        try:
            return _from_jsonl(lines)
        except ValueError:
            pass
    return _from_text(text), None


def _from_jsonl(lines: list[str]) -> tuple[list[Event], str | None]:
    events: list[Event] = []
    cwd = None
    for line in lines:
        row = json.loads(line)
        if not isinstance(row, dict):
            continue
        cwd = cwd or row.get("cwd")
        message = row.get("message") if isinstance(row.get("message"), dict) else None
        role = (message or {}).get("role") or row.get("type")
        content = (message or {}).get("content", row.get("content"))
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and role in ("user", "assistant"):
                events.append(Event(len(events), str(role), text=str(block.get("text", ""))))
            elif kind == "tool_use":
                raw_input = block.get("input")
                tool_input: dict[str, object] = raw_input if isinstance(raw_input, dict) else {}
                events.append(
                    Event(
                        len(events),
                        "tool_use",
                        tool=str(block.get("name", "")),
                        tool_input=tool_input,
                        tool_id=str(block.get("id", "")),
                    )
                )
            elif kind == "tool_result":
                events.append(
                    Event(
                        len(events),
                        "tool_result",
                        text=_result_text(block.get("content")),
                        tool_id=str(block.get("tool_use_id", "")),
                        is_error=bool(block.get("is_error")),
                    )
                )
    return events, cwd


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


_SPEAKER = re.compile(
    r"^\s*(?:\*\*)?(User|Human|You|Assistant|Claude|AI|Agent)(?:\*\*)?\s*:(?:\*\*)?\s*(.*)$",
    re.I,
)


def _from_text(text: str) -> list[Event]:
    events: list[Event] = []
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match:
            role = "user" if match.group(1).lower() in ("user", "human", "you") else "assistant"
            events.append(Event(len(events), role, text=match.group(2)))
        elif events and line.strip():
            events[-1].text += "\n" + line.strip()
    return events


# --- detectors -----------------------------------------------------------------------


def _contains(text: str, phrases: Sequence[str]) -> str | None:
    lowered = " " + text.lower()
    return next((p for p in phrases if p in lowered), None)


def _rule_from(text: str, phrase: str) -> str:
    """The sentence carrying the correction, phrased as a rule."""
    sentences = re.split(r"(?<=[.!])\s+|\n", text.strip())
    chosen = next((s for s in sentences if phrase.strip(" ,") in s.lower()), sentences[0])
    rule = re.sub(r"^(no|nope|actually|wait|hmm)[,.!:]*\s+", "", chosen.strip(), flags=re.I)
    rule = rule.strip(" .")
    return (rule[:1].upper() + rule[1:] + ".") if rule else ""


def detect_corrections(
    events: list[Event], phrases: Sequence[str] = CORRECTION_PHRASES
) -> list[Draft]:
    drafts = []
    users = [e for e in events if e.kind == "user"]
    for event in users[1:]:  # the first message states the task; it corrects nothing
        text = event.text.strip()
        if not text or text.endswith("?"):
            continue
        phrase = _contains(text, phrases)
        if phrase is None:
            continue
        reply = next((e for e in events[event.index + 1 :] if e.kind == "assistant"), None)
        if reply is None or _contains(reply.text, ACK_PHRASES) is None:
            continue
        summary = _rule_from(text, phrase)
        if len(summary.split()) < 3:
            continue
        window = events[max(0, event.index - WINDOW) : event.index + WINDOW]
        drafts.append(
            Draft(
                "correction",
                summary,
                f'The user corrected the agent: "{text[:300]}"\n'
                f'The agent acknowledged: "{reply.text[:200]}"',
                [],
                ["correction"],
                0.7 if phrase.startswith(("no", "don't", "do not", "instead")) else 0.6,
                {"messages": [event.index, reply.index], "touched": _touched(window)},
            )
        )
    return drafts


def _command_kind(event: Event) -> str:
    if event.tool == "Bash":
        command = str(event.tool_input.get("command", "")).strip()
        words = [w for w in command.split() if not w.startswith("-") and "=" not in w]
        return "Bash:" + " ".join(words[:2]) if words else "Bash"
    return event.tool


def _results(events: list[Event]) -> dict[str, Event]:
    return {e.tool_id: e for e in events if e.kind == "tool_result" and e.tool_id}


def _failed(result: Event | None) -> bool:
    return result is not None and (result.is_error or bool(FAILURE.search(result.text)))


def detect_error_fix(events: list[Event]) -> list[Draft]:
    drafts: list[Draft] = []
    results = _results(events)
    uses = [e for e in events if e.kind == "tool_use"]
    used_fixes: set[int] = set()
    for position, call in enumerate(uses):
        if call.tool not in ("Bash",) or not _failed(results.get(call.tool_id)):
            continue
        kind = _command_kind(call)
        later = uses[position + 1 : position + 1 + WINDOW]
        changes = []
        for step in later:
            if step.tool in CHANGE_TOOLS:
                changes.append(step)
            elif _command_kind(step) == kind:
                if _failed(results.get(step.tool_id)):
                    break  # failed again: look for the fix from this later attempt instead
                if changes and step.index not in used_fixes:
                    used_fixes.add(step.index)
                    drafts.append(
                        _error_fix_draft(call, results[call.tool_id], changes, step, events)
                    )
                break
    return drafts


def _first_error_line(text: str) -> str:
    for line in text.splitlines():
        if FAILURE.search(line):
            return line.strip()[:160]
    return text.strip().splitlines()[0][:160] if text.strip() else "it failed"


def _error_fix_draft(
    call: Event, result: Event, changes: list[Event], success: Event, events: list[Event]
) -> Draft:
    command = str(call.tool_input.get("command", "")).strip()
    error = _first_error_line(result.text)
    files = _touched(changes)
    tags = sorted({tag for needle, tag in ERROR_KINDS if needle in result.text} or {"errors"})
    fixed_by = ", ".join(files) if files else "a change"
    summary = f"`{command[:80]}` failed with `{error[:100]}`; fixed by changing {fixed_by}."
    body = (
        f"Error: {error}\n\nCommand: `{command}`\n\nFix: edited {fixed_by}; "
        f"`{str(success.tool_input.get('command', ''))[:120]}` then succeeded."
    )
    return Draft(
        "error-fix",
        summary,
        body,
        [],
        tags,
        0.6 if len(files) > 1 else 0.7,
        {"messages": [call.index, success.index], "touched": files},
    )


def _touched(window: Sequence[Event]) -> list[str]:
    paths: dict[str, None] = {}
    for event in window:
        if event.kind == "tool_use" and event.tool in FILE_TOOLS:
            value = event.tool_input.get("file_path") or event.tool_input.get("notebook_path")
            if isinstance(value, str) and value:
                paths.setdefault(value, None)
    return list(paths)


# --- scope ----------------------------------------------------------------------------


def globs_for(files: Sequence[str], root: str | None) -> list[str]:
    """Repo-relative globs for touched files: a folder glob when several share a folder."""
    relative: list[str] = []
    for path in files:
        if root and os.path.isabs(path):
            try:
                rel = os.path.relpath(path, root)
            except ValueError:
                continue
            if rel.startswith(".."):
                continue
            path = rel
        relative.append(path.replace(os.sep, "/").lstrip("./"))
    by_folder: dict[str, list[str]] = {}
    for path in relative:
        by_folder.setdefault(os.path.dirname(path), []).append(path)
    globs: list[str] = []
    for folder, members in by_folder.items():
        if len(members) > 1 and folder:
            globs.append(f"{folder}/**")
        else:
            globs.extend(members)
    return globs


Summariser = Callable[[dict[str, object], list[str]], str]


def extract(
    path: str,
    root: str | None,
    summariser: Summariser | None = None,
    phrases: Sequence[str] = CORRECTION_PHRASES,
) -> list[Draft]:
    """Run both detectors over one transcript and attach scope and source."""
    events, cwd = read_transcript(path)
    base = cwd or root
    drafts = detect_corrections(events, phrases) + detect_error_fix(events)
    for draft in drafts:
        touched = draft.source.pop("touched")
        draft.paths = globs_for(
            [str(f) for f in touched] if isinstance(touched, list) else [], base
        )
        if base:  # speak in repo-relative paths
            prefix = base.rstrip("/") + "/"
            draft.summary = draft.summary.replace(prefix, "")
            draft.body = draft.body.replace(prefix, "")
        draft.source = {"file": path, **draft.source}
        if summariser is not None:
            start, end = _message_span(draft.source["messages"])
            context = [e.text for e in events[start : end + 1] if e.text]
            draft.summary = summariser(draft.to_dict(), context) or draft.summary
    return drafts


def _message_span(value: object) -> tuple[int, int]:
    """The (first, last) event numbers a detector stored in a draft's source."""
    if isinstance(value, list | tuple) and len(value) == 2:
        return int(value[0]), int(value[1])
    return 0, -1
