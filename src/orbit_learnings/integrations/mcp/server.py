"""Layer 2: `orbit mcp`, an MCP server over stdio on the official `mcp` SDK.

Tools (`tools.py`) mirror spec 5.2 and call the same core functions as the CLI.
Results that mention files carry their learnings attached (see `push/attach.py`), in
the structured result and, because some clients forward only text, in the text
content too (the SDK renders the same JSON there). Resources and prompts are in
`catalogue.py`.

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

from orbit_learnings.core import VERSION
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.integrations.mcp import catalogue
from orbit_learnings.integrations.mcp.tools import TOOL_META, LearningTools
from orbit_learnings.push import inject
from orbit_learnings.store.workspace import Workspace

SPEC_NAMES = {
    "add": "orbit.learning.add",
    "propose": "orbit.learning.propose",
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


def tool_name(key: str, *, dotted: bool) -> str:
    return SPEC_NAMES[key] if dotted else SPEC_NAMES[key].replace(".", "_")


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
        except Exception as exc:  # never a bare "Error executing tool": say what went wrong
            raise ToolError(f"unexpected {type(exc).__name__}: {exc}") from None

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
    for key in SPEC_NAMES:
        function = _guard(getattr(tools, f"do_{key}"))
        if key == "supersede":
            function.__signature__ = _supersede_signature()
        title, annotations = TOOL_META[key]
        server.add_tool(
            function,
            name=tool_name(key, dotted=dotted_names),
            title=title,
            annotations=annotations,
        )
    catalogue.register(server, ws)
    return server


def serve(ws: Workspace, *, dotted_names: bool = False) -> None:
    stop_on_first_interrupt()
    build_server(ws, dotted_names=dotted_names).run("stdio")


def stop_on_first_interrupt() -> None:
    """Ctrl-C ends the server at once. The SDK's stdio reader sits in a worker thread
    blocked on stdin, so the first KeyboardInterrupt only cancelled the event loop and
    waited for a line that never came (it took two Ctrl-C, or Ctrl-D). A stdio server
    holds nothing to flush: every store write is atomic and finished before it answers."""
    import signal

    def leave(signum: int, frame: object) -> None:
        os._exit(130)  # the shell's code for "ended by SIGINT"

    signal.signal(signal.SIGINT, leave)
