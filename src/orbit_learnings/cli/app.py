"""The `orbit` Typer app and its single error boundary.

Known errors become one line on stderr and their exit code (1 domain, 2 usage);
anything unexpected is exit 3 with a hint to re-run with `--debug`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer._click import exceptions as click_errors  # typer 0.28 vendors click

from orbit_learnings import integrations
from orbit_learnings.cli.commands import (
    anchors,
    authoring,
    branches,
    curation,
    exchange,
    hooks,
    maintenance,
    org,
    push,
    records,
    search,
    serve,
)
from orbit_learnings.cli.output import error, report_failure
from orbit_learnings.cli.state import STATE
from orbit_learnings.core import VERSION

app = typer.Typer(
    name="orbit",
    help=(
        "Project learnings: short, reviewed lessons kept in git and shown to developers "
        "and AI agents when they touch the code they are about.\n\n"
        "Start with `orbit init`, then `orbit learning add --help`."
    ),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _group(help_text: str) -> typer.Typer:
    return typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None)


learning_app = _group("Add, find and curate project learnings.")
drafts_app = _group("Review drafts proposed by `orbit learning extract`.")
hook_app = _group("Agent hooks (they never block the agent: always exit 0).")
org_app = _group("The org level: learnings shared by many repositories through one git repository.")
hooks_app = _group(
    "Install or remove hooks: git (default) or an agent's (claude-code, or --claude)."
)

# Every command, in one place: (group, name, function).
_COMMANDS: list[tuple[typer.Typer, str, Callable[..., Any]]] = [
    (app, "init", maintenance.init_command),
    (learning_app, "add", records.add_command),
    (learning_app, "list", records.list_command),
    (learning_app, "show", records.show_command),
    (learning_app, "update", records.update_command),
    (learning_app, "supersede", records.supersede_command),
    (learning_app, "upvote", records.upvote_command),
    (learning_app, "search", search.search_command),
    (learning_app, "feedback", search.feedback_command),
    (learning_app, "sync", maintenance.sync_command),
    (learning_app, "refresh", maintenance.refresh_command),
    (learning_app, "migrate-layout", maintenance.migrate_layout_command),
    (learning_app, "embed", maintenance.embed_command),
    (learning_app, "inject", push.inject_command),
    (learning_app, "stats", push.stats_command),
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
    (hooks_app, "install", hooks.hooks_install_command),
    (hooks_app, "uninstall", hooks.hooks_uninstall_command),
    (app, "mcp", serve.mcp_command),
    (app, "doctor", serve.doctor_command),
    (app, "dashboard", serve.dashboard_command),
]
for group, command_name, function in _COMMANDS:
    group.command(command_name)(function)
app.command("search", context_settings={"allow_interspersed_args": True})(
    search.unified_search_command
)
for integration in integrations.every():
    if integration.has_hook:
        hook_app.command(
            integration.name,
            context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        )(hooks.hook_command_for(integration))
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


def run(argv: list[str]) -> int:
    """Invoke the app and map every outcome to an exit code."""
    try:
        result = app(args=argv, prog_name="orbit", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except click_errors.NoArgsIsHelpError as exc:
        sys.stdout.write(exc.ctx.get_help() + "\n")
        return 0
    except typer.Abort:
        error("interrupted")
        return 130
    except click_errors.ClickException as exc:
        context = getattr(exc, "ctx", None)  # usage errors carry one, other click errors not
        hint = f" (see '{context.command_path} --help')" if context is not None else ""
        error(exc.format_message().replace("\n", " ") + hint)  # with click's "Did you mean"
        return exc.exit_code
    except BaseException as exc:  # the last line of defence: never a bare traceback
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, debug=STATE.debug)
    return result if isinstance(result, int) else 0
