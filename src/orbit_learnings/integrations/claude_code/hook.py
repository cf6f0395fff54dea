"""Layer 3: the Claude Code PreToolUse hook (`orbit hook claude-code`).

Claude Code runs this before every Read, Edit, Write, MultiEdit and NotebookEdit
and sends the call as JSON on stdin. We answer with `additionalContext` — the
learnings whose scope matches the file — and never decide anything about the
tool call itself: no `permissionDecision` (an "allow" would silently skip the
user's permission prompt) and never exit code 2 (Claude Code reads it as
"block"). Any problem means empty stdout, a short note on stderr, exit 0.

Reference: https://code.claude.com/docs/en/hooks (PreToolUse input and
`hookSpecificOutput.additionalContext`).
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import Scope
from orbit_learnings.push import inject
from orbit_learnings.store.workspace import find_workspace, to_repo_relative

FILE_TOOLS = {
    "Read": "file_path",
    "Edit": "file_path",
    "Write": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
MAX_CONTEXT_CHARS = 4000  # far below Claude Code's 10,000-character hook output cap
DENY_ENV = "ORBIT_HOOK_DENY_NEW_WRITES"


class HookSkip(Exception):
    """Nothing to say for this tool call, with the reason for stderr."""


def run(
    stdin_text: str, *, root: str | None = None, deny_new_writes: bool = False
) -> tuple[str, str]:
    """Return (stdout, stderr) for one hook call; never raises."""
    try:
        return respond(stdin_text, root=root, deny_new_writes=deny_new_writes), ""
    except HookSkip as skip:
        return "", f"orbit hook: {skip}\n" if str(skip) else ""
    except Exception as exc:  # a hook must never break the agent
        return "", f"orbit hook: skipped ({type(exc).__name__}: {exc})\n"


def respond(
    stdin_text: str, *, root: str | None = None, deny_new_writes: bool = False, record: bool = True
) -> str:
    payload = _parse(stdin_text)
    tool = payload.get("tool_name")
    key = FILE_TOOLS.get(tool) if isinstance(tool, str) else None
    if key is None:
        raise HookSkip("")  # not a file tool: stay silent
    tool_input = payload.get("tool_input")
    raw_path = tool_input.get(key) if isinstance(tool_input, dict) else None
    if not isinstance(raw_path, str) or not raw_path.strip():
        raise HookSkip(f"no {key} in tool_input")
    cwd = _text(payload, "cwd")
    ws = find_workspace(root, cwd=cwd)
    relative = to_repo_relative(ws, raw_path, cwd)
    session = _text(payload, "session_id")
    deny = deny_new_writes or os.environ.get(DENY_ENV) == "1"
    absolute = os.path.join(ws.root_dir, relative)
    denying = deny and tool == "Write" and session is not None and not os.path.exists(absolute)
    chosen = inject.select(
        ws,
        Scope([relative]),
        session_id=inject.session_from_env(session),
        render=lambda hits: context_text(relative, hits),
        max_tokens=MAX_CONTEXT_CHARS // 4,
        layer="claude-code",
        trigger={"tool": tool, "path": relative},
        cwd=ws.root_dir,  # `relative` is already repo-relative, whatever Claude's cwd is
        record=record,
    )
    if not chosen.hits:
        return ""
    text = context_text(relative, chosen.hits)
    if denying:
        return (
            json.dumps(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": text
                        + "\nRetry the same Write to create the file.",
                    }
                }
            )
            + "\n"
        )
    return (
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "additionalContext": text,
                }
            }
        )
        + "\n"
    )


def context_text(relative_path: str, hits: list[Hit]) -> str:
    lines = [f"Project learnings (.orbit/learnings) whose scope matches {relative_path}:"]
    lines += [inject.provenance_line(h) for h in hits]
    lines.append("Full text: orbit learning show <id>.")
    return "\n".join(lines)[:MAX_CONTEXT_CHARS]


def _parse(stdin_text: str) -> dict[str, object]:
    try:
        payload = json.loads(stdin_text)
    except ValueError:
        raise HookSkip("stdin is not JSON; expected Claude Code's PreToolUse payload") from None
    if not isinstance(payload, dict):
        raise HookSkip("stdin JSON is not an object")
    return payload


def _text(payload: dict[str, object], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) else None
