"""Push-pipeline commands: `learning inject`, `hook claude-code`, `mcp`, `hooks`, `doctor`.

The hot ones (`inject`, `hook claude-code`) are thin wrappers over `cli/hot.py`,
which the lean dispatch in `entry.py` calls directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import hot
from orbit_learnings.cli.state import STATE

hook_app = typer.Typer(
    help="Agent hooks (they never block the agent: always exit 0).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def inject_command(
    path: Annotated[
        list[str] | None, typer.Option("--path", "-p", help="A file the task touches (repeatable).")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", "-t", help="A task tag (repeatable).")
    ] = None,
    task_file: Annotated[
        Path | None, typer.Option("--task-file", help="Task YAML/JSON with context_files and tags.")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=0, help="Per-call cap (default 5).")
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Session ID for dedup (default $ORBIT_SESSION_ID)."),
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", min=1, help="Token budget for the block.")
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", help="reminder, json or markdown.")
    ] = "reminder",
    feedback_hint: Annotated[
        bool,
        typer.Option("--feedback-hint", help="Add the LEARNING_HELPFUL/NOT_HELPFUL instruction."),
    ] = False,
    min_confidence: Annotated[
        float | None, typer.Option("--min-confidence", help="Skip learnings below this confidence.")
    ] = None,
) -> None:
    """Print the learnings for a task as a block to prepend to an agent prompt.

    Summaries only; nothing is printed when nothing matches.

    \b
    Examples:
      orbit learning inject --path src/db/migrate.py --tag database
      orbit learning inject --task-file task.yaml --session "$RUN_ID" --max-tokens 300
    """
    hot.do_inject(
        STATE.workspace(),
        paths=path or [],
        tags=tag or [],
        task_file=str(task_file) if task_file else None,
        limit=limit,
        session=session,
        max_tokens=max_tokens,
        output_format=output_format,
        feedback_hint=feedback_hint,
        min_confidence=min_confidence,
    )


@hook_app.command("claude-code")
def claude_code_hook_command(
    deny_new_writes: Annotated[
        bool,
        typer.Option(
            "--deny-new-writes",
            help="Deny a Write of a new file once, with the learnings as reason.",
        ),
    ] = False,
) -> None:
    """Claude Code PreToolUse hook: reads the tool call on stdin, prints additionalContext.

    \b
    Example (in .claude/settings.json, installed by `orbit hooks install --claude`):
      {"matcher": "Read|Edit|Write|MultiEdit|NotebookEdit",
       "hooks": [{"type": "command", "command": "orbit hook claude-code"}]}
    """
    raise typer.Exit(hot.do_hook_claude_code(STATE.root, deny_new_writes))


hooks_app = typer.Typer(
    help="Install or remove git hooks (default) or the Claude Code hook and skill (--claude).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

ClaudeFlag = Annotated[
    bool, typer.Option("--claude", help="The Claude Code hook and skill instead of git hooks.")
]
CommandOpt = Annotated[
    str | None,
    typer.Option(
        "--command", help="Hook command for Claude Code (default: orbit hook claude-code)."
    ),
]


def _hooks(install: bool, claude: bool, command: str | None) -> None:
    """One body for install and uninstall: git hooks by default, Claude Code with --claude."""
    from orbit_learnings.cli.output import info

    ws = STATE.workspace()
    if claude:
        from orbit_learnings.integrations.claude_code import setup as claude_setup

        action = claude_setup.install if install else claude_setup.uninstall
        report = action(ws.root, command or claude_setup.HOOK_COMMAND)
    else:
        from orbit_learnings.integrations import git as githooks

        report = (githooks.install if install else githooks.uninstall)(ws)
    for item in report.changed:
        info(f"{'installed' if install else 'removed'} {item}")
    for item in report.unchanged:
        info(f"{'already there' if install else 'left alone'}: {item}")


@hooks_app.command("install")
def hooks_install_command(claude: ClaudeFlag = False, command: CommandOpt = None) -> None:
    """Install hooks. Existing hooks are chained, never overwritten; running twice adds nothing.

    \b
    Examples:
      orbit hooks install            # post-merge, post-checkout, post-rewrite, pre-commit
      orbit hooks install --claude   # .claude/settings.json entry + .claude/skills/orbit-learnings
    """
    _hooks(True, claude, command)


@hooks_app.command("uninstall")
def hooks_uninstall_command(claude: ClaudeFlag = False, command: CommandOpt = None) -> None:
    """Remove only what `orbit hooks install` added, restoring earlier hooks exactly.

    \b
    Examples:
      orbit hooks uninstall
      orbit hooks uninstall --claude
    """
    _hooks(False, claude, command)


def mcp_command(
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
    from orbit_learnings.integrations.mcp_server import serve

    serve(STATE.workspace(), dotted_names=dotted_names)


def stats_command(
    days: Annotated[int, typer.Option("--days", min=1, help="Window for 'never injected'.")] = 30,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Per learning: how often it was injected, when last, votes; and what was never injected.

    \b
    Example:
      orbit learning stats --days 90
    """
    from orbit_learnings.cli.output import emit_json, info
    from orbit_learnings.push import stats

    report = stats.collect(STATE.workspace(), days)
    if json_out:
        emit_json(report.to_dict())
        return
    for entry in report.learnings:
        last = entry.last_injected or "never"
        counts = f"{entry.injected} injected (last {last})\t{entry.vote_count} vote(s)"
        info(f"{entry.id}\t{counts}\t{entry.summary}")
    if report.never_injected:
        info(f"\nNot injected in the last {days} days: {', '.join(report.never_injected)}")


def doctor_command(
    path: Annotated[str | None, typer.Option("--path", help="File to dry-run the hook on.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Check the set-up end to end: workspace, store, index, git hooks, Claude hook, a dry run.

    \b
    Example:
      orbit doctor
    """
    from orbit_learnings.cli.output import emit_json, info
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
    import sys

    from orbit_learnings.core.errors import UsageError
    from orbit_learnings.integrations.dashboard import app as dashboard

    ws = STATE.workspace()
    if host not in LOOPBACK:
        if not allow_remote:
            raise UsageError(f"binding {host} exposes the store to the network; add --allow-remote")
        sys.stderr.write(
            f"orbit: warning: serving on {host}: anyone who can reach it can read the learnings\n"
        )
    token = os.environ.get("ORBIT_DASHBOARD_TOKEN") or dashboard.new_token()
    dashboard.serve(ws, host, port, token, open_browser)
