"""What every agent hook does, whatever the agent: one flow, many payload shapes.

An agent's integration turns its payload into a `Touch` (which context — session and
subagent —, which files, which tool) or a session event, and renders the text this
module returns in its own output field. The flow:

- a tool call that touched files: the learnings for those files, once per agent
  context (a subagent has its own), capped and within a token budget;
- a session that was compacted or cleared: forget what it was shown, so the next
  touch shows it again (the context that held it is gone);
- a subagent starting: the learnings for the files its parent named in its task.

Stdlib only: this runs on every tool call an agent makes.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import Scope
from orbit_learnings.push import inject
from orbit_learnings.push.toolpaths import repo_path, search_paths, shell_paths
from orbit_learnings.store.workspace import Workspace

MAX_CONTEXT_CHARS = 4000  # far below the 10,000-character hook output caps
FORGETTING_SOURCES = ("compact", "clear")  # the context that held the learnings is gone
NOTE = (
    "This repository keeps reviewed project learnings in .orbit/learnings/; the ones whose "
    "scope matches a file are shown when you read or edit it "
    "(`orbit learning list --path FILE` asks directly)."
)
# Tool-input keys that name one file or folder, across agents' tools.
PATH_KEYS = ("file_path", "notebook_path", "filePath", "path", "absolute_path", "dir_path")
LIST_KEYS = ("files", "paths", "include")  # keys that name several
SHELL_KEYS = ("command",)
PATTERN_KEYS = ("pattern", "glob")
PENDING_FILE = "subagent-tasks.json"  # per session: paths named in tasks handed to subagents


class Touch:
    """One tool call, agent-neutral: whose context, which tool, its input."""

    __slots__ = ("agent_id", "cwd", "session_id", "tool", "tool_input")

    def __init__(
        self,
        tool: str,
        tool_input: dict[str, object],
        *,
        session_id: str | None,
        agent_id: str | None = None,
        cwd: str | None = None,
    ) -> None:
        self.tool = tool
        self.tool_input = tool_input
        self.session_id = session_id
        self.agent_id = agent_id
        self.cwd = cwd

    @property
    def session_key(self) -> str | None:
        return inject.agent_session(self.session_id, self.agent_id)


def touched_paths(ws: Workspace, touch: Touch) -> list[str]:
    """Repo-relative files and folders the call touched, from whichever keys it uses."""
    found: dict[str, None] = {}
    data, cwd = touch.tool_input, touch.cwd
    for key in SHELL_KEYS:
        command = data.get(key)
        if isinstance(command, str):
            found.update(dict.fromkeys(shell_paths(ws, command, cwd=cwd)))
    for key in PATH_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            pattern = next((data[p] for p in PATTERN_KEYS if isinstance(data.get(p), str)), None)
            found.update(dict.fromkeys(_one_path(ws, value, pattern, cwd)))
    for key in LIST_KEYS:
        values = data.get(key)
        for value in values if isinstance(values, list) else []:
            path = repo_path(ws, str(value), cwd=cwd) if isinstance(value, str) else None
            if path:
                found.setdefault(path, None)
    if not found:
        pattern = next((data[p] for p in PATTERN_KEYS if isinstance(data.get(p), str)), None)
        if isinstance(pattern, str) and "/" in pattern:  # a Glob with no folder of its own
            found.update(dict.fromkeys(search_paths(ws, None, pattern, cwd=cwd)))
    return list(found)


def _one_path(ws: Workspace, value: str, pattern: object, cwd: str | None) -> list[str]:
    if isinstance(pattern, str):
        return search_paths(ws, value, pattern, cwd=cwd)
    path = repo_path(ws, value, cwd=cwd)
    if path is None and os.path.isabs(value) is False and value.strip():
        path = repo_path(ws, value.strip(), cwd=ws.root_dir)
    return [path] if path else []


def context_for_touch(ws: Workspace, touch: Touch, *, layer: str, record: bool = True) -> str:
    """The text to add after this tool call, or "" when nothing new applies."""
    paths = touched_paths(ws, touch)
    if not paths:
        return ""
    return context_for_paths(
        ws,
        paths,
        session_key=touch.session_key,
        layer=layer,
        trigger={"tool": touch.tool, "paths": paths},
        record=record,
    )


def context_for_paths(
    ws: Workspace,
    paths: list[str],
    *,
    session_key: str | None,
    layer: str,
    trigger: dict[str, object],
    record: bool = True,
) -> str:
    chosen = inject.select(
        ws,
        Scope(paths),
        session_id=inject.session_from_env(session_key),
        render=lambda hits: context_text(paths, hits),
        max_tokens=MAX_CONTEXT_CHARS // 4,
        layer=layer,
        trigger=trigger,
        cwd=ws.root_dir,  # the paths are repo-relative already
        record=record,
    )
    return context_text(paths, chosen.hits) if chosen.hits else ""


def context_text(paths: list[str], hits: list[Hit]) -> str:
    where = ", ".join(paths[:3]) + (", …" if len(paths) > 3 else "")
    lines = [f"Project learnings (.orbit/learnings) whose scope matches {where}:"]
    lines += [inject.provenance_line(h) for h in hits]
    lines.append("Full text: orbit learning show <id>.")
    return "\n".join(lines)[:MAX_CONTEXT_CHARS]


def session_started(ws: Workspace, session_id: str | None, source: str | None) -> str:
    """Forget what a compacted or cleared session was shown; the note for a fresh context."""
    if session_id and (source or "") in FORGETTING_SOURCES:
        inject.forget_session(ws, session_id)
    return NOTE if (source or "startup") != "resume" else ""


# --- subagents: the paths named in the task a parent hands over -----------------


def remember_subagent_task(ws: Workspace, session_id: str | None, task_text: str) -> None:
    """The parent is starting a subagent: keep the paths its task names, for SubagentStart."""
    if not session_id:
        return
    paths = [p for p in shell_words_paths(ws, task_text) if p]
    if not paths:
        return
    pending = _read_pending(ws, session_id)
    pending.append(paths)
    _write_pending(ws, session_id, pending[-20:])


def subagent_started(
    ws: Workspace, session_id: str | None, agent_id: str | None, *, layer: str, record: bool
) -> str:
    """Learnings for the oldest task handed to a subagent and not yet picked up."""
    if not session_id or not agent_id:
        return ""
    pending = _read_pending(ws, session_id)
    if not pending:
        return ""
    paths = pending.pop(0)
    _write_pending(ws, session_id, pending)
    return context_for_paths(
        ws,
        paths,
        session_key=inject.agent_session(session_id, agent_id),
        layer=layer,
        trigger={"event": "subagent-start", "paths": paths},
        record=record,
    )


def shell_words_paths(ws: Workspace, text: str) -> list[str]:
    """Paths named anywhere in free text (a task description): each word that is one."""
    words = text.replace("`", " ").replace(",", " ").split()
    found: dict[str, None] = {}
    for word in words:
        path = repo_path(ws, word)
        if path:
            found.setdefault(path, None)
    return list(found)[:20]


def _pending_file(ws: Workspace, session_id: str) -> str:
    return os.path.join(inject.session_dir(ws, session_id), PENDING_FILE)


def _read_pending(ws: Workspace, session_id: str) -> list[list[str]]:
    try:
        with open(_pending_file(ws, session_id), encoding="utf-8") as handle:
            data = json.load(handle)
    except (FileNotFoundError, ValueError):
        return []
    return [[str(p) for p in item] for item in data if isinstance(item, list)]


def _write_pending(ws: Workspace, session_id: str, pending: list[list[str]]) -> None:
    from orbit_learnings.store.fileops import atomic_write_text

    atomic_write_text(_pending_file(ws, session_id), json.dumps(pending) + "\n", durable=False)
