"""Adapters that connect the core to agent tooling: the Claude Code hook, the MCP server."""
