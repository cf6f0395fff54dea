"""Long-running surfaces and the set-up check: `orbit mcp`, `orbit dashboard`, `orbit doctor`."""

import sys
from typing import Annotated

import typer

from orbit_learnings.cli.output import (
    emit_json,
    info,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError


def mcp_command(
    *,
    dotted_names: Annotated[
        bool,
        typer.Option("--dotted-names", help="Serve the spec's names (orbit.learning.add, ...)."),
    ] = False,
) -> None:
    """Run the MCP server over stdio (tools: orbit_learning_add, _list, _show, _update, ...).

    \b
    Example (an MCP client configuration):
      {"mcpServers": {"orbit": {"command": "orbit", "args": ["mcp"]}}}
    """
    from orbit_learnings.integrations.mcp.server import serve

    serve(STATE.workspace(), dotted_names=dotted_names)


def doctor_command(
    path: Annotated[str | None, typer.Option("--path", help="File to dry-run the hook on.")] = None,
    *,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Check the set-up end to end: workspace, store, index, git hooks, Claude hook, a dry run.

    \b
    Example:
      orbit doctor
    """
    from orbit_learnings.integrations import doctor

    checks = doctor.run_checks(STATE.root, path)
    if json_out:
        emit_json({"checks": [c.to_dict() for c in checks]})
    else:
        marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "skip"}
        for check in checks:
            info(f"[{marks[check.status]}] {check.name}: {check.message}")
            for line in check.detail.splitlines():
                info(f"        {line}")
    if any(c.status == "fail" for c in checks):
        raise typer.Exit(1)


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def dashboard_command(
    host: Annotated[
        str, typer.Option("--host", help="Interface to bind (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535)] = 8765,
    *,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the page in a browser.")
    ] = False,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Required to bind anything but loopback.")
    ] = False,
) -> None:
    """Serve the Knowledge > Learnings page and its API from this workspace.

    \b
    Examples:
      orbit dashboard --open
      orbit dashboard --port 9000
    """
    import os

    from orbit_learnings.integrations.dashboard import app as dashboard

    ws = STATE.workspace()
    if host not in LOOPBACK:
        if not allow_remote:
            raise UsageError(f"binding {host} exposes the store to the network; add --allow-remote")
        sys.stderr.write(
            f"orbit: warning: serving on {host}: anyone who can reach it can read the learnings\n"
        )
    token = os.environ.get("ORBIT_DASHBOARD_TOKEN") or dashboard.new_token()
    dashboard.serve(ws, host, port, token, open_browser=open_browser)
