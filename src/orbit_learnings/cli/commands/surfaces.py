"""Orbit as other tools meet it, and the check of all of them: `orbit hook NAME` (what an
agent runs), `orbit hooks install|uninstall [NAME...]`, the long-running `orbit mcp` and
`orbit dashboard`, and `orbit doctor`. Each reaches into the `integrations` layer.

Hooks and installers iterate the integration registry: a new agent's hook and installer
appear here without a line of this module changing.
"""

import sys
from collections.abc import Callable
from typing import Annotated

import typer

from orbit_learnings import integrations
from orbit_learnings.cli import hot
from orbit_learnings.cli.output import (
    emit_json,
    info,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.integrations.base import Integration

CLAUDE = "claude-code"
# Only what `hooks install` can install is offered: `orbit mcp` and `orbit dashboard`
# are commands one runs (or an agent's MCP configuration runs), not hooks.
INSTALLABLE = [integration.name for integration in integrations.every() if integration.installs]
NamesArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[NAME]...",
        help=f"Integrations: {', '.join(INSTALLABLE)} (default: git).",
        show_default=False,
    ),
]
ClaudeFlag = Annotated[bool, typer.Option("--claude", help=f"Shorthand for NAME {CLAUDE}.")]
CursorFlag = Annotated[bool, typer.Option("--cursor", help="Shorthand for NAME cursor.")]
CopilotFlag = Annotated[bool, typer.Option("--copilot", help="Shorthand for NAME copilot.")]
GeminiFlag = Annotated[bool, typer.Option("--gemini", help="Shorthand for NAME gemini.")]
CodexFlag = Annotated[bool, typer.Option("--codex", help="Shorthand for NAME codex.")]
ClineFlag = Annotated[bool, typer.Option("--cline", help="Shorthand for NAME cline.")]
KiroFlag = Annotated[bool, typer.Option("--kiro", help="Shorthand for NAME kiro.")]
NoPromptFlag = Annotated[
    bool,
    typer.Option(
        "--no-prompt",
        help="Leave out the entry that searches the user's prompt (UserPromptSubmit, BeforeAgent, "
        "userPromptSubmit).",
    ),
]
CommandOpt = Annotated[
    str | None,
    typer.Option("--command", help="The command the agent runs (default: orbit hook NAME)."),
]


def hook_command_for(integration: Integration) -> Callable[..., None]:
    """The Typer command behind `orbit hook NAME`; its flags pass through to the hook."""

    def command(ctx: typer.Context) -> None:
        raise typer.Exit(hot.do_hook(integration.name, STATE.root, list(ctx.args)))

    command.__doc__ = integration.hook_help or integration.summary
    return command


def _chosen(names: list[str]) -> list[Integration]:
    """The integrations named, each one that installs; anything else is refused first."""
    from orbit_learnings.core.errors import UsageError

    chosen = [integrations.get(name) for name in dict.fromkeys(names or ["git"])]
    for integration in chosen:
        if not integration.installs:
            raise UsageError(
                f"{integration.name} has nothing to install (`orbit {integration.name}` is a"
                f" command to run); choose from {', '.join(INSTALLABLE)}"
            )
    return chosen


def _named(names: list[str] | None, **flags: bool) -> list[str]:
    """NAME arguments plus the shorthand flags (`--claude` is claude-code)."""
    spelled = {"claude": CLAUDE}
    return [*(names or []), *(spelled.get(flag, flag) for flag, on in flags.items() if on)]


def _run(names: list[str], *, command: str | None, install: bool, prompt: bool = True) -> None:
    """One body for install and uninstall, for any integration that installs."""
    ws = STATE.workspace()
    chosen = _chosen(names)
    for integration in chosen:
        if install:
            report = integration.install(ws, command=command, prompt=prompt)
        else:
            report = integration.uninstall(ws, command=command)
        for item in report.changed:
            info(f"{'installed' if install else 'removed'} {item}")
        for item in report.unchanged:
            info(f"{'already there' if install else 'left alone'}: {item}")
        for warning in report.warnings:
            sys.stderr.write(f"orbit: warning: {warning}\n")


def hooks_install_command(
    names: NamesArg = None,
    *,
    claude: ClaudeFlag = False,
    cursor: CursorFlag = False,
    copilot: CopilotFlag = False,
    gemini: GeminiFlag = False,
    codex: CodexFlag = False,
    cline: ClineFlag = False,
    kiro: KiroFlag = False,
    command: CommandOpt = None,
    no_prompt: NoPromptFlag = False,
) -> None:
    """Install hooks. Existing hooks are chained or merged, never overwritten; twice adds nothing.

    The agents' entries run a guarded command: silent, exit 0, where orbit is not installed.
    Agents with a prompt event also search the user's prompt (--no-prompt leaves that out).

    \b
    Examples:
      orbit hooks install              # git: refresh on checkout, check on commit
      orbit hooks install claude-code  # .claude/settings.json entries + the skill
      orbit hooks install --claude --cursor --copilot --gemini --codex --kiro
      orbit hooks install --claude --no-prompt
    """
    flags = {"claude": claude, "cursor": cursor, "copilot": copilot, "gemini": gemini}
    flags |= {"codex": codex, "cline": cline, "kiro": kiro}
    _run(_named(names, **flags), command=command, install=True, prompt=not no_prompt)


def hooks_uninstall_command(
    names: NamesArg = None,
    *,
    claude: ClaudeFlag = False,
    cursor: CursorFlag = False,
    copilot: CopilotFlag = False,
    gemini: GeminiFlag = False,
    codex: CodexFlag = False,
    cline: ClineFlag = False,
    kiro: KiroFlag = False,
    command: CommandOpt = None,
) -> None:
    """Remove only what `orbit hooks install` added, restoring earlier hooks exactly.

    \b
    Examples:
      orbit hooks uninstall
      orbit hooks uninstall claude-code cursor
    """
    flags = {"claude": claude, "cursor": cursor, "copilot": copilot, "gemini": gemini}
    flags |= {"codex": codex, "cline": cline, "kiro": kiro}
    _run(_named(names, **flags), command=command, install=False)


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
