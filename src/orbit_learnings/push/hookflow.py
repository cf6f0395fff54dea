"""What every agent hook does, whatever the agent: one flow, many payload shapes.

An agent's integration turns its payload into a `Touch` (which context — session and
subagent —, which files, which tool) or a session event, and renders the text this
module returns in its own output field. The flow:

- a tool call that touched files: the learnings for those files, once per agent
  context (a subagent has its own), capped and within a token budget;
- a session that was compacted or cleared: forget what it was shown, so the next
  touch shows it again (the context that held it is gone);
- a subagent starting: the learnings for the files its parent named in its task
  (`handoff` finds that task in the parent's transcript);
- the user's prompt: the learnings for the files it names, and those its words match
  confidently (the search's match-confidence gate); nothing when neither.

Every event of one agent context shares one dedup set and one session cap: a learning
shown at the prompt is not shown again when the file is read.

Stdlib only: this runs on every tool call an agent makes.
"""

from __future__ import annotations

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.core.matching import is_glob
from orbit_learnings.core.results import Hit, printable
from orbit_learnings.core.scope import EMPTY, RepoPath
from orbit_learnings.push import inject
from orbit_learnings.push.toolpaths import (
    PATCH_MARKER,
    patch_paths,
    repo_path,
    search_paths,
    shell_paths,
)
from orbit_learnings.store.workspace import Workspace

MAX_CONTEXT_CHARS = 4000  # far below the 10,000-character hook output caps
FORGETTING_SOURCES = ("compact", "clear")  # the context that held the learnings is gone
NOTE = (
    "This repository keeps reviewed project learnings in .orbit/learnings/; the ones whose "
    "scope matches a file are shown when you read or edit it "
    "(`orbit learning list --path FILE` asks directly)."
)
# The tools that read or write files, across agents (core/agenttools.py, compared
# case-insensitively). Anything else (an MCP tool that names a path in another repository,
# a web fetch) is none of our business.
FILE_TOOLS = agenttools.every_tool()
GLOB_TOOLS = agenttools.every_tool(agenttools.GLOB)  # their `pattern` is a path glob
PATH_KEYS = ("file_path", "notebook_path", "filePath", "path", "absolute_path", "dir_path")
LIST_KEYS = ("files", "paths", "include")  # keys that name several
FILTER_KEYS = ("glob", "include_pattern", "file_pattern")  # a search narrowed to a glob


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


def touched_paths(ws: Workspace, touch: Touch) -> list[RepoPath]:
    """The files, folders and globs the call touched, from whichever keys it uses: each
    read once here, from the payload, and passed on as a value."""
    if touch.tool.lower() not in FILE_TOOLS:
        return []
    data, cwd = touch.tool_input, touch.cwd
    command = data.get("command")
    if isinstance(command, str):  # a shell: its folder is where it ran, not what it read
        patched = patch_paths(ws, command, cwd=cwd) if PATCH_MARKER in command else []
        return patched or shell_paths(ws, command, cwd=cwd)  # apply_patch, or its heredoc
    found: dict[RepoPath, None] = {}
    is_glob_tool = touch.tool.lower() in GLOB_TOOLS
    pattern = _first_text(data, ("pattern",) if is_glob_tool else FILTER_KEYS)
    for key in PATH_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            found.update(dict.fromkeys(_one_path(ws, value, pattern, cwd)))
    for key in LIST_KEYS:
        values = data.get(key)
        for value in values if isinstance(values, list) else []:
            path = repo_path(ws, str(value), cwd=cwd) if isinstance(value, str) else None
            if path:
                found.setdefault(path, None)
    if not found and is_glob_tool and pattern and not is_glob(pattern.split("/")[0]):
        found.update(dict.fromkeys(search_paths(ws, None, pattern, cwd=cwd)))  # anchored
    return list(found)


def _first_text(data: dict[str, object], keys: tuple[str, ...]) -> str | None:
    return next((v for k in keys if isinstance(v := data.get(k), str) and v.strip()), None)


def _one_path(ws: Workspace, value: str, pattern: str | None, cwd: str | None) -> list[RepoPath]:
    if pattern:
        return search_paths(ws, value, pattern, cwd=cwd)
    path = repo_path(ws, value, cwd=cwd, literal=True)
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
        trigger={"tool": touch.tool, "paths": [p.text for p in paths]},
        record=record,
    )


def context_for_paths(
    ws: Workspace,
    paths: list[RepoPath],
    *,
    session_key: str | None,
    layer: str,
    trigger: dict[str, object],
    record: bool = True,
) -> str:
    chosen = inject.select(
        ws,
        EMPTY,
        session_id=inject.session_from_env(session_key),
        render=lambda hits: context_text(paths, hits),
        max_tokens=MAX_CONTEXT_CHARS // 4,
        layer=layer,
        trigger=trigger,
        record=record,
        resolved=paths,  # read from the payload already: never parsed again
    )
    return context_text(paths, chosen.hits) if chosen.hits else ""


def context_text(paths: list[RepoPath], hits: list[Hit]) -> str:
    shown = [p.text for p in paths[:3]]
    where = ", ".join(shown) + (", …" if len(paths) > 3 else "")
    lines = [f"Learnings whose scope matches {printable(where)}:"]
    lines += [inject.provenance_line(h) for h in hits]
    lines.append("Full text: orbit learning show <id>.")
    return "\n".join(lines)[:MAX_CONTEXT_CHARS]


def session_started(ws: Workspace, session_id: str | None, source: str | None) -> str:
    """Forget what a compacted or cleared session was shown; the note for a fresh context."""
    if session_id and (source or "") in FORGETTING_SOURCES:
        inject.forget_session(ws, session_id)
    return NOTE if (source or "startup") != "resume" else ""


# --- the user's prompt: the best query orbit will ever get ------------------------

MAX_PROMPT_CHARS = 4000  # a pasted log is searched by its start; the rest adds nothing


def prompt_submitted(
    ws: Workspace, session_key: str | None, prompt: str | None, *, layer: str, record: bool
) -> str:
    """Learnings for what the user just asked: the files it names (by scope) and the
    ones its words match confidently. "" when nothing is confident: a prompt about
    vacation days gets silence, not the nearest learning."""
    text = (prompt or "")[:MAX_PROMPT_CHARS]
    if not text.strip():
        return ""
    paths = words_paths(ws, text, named_only=True)
    chosen = inject.select(
        ws,
        EMPTY,
        session_id=inject.session_from_env(session_key),
        render=lambda hits: prompt_text(paths, hits),
        max_tokens=MAX_CONTEXT_CHARS // 4,
        layer=layer,
        trigger={"event": "prompt", "paths": [p.text for p in paths]},
        record=record,
        task_text=text,
        resolved=paths,
    )
    return prompt_text(paths, chosen.hits) if chosen.hits else ""


def prompt_text(paths: list[RepoPath], hits: list[Hit]) -> str:
    named = f" and the files it names ({', '.join(p.text for p in paths[:3])})" if paths else ""
    lines = [f"Learnings that match this request{printable(named)}:"]
    lines += [inject.provenance_line(h) for h in hits]
    lines.append("Full text: orbit learning show <id>.")
    return "\n".join(lines)[:MAX_CONTEXT_CHARS]


# --- subagents: the files named in the task a parent hands over -----------------


def subagent_started(
    ws: Workspace,
    session_id: str | None,
    agent_id: str | None,
    *,
    agent_type: str | None,
    transcript_path: str | None,
    layer: str,
    record: bool,
) -> str:
    """Learnings for the files named in the task the parent handed this subagent."""
    if not session_id or not agent_id or not transcript_path:
        return ""
    from orbit_learnings.push.handoff import claim

    paths = words_paths(ws, claim(ws, session_id, transcript_path, agent_type))
    if not paths:
        return ""
    return context_for_paths(
        ws,
        paths,
        session_key=inject.agent_session(session_id, agent_id),
        layer=layer,
        trigger={"event": "subagent-start", "paths": [p.text for p in paths]},
        record=record,
    )


def words_paths(ws: Workspace, text: str, *, named_only: bool = False) -> list[RepoPath]:
    """Paths named anywhere in free text (a task description): each word that is one.

    `named_only`: a word counts only when it is spelled as a path (a slash or a dot), so
    "fix the docs" in a prose prompt is not the `docs/` folder and all it holds.
    """
    words = text.replace("`", " ").replace(",", " ").split()
    found: dict[RepoPath, None] = {}
    for word in words:
        if named_only:  # prose: "is src/app.py right?" names src/app.py
            word = word.rstrip("?!")
            if not ("/" in word or "." in word.strip(".,;:)'\"")):
                continue
        path = repo_path(ws, word)
        if path:
            found.setdefault(path, None)
    return list(found)[:20]
