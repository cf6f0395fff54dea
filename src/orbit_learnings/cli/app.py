"""The `orbit` Typer app and its single error boundary.

Known errors become one line on stderr and their exit code (1 domain, 2 usage);
anything unexpected is exit 3 with a hint to re-run with `--debug`.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from typer._click import exceptions as click_errors  # typer 0.28 vendors click

from orbit_learnings.cli import authoring, curation, exchange, learning, push
from orbit_learnings.cli.output import error, report_failure
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.version import VERSION

app = typer.Typer(
    name="orbit",
    help=(
        "Project learnings: short, reviewed lessons kept in git and shown to developers "
        "and AI agents when they touch the code they are about.\n\n"
        "Start with `orbit init`, then `orbit learning add --help`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(learning.app, name="learning")
learning.app.command("inject")(push.inject_command)
learning.app.command("stats")(push.stats_command)
learning.app.command("prune")(curation.prune_command)
learning.app.command("check")(curation.check_command)
learning.app.command("resolve-conflict")(curation.resolve_conflict_command)
learning.app.command("renumber")(curation.renumber_command)
learning.app.command("context")(exchange.context_command)
learning.app.command("export")(exchange.export_command)
learning.app.command("import")(exchange.import_command)
learning.app.command("embed")(exchange.embed_command)
learning.app.command("extract")(authoring.extract_command)
learning.app.add_typer(authoring.drafts_app, name="drafts")
app.add_typer(push.hook_app, name="hook")
app.add_typer(push.hooks_app, name="hooks")
app.command("mcp")(push.mcp_command)
app.command("doctor")(push.doctor_command)
app.command("dashboard")(push.dashboard_command)
app.command("init")(learning.init_command)
app.command(
    "search",
    context_settings={"allow_interspersed_args": True},
)(learning.unified_search_command)


def _version(value: bool) -> None:
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
        hint = f" (see '{exc.ctx.command_path} --help')" if getattr(exc, "ctx", None) else ""
        error(exc.format_message().replace("\n", " ") + hint)
        return exc.exit_code
    except BaseException as exc:  # the last line of defence: never a bare traceback
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, STATE.debug)
    return result if isinstance(result, int) else 0
