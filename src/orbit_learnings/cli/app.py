"""The `orbit` Typer app and its single error boundary.

Known errors become one line on stderr and their exit code (1 domain, 2 usage);
anything unexpected is exit 3 with a hint to re-run with `--debug`. Under `--json` the
failure is also the error object on stdout (`output.fail`). Typer's public API only: its
click is vendored and private, so its errors are caught as `typer.TyperException`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any

import typer

from orbit_learnings import integrations
from orbit_learnings.cli.commands import (
    anchors,
    authoring,
    branches,
    curation,
    editing,
    exchange,
    finding,
    maintenance,
    org,
    records,
    surfaces,
)
from orbit_learnings.cli.output import fail, report_failure, wants_json
from orbit_learnings.cli.state import STATE
from orbit_learnings.cli.suggest import SuggestingGroup
from orbit_learnings.core import VERSION

app = typer.Typer(
    name="orbit",
    help=(
        "Project learnings: short, reviewed lessons kept in git and shown to developers "
        "and AI agents when they touch the code they are about.\n\n"
        "Start with `orbit init`, then `orbit learning add --help`.\n\n"
        "\b\nExamples:\n"
        "  orbit init\n"
        "  orbit learning add --summary \"Index every foreign key\" --path 'db/**'\n"
        '  orbit search "migration lock"\n'
        "  orbit hooks install --claude"
    ),
    cls=SuggestingGroup,
    invoke_without_command=True,  # bare `orbit` prints its help: see `_help_when_bare`
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _help_when_bare(context: typer.Context) -> None:
    """A group named without a command prints its help on stdout, exit 0. Not Typer's
    `no_args_is_help`, which signals through an exception class only its private, vendored
    click exports: a callback is public API."""
    if context.invoked_subcommand is None:
        sys.stdout.write(context.get_help() + "\n")
        raise typer.Exit()


def _group(help_text: str, *examples: str) -> typer.Typer:
    """A command group whose help ends with examples, kept as written (click's \\b)."""
    shown = "\n".join(["\b", "Examples:", *(f"  {line}" for line in examples)])
    group = typer.Typer(
        cls=SuggestingGroup,
        help=f"{help_text}\n\n{shown}",
        invoke_without_command=True,
        rich_markup_mode=None,
    )
    group.callback()(_help_when_bare)
    return group


learning_app = _group(
    "Add, find and curate project learnings.",
    'orbit learning add --summary "Index every foreign key" --tag database',
    "orbit learning list --path src/db/",
    "orbit learning show L-0001",
    "orbit learning check",
)
drafts_app = _group(
    "Review drafts proposed by `orbit learning extract`.",
    "orbit learning drafts list",
    "orbit learning drafts show D-1a2b3c4d",
    "orbit learning drafts accept D-1a2b3c4d",
)
hook_app = _group(
    "Agent hooks (they never block the agent: always exit 0). Agents run these;\n"
    "`orbit hooks install` writes the entries that do.",
    'echo \'{"tool_input": {"file_path": "src/db/x.py"}}\' |',
    "  orbit hook claude-code",
)
org_app = _group(
    "The org level: learnings shared by many repositories through one git repository.",
    "orbit org subscribe git@github.com:acme/learnings.git",
    "orbit org fetch",
    "orbit org update",
)
hooks_app = _group(
    "Install or remove hooks: git (default) or an agent's (claude-code, or --claude).",
    "orbit hooks install",
    "orbit hooks install --claude --cursor",
    "orbit hooks uninstall --claude",
)

# Every command, in one place: (group, name, function).
_COMMANDS: list[tuple[typer.Typer, str, Callable[..., Any]]] = [
    (app, "init", maintenance.init_command),
    (learning_app, "add", records.add_command),
    (learning_app, "list", records.list_command),
    (learning_app, "show", records.show_command),
    (learning_app, "update", editing.update_command),
    (learning_app, "archive", editing.archive_command),
    (learning_app, "restore", editing.restore_command),
    (learning_app, "supersede", records.supersede_command),
    (learning_app, "upvote", records.upvote_command),
    (learning_app, "search", finding.search_command),
    (learning_app, "feedback", finding.feedback_command),
    (learning_app, "sync", maintenance.sync_command),
    (learning_app, "refresh", maintenance.refresh_command),
    (learning_app, "migrate-layout", maintenance.migrate_layout_command),
    (learning_app, "embed", maintenance.embed_command),
    (learning_app, "inject", finding.inject_command),
    (learning_app, "stats", finding.stats_command),
    (learning_app, "context", exchange.context_command),
    (learning_app, "export", exchange.export_command),
    (learning_app, "import", exchange.import_command),
    (learning_app, "prune", curation.prune_command),
    (learning_app, "check", curation.check_command),
    (learning_app, "anchors", anchors.anchors_command),
    (learning_app, "resolve-conflict", branches.resolve_conflict_command),
    (learning_app, "renumber", branches.renumber_command),
    (learning_app, "merge-driver", branches.merge_driver_command),
    (learning_app, "promote", org.promote_command),
    (learning_app, "extract", authoring.extract_command),
    (learning_app, "propose", authoring.propose_command),
    (learning_app, "approve", authoring.approve_command),
    (learning_app, "reject", authoring.reject_command),
    (drafts_app, "list", authoring.drafts_list_command),
    (drafts_app, "show", authoring.drafts_show_command),
    (drafts_app, "accept", authoring.drafts_accept_command),
    (drafts_app, "reject", authoring.drafts_reject_command),
    (org_app, "init", org.init_command),
    (org_app, "subscribe", org.subscribe_command),
    (org_app, "fetch", org.fetch_command),
    (org_app, "update", org.update_command),
    (org_app, "check", org.check_command),
    (hooks_app, "install", surfaces.hooks_install_command),
    (hooks_app, "uninstall", surfaces.hooks_uninstall_command),
    (app, "mcp", surfaces.mcp_command),
    (app, "doctor", surfaces.doctor_command),
    (app, "dashboard", surfaces.dashboard_command),
]
for group, command_name, function in _COMMANDS:
    group.command(command_name)(function)
app.command("search", context_settings={"allow_interspersed_args": True})(
    finding.unified_search_command
)
for integration in integrations.every():
    if integration.has_hook:
        hook_app.command(
            integration.name,
            context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        )(surfaces.hook_command_for(integration))
app.add_typer(learning_app, name="learning")
learning_app.add_typer(drafts_app, name="drafts")
app.add_typer(hook_app, name="hook")
app.add_typer(hooks_app, name="hooks")
app.add_typer(org_app, name="org")


def _version(*, value: bool) -> None:
    if value:
        sys.stdout.write(f"orbit {VERSION}\n")
        raise typer.Exit()


@app.callback()
def main_callback(
    context: typer.Context,
    root: Annotated[
        str | None,
        typer.Option(
            "--root", help="Workspace folder holding .orbit/ (overrides ORBIT_ROOT).", metavar="DIR"
        ),
    ] = None,
    *,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks for unexpected errors.")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    STATE.root = root
    STATE.debug = STATE.debug or debug
    _help_when_bare(context)


@cache
def _command() -> Callable[..., Any]:
    """The click command behind `app`, built once. Calling `app(...)` builds it again from
    every command's signature (each annotation evaluated: about half of an in-process
    `learning add`); a process that runs the CLI more than once (the suite's in-process
    runner) needs it only once. Nothing in it is per-call: click makes a fresh context for
    every invocation."""
    return typer.main.get_command(app)


def run(argv: list[str]) -> int:
    """Invoke the app and map every outcome to an exit code."""
    json_out = wants_json(argv)
    try:
        result = _command()(args=argv, prog_name="orbit", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        return fail("interrupted", code="interrupted", exit_code=130, json_out=json_out)
    except typer.TyperException as exc:  # click's own: a missing option, a bad value
        context = getattr(exc, "ctx", None)  # usage errors carry one, other click errors not
        message = exc.format_message().replace("\n", " ")
        if context is not None and "Did you mean" not in message:
            message += f" (see '{context.command_path} --help')"
        return fail(message, code="usage-error", exit_code=exc.exit_code, json_out=json_out)
    except BaseException as exc:  # the last line of defence: never a bare traceback
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, debug=STATE.debug, json_out=json_out)
    return result if isinstance(result, int) else 0
