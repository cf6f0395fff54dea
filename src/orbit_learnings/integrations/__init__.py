"""Every agent and surface orbit talks to, behind one interface (`base.Integration`).

The registry maps a name to the module that holds its `INTEGRATION`; a module is
imported only when asked for, so `orbit hook claude-code` loads Claude Code's code
and nothing else. Adding an agent is a package here, a line below, and its docs page.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.integrations.base import Integration

REGISTRY = {
    "git": "orbit_learnings.integrations.git",
    "claude-code": "orbit_learnings.integrations.claude_code",
    "cursor": "orbit_learnings.integrations.cursor",
    "copilot": "orbit_learnings.integrations.copilot",
    "gemini": "orbit_learnings.integrations.gemini",
    "codex": "orbit_learnings.integrations.codex",
    "cline": "orbit_learnings.integrations.cline",
    "kiro": "orbit_learnings.integrations.kiro",
    "mcp": "orbit_learnings.integrations.mcp",
    "dashboard": "orbit_learnings.integrations.dashboard",
}


def find(name: str) -> Integration | None:
    """The integration called `name`, or None when there is none."""
    module_name = REGISTRY.get(name)
    if module_name is None:
        return None
    # __import__ rather than importlib: importing importlib pulls in warnings, a
    # millisecond on every hook call.
    module = __import__(module_name, fromlist=["INTEGRATION"])
    integration: Integration = module.INTEGRATION
    return integration


def get(name: str) -> Integration:
    """Like `find`, but an unknown name is a usage error that lists the known ones."""
    integration = find(name)
    if integration is None:
        from orbit_learnings.core.errors import UsageError

        raise UsageError(f"unknown integration {name!r}; choose from {', '.join(REGISTRY)}")
    return integration


def every() -> list[Integration]:
    """All registered integrations, in registry order."""
    return [get(name) for name in REGISTRY]
