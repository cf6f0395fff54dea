"""`orbit hook claude-code`: one command for every Claude Code event orbit listens to.

- `PostToolUse` after Read, Edit, Write, NotebookEdit, Bash, Grep and Glob: the
  learnings for the files the call touched, as `additionalContext`. After, not before:
  context from PreToolUse lands next to the tool result too, but would be marked
  shown even when the call is then denied.
- `SessionStart`: after `compact` or `clear`, forget what the session was shown (the
  context that held it is gone); a one-line note that the project keeps learnings.
- `SubagentStart`: the learnings for the files named in the task the parent handed
  over (found in the parent's transcript). Each subagent (`agent_id`) has its own
  dedup, since it has its own context.
- `UserPromptSubmit`: the learnings for the files the prompt names and those its words
  match confidently, in the same dedup set as the tool calls (so the first Read of that
  file adds nothing new); silence when nothing is confident.
- `Stop` (installed when `capture.reflect` is on in `.orbit/config.yaml`): once a session,
  when a moment shows in the end of the transcript (`transcript_path`) or the user stated a
  rule, and nothing was proposed, ask the agent to propose it, naming what was noticed.
  `UserPromptSubmit` adds the one-line nudge when `capture.nudge` is on, and names each
  moment the transcript shows once.
- `PreToolUse` of `Write` with `--deny-new-writes` (opt-in): deny creating a new file
  once, with the learnings as the reason.

The answer's `hookEventName` is always the event that called. Copilot CLI and VS Code
read `.claude/settings.json` too and send their own shapes (`toolName`/`toolArgs`,
`view`, `read_file` with `filePath`): they are recognised and answered in a shape they
read, or left in silence. Reading the payload, finding the workspace (`cwd`, else
Cursor's `workspace_roots`) and never failing the agent are `AgentHook`'s, as for every
agent. Never a non-zero exit, never output on a problem.

Reference (read 2026-11-24): https://code.claude.com/docs/en/hooks
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.scope import RepoPath
from orbit_learnings.integrations.agenthook import (
    capture_nudge,
    capture_reflection,
    text_field,
    touch_of,
)
from orbit_learnings.push import hookflow
from orbit_learnings.store.workspace import Workspace, to_repo_relative

DENY_ENV = "ORBIT_HOOK_DENY_NEW_WRITES"
LAYER = "claude-code"
# Copilot and VS Code spell it sessionId; Cursor, which runs this entry too, has
# conversation_id: the same key its own entry uses, so the two share one dedup set.
SESSION_KEYS = ("session_id", "sessionId", "conversation_id")


def respond(
    payload: dict[str, object], ws: Workspace, *, deny_new_writes: bool, record: bool
) -> str:
    """The answer to one event; the payload parsing, the workspace and never failing the
    agent are `AgentHook`'s, shared with every other agent."""
    event = text_field(payload, "hook_event_name", "hookEventName") or ""
    session = text_field(payload, *SESSION_KEYS)
    if event == "SessionStart":
        return answer(event, hookflow.session_started(ws, session, text_field(payload, "source")))
    if event == "UserPromptSubmit":
        return _prompt(payload, ws, session, record=record)
    if event == "Stop":
        return capture_reflection(ws, session, payload)
    if event == "SubagentStart":
        return _subagent(payload, ws, session, record=record)
    touch = _touch(payload, session)
    if touch is None:  # not a tool call: stay silent
        return ""
    if event == "PreToolUse":
        deny = deny_new_writes or os.environ.get(DENY_ENV) == "1"
        return _before_tool(ws, touch, deny=deny, record=record) if deny else ""
    text = hookflow.context_for_touch(ws, touch, layer=LAYER, record=record)
    if "cursor_version" in payload:  # Cursor running the Claude entry reads its own field
        return json.dumps({"additional_context": text}) + "\n" if text else ""
    return answer(event or "PostToolUse", text, foreign="toolName" in payload)


def _touch(payload: dict[str, object], session: str | None) -> hookflow.Touch | None:
    """Claude Code's `tool_name`/`tool_input`, or Copilot's `toolName`/`toolArgs`."""
    if "tool_name" in payload:
        return touch_of(payload, "tool_name", "tool_input", session=session)
    return touch_of(payload, "toolName", "toolArgs", session=session)


def _prompt(payload: dict[str, object], ws: Workspace, session: str | None, *, record: bool) -> str:
    if "cursor_version" in payload:  # Cursor's prompt hook adds no context: mark nothing
        return ""
    prompt = text_field(payload, "prompt")
    found = hookflow.prompt_submitted(ws, session, prompt, layer=LAYER, record=record)
    return answer("UserPromptSubmit", capture_nudge(ws, session, payload, found))


def _subagent(
    payload: dict[str, object], ws: Workspace, session: str | None, *, record: bool
) -> str:
    text = hookflow.subagent_started(
        ws,
        session,
        text_field(payload, "agent_id"),
        agent_type=text_field(payload, "agent_type"),
        transcript_path=text_field(payload, "transcript_path"),
        layer=LAYER,
        record=record,
    )
    return answer("SubagentStart", text)


def _before_tool(ws: Workspace, touch: hookflow.Touch, *, deny: bool, record: bool) -> str:
    """The opt-in deny-once mode: creating a file that matches a learning."""
    raw_path = touch.tool_input.get("file_path")
    if not (deny and touch.tool == "Write" and touch.session_id and isinstance(raw_path, str)):
        return ""
    relative = to_repo_relative(ws, raw_path, touch.cwd)
    if not relative or os.path.exists(os.path.join(ws.root_str, relative)):
        return ""
    text = hookflow.context_for_paths(
        ws,
        [RepoPath(relative)],  # a file, about to be created
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
