"""Layer 2: `orbit mcp`, an MCP server over stdio on the official `mcp` SDK.

Tools mirror spec 5.2 and call the same core functions as the CLI. Results
that mention files carry the learnings sidecar (see `push/sidecar.py`), in the
structured result and, because some clients forward only text, in the text
content too (the SDK renders the same JSON there).

Tool names: the SDK accepts the spec's dotted names (SEP-986 allows dots), but
the model APIs behind common clients accept only `[A-Za-z0-9_-]` in function
names, so the default names use underscores (`orbit_learning_add` for
`orbit.learning.add`). `orbit mcp --dotted-names` serves the spec's names.
"""

# No `from __future__ import annotations`: the SDK builds schemas from live annotations.

import inspect
import os
import time
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.model import Evidence
from orbit_learnings.core.scope import Scope
from orbit_learnings.core.version import VERSION
from orbit_learnings.curation.adding import add_learning
from orbit_learnings.push import inject, sidecar
from orbit_learnings.retrieval import queries
from orbit_learnings.store import bundles as store
from orbit_learnings.store.workspace import Workspace

SPEC_NAMES = {
    "add": "orbit.learning.add",
    "list": "orbit.learning.list",
    "show": "orbit.learning.show",
    "update": "orbit.learning.update",
    "supersede": "orbit.learning.supersede",
    "upvote": "orbit.learning.upvote",
    "search": "orbit.search",
}

INSTRUCTIONS = (
    "Project learnings: short reviewed lessons scoped to paths and tags. Before working on a "
    "file, list learnings for its path; read a full body with show; when a learning proved "
    "load-bearing again, upvote it instead of adding a near-duplicate."
)

EvidenceItem = dict[str, str]


def tool_name(key: str, *, dotted: bool) -> str:
    return SPEC_NAMES[key] if dotted else SPEC_NAMES[key].replace(".", "_")


class LearningTools:
    """The tool bodies: translate arguments, call the core, shape results."""

    def __init__(self, ws: Workspace, session_id: str) -> None:
        self.ws = ws
        self.session_id = session_id

    def _with_sidecar(
        self, result: dict[str, Any], arguments: dict[str, Any], shown: list[str]
    ) -> dict[str, Any]:
        return sidecar.attach_learnings(
            self.ws, result, arguments, session_id=self.session_id, exclude=shown
        )

    def do_add(
        self,
        summary: Annotated[str, Field(description="One-line lesson.")],
        paths: Annotated[
            list[str] | None, Field(description="Scope path globs, e.g. src/db/**.")
        ] = None,
        tags: Annotated[list[str] | None, Field(description="Scope tags.")] = None,
        body: Annotated[
            str, Field(description="Longer explanation (markdown): why, how to apply.")
        ] = "",
        evidence: Annotated[
            list[EvidenceItem] | None,
            Field(description='[{"kind": "task"|"commit", "ref": "..."}]'),
        ] = None,
        priority: Annotated[int, Field(description="Manual ranking boost.")] = 0,
        created_by: Annotated[
            str | None, Field(description="Author, e.g. the agent family.")
        ] = None,
        *,
        force: Annotated[
            bool, Field(description="Add even if a near-duplicate exists (else: upvote it).")
        ] = False,
    ) -> dict[str, Any]:
        """Record a new project learning; returns its allocated id."""
        items = [Evidence(str(e.get("kind", "")), str(e.get("ref", ""))) for e in evidence or []]
        new = store.NewLearning(
            summary=summary,
            scope=Scope(paths or [], tags or []),
            body=body,
            evidence=items,
            priority=priority,
            created_by=created_by,
        )
        learning = add_learning(self.ws, new, force=force).learning
        return {"id": learning.id, "created_at": learning.created_at}

    def do_list(
        self,
        path: Annotated[
            list[str] | None, Field(description="Files, folders or globs (containment).")
        ] = None,
        tag: Annotated[list[str] | None, Field(description="Tags.")] = None,
        status: Annotated[
            str, Field(description="active, superseded, archived or all.")
        ] = "active",
        limit: Annotated[int | None, Field(description="At most this many.", ge=1)] = None,
    ) -> dict[str, Any]:
        """Learnings whose scope matches any path or tag (all active ones when neither is given)."""
        result = queries.list_learnings(
            self.ws,
            Scope(path or [], tag or []),
            status=status,
            limit=limit,
            cwd=self.ws.root_dir,
        )
        # No sidecar here: this result already is the path lookup.
        return {"learnings": [h.to_dict() for h in result.hits]}

    def do_show(
        self, id: Annotated[str, Field(description="Learning id, e.g. L-0001.")]
    ) -> dict[str, Any]:
        """The full record of one learning, with vote_count and last_voted_at."""
        record = queries.show_learning(self.ws, id).record
        return self._with_sidecar(record, {"id": id}, [id])

    def do_update(
        self,
        id: Annotated[str, Field(description="Learning id.")],
        summary: str | None = None,
        body: str | None = None,
        paths: Annotated[list[str] | None, Field(description="Replaces the path list.")] = None,
        tags: Annotated[list[str] | None, Field(description="Replaces the tag list.")] = None,
        priority: int | None = None,
        evidence: Annotated[
            list[EvidenceItem] | None, Field(description="Evidence to add.")
        ] = None,
    ) -> dict[str, Any]:
        """Change fields of a learning; returns the updated record."""
        items = [Evidence(str(e.get("kind", "")), str(e.get("ref", ""))) for e in evidence or []]
        changes = store.Changes(summary, body, paths, tags, priority, items)
        return store.update_learning(self.ws, id, changes).to_dict()

    def do_supersede(self, **arguments: Any) -> dict[str, Any]:
        """Mark learning `id` as superseded by learning `with`; both records update together."""
        old, new = store.supersede(self.ws, str(arguments["id"]), str(arguments["with"]))
        return {"old": old.to_dict(), "new": new.to_dict()}

    def do_upvote(
        self,
        id: Annotated[str, Field(description="The learning that was load-bearing again.")],
        model: Annotated[str, Field(description="Voting agent family, e.g. claude.")],
        task: Annotated[str, Field(description="The task it helped with (required).")],
    ) -> dict[str, Any]:
        """Record a re-validation vote instead of a duplicate; idempotent per model and task."""
        return store.add_vote(self.ws, id, model, task).to_dict()

    def do_search(
        self,
        kind: Annotated[str, Field(description='Only "learning" is searchable.')] = "learning",
        query: Annotated[str | None, Field(description="Free text.")] = None,
        tag: Annotated[list[str] | None, Field(description="Tags to filter or match.")] = None,
        path: Annotated[list[str] | None, Field(description="Files, folders or globs.")] = None,
        limit: Annotated[int, Field(ge=1)] = 10,
        *,
        all: Annotated[bool, Field(description="Every status.")] = False,
        status: Annotated[str, Field(description="e.g. learning:active")] = "learning:active",
    ) -> dict[str, Any]:
        """Ranked learnings by free text, or by path/tag scope when no query is given."""
        if kind != "learning":
            raise OrbitError(f"unknown kind {kind!r}; only 'learning' is searchable")
        if query and query.strip():
            result = queries.search_text(
                self.ws, query, tags=tag or [], status=status, include_all=all, limit=limit
            )
        else:
            result = queries.list_learnings(
                self.ws,
                Scope(path or [], tag or []),
                status="all" if all else status,
                limit=limit,
                cwd=self.ws.root_dir,
            )
        rows = [{**h.to_dict(), "kind": "learning"} for h in result.hits]
        arguments = {"query": query, "path": path, "tag": tag}
        return self._with_sidecar({"results": rows}, arguments, [r["id"] for r in rows])


def _supersede_signature() -> inspect.Signature:
    """`with` is a Python keyword, so the schema's `with` comes from an aliased parameter."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [
            inspect.Parameter(
                "id", keyword, annotation=Annotated[str, Field(description="Old learning id.")]
            ),
            inspect.Parameter(
                "with_",
                keyword,
                annotation=Annotated[
                    str, Field(alias="with", description="Replacing learning id.")
                ],
            ),
        ],
        return_annotation=dict[str, Any],
    )


def _guard(fn: Any) -> Any:
    """Turn core errors into MCP tool errors with the same one-line message as the CLI."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except OrbitError as exc:
            raise ToolError(exc.message) from None

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    # The SDK builds each tool's schema from __signature__; functions do not declare it.
    wrapper.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return wrapper


def build_server(
    ws: Workspace, *, dotted_names: bool = False, session_id: str | None = None
) -> MCPServer:
    session = session_id or inject.session_from_env(None) or f"mcp-{os.getpid()}-{time.time_ns()}"
    tools = LearningTools(ws, session)
    server = MCPServer("orbit-learnings", instructions=INSTRUCTIONS, version=VERSION)
    for key in ("add", "list", "show", "update", "upvote", "search"):
        server.add_tool(
            _guard(getattr(tools, f"do_{key}")), name=tool_name(key, dotted=dotted_names)
        )
    supersede = _guard(tools.do_supersede)
    supersede.__signature__ = _supersede_signature()
    server.add_tool(supersede, name=tool_name("supersede", dotted=dotted_names))
    return server


def serve(ws: Workspace, *, dotted_names: bool = False) -> None:
    build_server(ws, dotted_names=dotted_names).run("stdio")
