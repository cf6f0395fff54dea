"""MCP resources and prompts: the learnings as @-mentionable documents, and two workflows.

Resources: `orbit://learnings` (every active learning, one line each) and
`orbit://learnings/{id}` (one learning in full, as markdown). Prompts: capturing a
learning after a fix, and reviewing the learnings of a path. Clients such as Claude
Code, Cursor, VS Code and Windsurf show these as @-mentions and slash commands.
"""

# No `from __future__ import annotations`: the SDK builds schemas from live annotations.

from typing import Any

from mcp.server.mcpserver import MCPServer

from orbit_learnings.core.errors import NotFound
from orbit_learnings.core.ids import is_learning_id
from orbit_learnings.retrieval import queries
from orbit_learnings.store.workspace import Workspace

INDEX_URI = "orbit://learnings"
LEARNING_URI = "orbit://learnings/{learning_id}"


def learning_markdown(record: dict[str, Any]) -> str:
    """One learning as a model reads it: summary, scope, status, votes, body."""
    scope = record.get("scope", {})
    lines = [
        f"# {record['id']}: {record['summary']}",
        "",
        f"- status: {record['status']}",
        f"- paths: {', '.join(scope.get('paths', [])) or '-'}",
        f"- tags: {', '.join(scope.get('tags', [])) or '-'}",
        f"- votes: {record.get('vote_count', 0)}",
    ]
    if record.get("superseded_by"):
        lines.append(f"- superseded by: {record['superseded_by']}")
    if record.get("superseded_here_by"):
        lines.append(f"- superseded here by: {record['superseded_here_by']} (hidden here)")
    body = str(record.get("body") or "").strip()
    return "\n".join([*lines, "", body] if body else lines) + "\n"


def register(server: MCPServer, ws: Workspace) -> None:
    """Add the resources and prompts for this workspace to the server."""
    _register_resources(server, ws)
    _register_prompts(server)


def _register_resources(server: MCPServer, ws: Workspace) -> None:

    @server.resource(
        INDEX_URI,
        name="learnings",
        title="Project learnings",
        description="Every active learning: id, summary and scope, one per line.",
        mime_type="text/markdown",
    )
    def learning_index() -> str:
        hits = queries.list_learnings(ws, cwd=ws.root_str).hits
        lines = [f"- {h.id}: {h.summary} ({', '.join([*h.paths, *h.tags])})" for h in hits]
        return "# Project learnings\n\n" + ("\n".join(lines) or "(none yet)") + "\n"

    @server.resource(
        LEARNING_URI,
        name="learning",
        title="A project learning",
        description="One learning in full: summary, scope, status, votes and body.",
        mime_type="text/markdown",
    )
    def learning(learning_id: str) -> str:
        if not is_learning_id(learning_id):
            raise NotFound(f"no learning {learning_id}")
        return learning_markdown(queries.show_learning(ws, learning_id).record)


def _register_prompts(server: MCPServer) -> None:
    @server.prompt(
        name="capture-learning",
        title="Capture a learning after a fix",
        description="Turn what was just fixed into a reviewed, scoped learning (or an upvote).",
    )
    def capture_learning(what_happened: str, paths: str = "") -> str:
        scope = f" Scope it to: {paths}." if paths.strip() else ""
        return (
            "We just fixed something the hard way. What happened:\n"
            f"{what_happened}\n\n"
            "1. Search first: orbit_search with the key words, and orbit_learning_list for the "
            "paths involved. If an existing learning already says this, call "
            "orbit_learning_upvote on it instead of adding a near-duplicate.\n"
            "2. Otherwise, only if the lesson is non-obvious, not feature-scoped and will matter "
            "in more than one task, call orbit_learning_add with a one-line summary stated as a "
            "rule, a body with **Why** and **How to apply**, and the narrowest path globs and "
            f"tags that fit.{scope}"
        )

    @server.prompt(
        name="review-path",
        title="Review the learnings of a path",
        description="Check that the learnings for a file or folder are still right.",
    )
    def review_path(path: str) -> str:
        return (
            f"Review the project learnings for `{path}`.\n\n"
            f"1. Call orbit_learning_list with path={path!r} and read each with "
            "orbit_learning_show.\n"
            "2. For each, check the code it is about: is it still true? Is its scope too broad "
            "or too narrow?\n"
            "3. Report, per learning: keep, update (say how), or supersede (say by what). "
            "Change nothing without the user's go-ahead."
        )
