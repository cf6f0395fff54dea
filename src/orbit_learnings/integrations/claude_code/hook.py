"""`orbit hook claude-code`: one command for every Claude Code event orbit listens to.

- `PostToolUse` after Read, Edit, Write, NotebookEdit, Bash, Grep and Glob: the
  learnings for the files the call touched, as `additionalContext`. After, not before:
  context from PreToolUse lands next to the tool result too, but would be marked
  shown even when the call is then denied.
- `SessionStart`: after `compact` or `clear`, forget what the session was shown (the
  context that held it is gone); a one-line note that the project keeps learnings.
- `PreToolUse` of the subagent tool (`Task`/`Agent`): remember the files its task
  names; `SubagentStart` then gives the subagent those learnings. Each subagent
  (`agent_id`) has its own dedup, since it has its own context.
- `PreToolUse` of `Write` with `--deny-new-writes` (opt-in): deny creating a new file
  once, with the learnings as the reason.

The answer's `hookEventName` is always the event that called. Copilot CLI and VS Code
read `.claude/settings.json` too and send their own shapes (`toolName`/`toolArgs`,
`view`, `read_file` with `filePath`): they are recognised and answered in a shape they
read, or left in silence. Never a non-zero exit, never output on a problem.

Reference (read 2026-11-24): https://code.claude.com/docs/en/hooks
"""

from __future__ import annotations

import json
import os

from orbit_learnings.push import hookflow
from orbit_learnings.store.workspace import Workspace, find_workspace, to_repo_relative

DENY_ENV = "ORBIT_HOOK_DENY_NEW_WRITES"
LAYER = "claude-code"
SUBAGENT_TOOLS = ("Task", "Agent")


class HookSkip(Exception):
    """Nothing to say for this call, with the reason for stderr."""


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
    payload = parse(stdin_text)
    event = _text(payload, "hook_event_name") or _text(payload, "hookEventName") or ""
    cwd = _text(payload, "cwd")
    ws = find_workspace(root, cwd=cwd)
    session = _text(payload, "session_id") or _text(payload, "sessionId")
    if event == "SessionStart":
        return answer(event, hookflow.session_started(ws, session, _text(payload, "source")))
    if event == "SubagentStart":
        agent = _text(payload, "agent_id")
        text = hookflow.subagent_started(ws, session, agent, layer=LAYER, record=record)
        return answer(event, text)
    touch = _touch(payload, session, cwd)
    if event == "PreToolUse" or (not event and touch.tool in SUBAGENT_TOOLS):
        deny = deny_new_writes or os.environ.get(DENY_ENV) == "1"
        return _before_tool(ws, touch, deny=deny, record=record)
    text = hookflow.context_for_touch(ws, touch, layer=LAYER, record=record)
    return answer(event or "PostToolUse", text, foreign="toolName" in payload)


def _touch(payload: dict[str, object], session: str | None, cwd: str | None) -> hookflow.Touch:
    tool = _text(payload, "tool_name") or _text(payload, "toolName")
    if tool is None:
        raise HookSkip("")  # not a tool call: stay silent
    tool_input = payload.get("tool_input", payload.get("toolArgs"))
    if isinstance(tool_input, str):  # Copilot CLI sends its arguments as a JSON string
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            tool_input = {}
    return hookflow.Touch(
        tool,
        tool_input if isinstance(tool_input, dict) else {},
        session_id=session,
        agent_id=_text(payload, "agent_id"),
        cwd=cwd,
    )


def _before_tool(ws: Workspace, touch: hookflow.Touch, *, deny: bool, record: bool) -> str:
    if touch.tool in SUBAGENT_TOOLS:
        task = " ".join(str(v) for v in touch.tool_input.values() if isinstance(v, str))
        hookflow.remember_subagent_task(ws, touch.session_id, task)
        return ""
    raw_path = touch.tool_input.get("file_path")
    if not (deny and touch.tool == "Write" and touch.session_id and isinstance(raw_path, str)):
        return ""
    relative = to_repo_relative(ws, raw_path, touch.cwd)
    if not relative or os.path.exists(os.path.join(ws.root_dir, relative)):
        return ""
    text = hookflow.context_for_paths(
        ws,
        [relative],
        session_key=touch.session_key,
        layer=LAYER,
        trigger={"tool": touch.tool, "path": relative, "deny": True},
        record=record,
    )
    if not text:
        return ""
    reason = text + "\nRetry the same Write to create the file."
    decision = {"permissionDecision": "deny", "permissionDecisionReason": reason}
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}}) + "\n"


def answer(event: str, text: str, *, foreign: bool = False) -> str:
    """The hook's stdout: nothing, or `additionalContext` for the event that called.

    Copilot CLI's own payload shape (`toolName`) reads a top-level `additionalContext`.
    """
    if not text:
        return ""
    specific = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    body = {"additionalContext": text} if foreign else specific
    return json.dumps(body) + "\n"


def parse(stdin_text: str) -> dict[str, object]:
    try:
        payload = json.loads(stdin_text)
    except ValueError:
        raise HookSkip("stdin is not JSON; expected a hook payload") from None
    if not isinstance(payload, dict):
        raise HookSkip("stdin JSON is not an object")
    return payload


def _text(payload: dict[str, object], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value.strip() else None
