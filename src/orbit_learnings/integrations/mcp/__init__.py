"""The MCP server (`orbit mcp`): tools over stdio on the official SDK; results carry learnings.

Registered for `orbit doctor`; the server itself is `server.py`, imported only when
it runs (the SDK and pydantic are heavy).
"""

from __future__ import annotations

from orbit_learnings.integrations.base import Check, Integration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.store.workspace import Workspace


class Mcp(Integration):
    name = "mcp"
    summary = "MCP server over stdio (`orbit mcp`) with learnings attached to results"

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        import importlib.util

        if importlib.util.find_spec("mcp") is None:
            return [Check("mcp server", "fail", "the `mcp` SDK is not installed; reinstall orbit")]
        return [Check("mcp server", "ok", "`orbit mcp` can start (MCP SDK installed)")]


INTEGRATION = Mcp()
