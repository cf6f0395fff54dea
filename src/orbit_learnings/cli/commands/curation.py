"""Curation commands for reviewers, git hooks and CI: prune and check."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from orbit_learnings.cli.options import (
    JsonFlag,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
    is_terminal,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.store.workspace import Workspace


def prune_command(
    *,
    archive_them: Annotated[
        bool, typer.Option("--archive", help="Archive them (status: archived, kept on disk).")
    ] = False,
    delete: Annotated[
        bool, typer.Option("--delete", hidden=True, help="The old spelling of --archive.")
    ] = False,
    stale_only: Annotated[
        bool, typer.Option("--stale-only", hidden=True, help="Accepted; prune is stale-only.")
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Report learnings whose paths, commits or tasks are gone; archive them with --archive.

    Archived learnings stay on disk (`status: archived`) and leave lists, search and
    injection.

    \b
    Examples:
      orbit learning prune             # report only; changes nothing
      orbit learning prune --archive   # archive every stale learning
    """
    from orbit_learnings.curation.staleness import archive, find_stale

    delete = archive_them or delete
    ws = STATE.workspace()
    report = find_stale(ws)
    for note in report.notes:
        sys.stderr.write(f"orbit: note: {note}\n")
    archived = archive(ws, report) if delete else []
    if json_out:
        payload: dict[str, object] = report.to_dict()
        payload.pop("notes")
        if delete:
            payload["archived"] = archived
        emit_json(payload)
        return
    if not report.stale:
        info("No stale learnings.")
        return
    for stale in report.stale:
        info(f"{stale.id}\t{', '.join(stale.reasons)}\t{stale.summary}")
    if delete:
        info(f"Archived {len(archived)} learning(s); see `orbit learning list --status archived`.")


def check_command(
    *,
    stale: Annotated[bool, typer.Option("--stale", help="Also fail on stale learnings.")] = False,
    base: Annotated[
        str | None,
        typer.Option(
            "--base", metavar="REF", help="Fail on IDs this branch adds that REF has too."
        ),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", help="text or github (Actions annotations).")
    ] = "text",
    staged: Annotated[
        bool,
        typer.Option("--staged", help="Check the learnings as staged in git (what you commit)."),
    ] = False,
    fix: Annotated[
        bool, typer.Option("--fix", help="First remove what killed writes left behind.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --fix: only name what would be removed.")
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Validate the whole store; exit 1 on any problem, each as path:line: message.

    Read-only unless --fix, which first clears what a killed write left behind (stray
    temp files, bundle folders without a learning.yaml); --fix --dry-run previews that.

    \b
    Examples:
      orbit learning check
      orbit learning check --fix --dry-run              # what --fix would remove
      orbit learning check --stale --format github      # in a GitHub Actions job
      orbit learning check --base origin/main           # in a pull request's CI
      orbit learning check --staged                     # in a pre-commit hook
    """
    from orbit_learnings.curation.check import check_store, github_annotation

    if output_format not in ("text", "github"):
        raise UsageError(f"unknown --format {output_format!r}; choose text or github")
    if dry_run and not fix:
        raise UsageError("--dry-run previews --fix; pass both")
    ws = STATE.workspace()
    fixed = _fix_leftovers(ws, dry_run=dry_run, quiet=json_out) if fix else []
    problems = check_store(ws, stale=stale, base=base, staged=staged)
    if json_out:
        payload: dict[str, object] = {"problems": [p.to_dict() for p in problems]}
        emit_json(payload | ({"removed_leftovers": fixed} if fix else {}))
    elif output_format == "github":
        for problem in problems:
            sys.stdout.write(github_annotation(problem) + "\n")
    else:
        for problem in problems:
            sys.stdout.write(f"{problem}\n")
        if not problems and is_terminal():
            info("All learnings are valid.")
    if problems:
        raise typer.Exit(1)


def _fix_leftovers(ws: Workspace, *, dry_run: bool, quiet: bool) -> list[str]:
    from orbit_learnings.store.allocation import clear_crash_leftovers

    leftovers = clear_crash_leftovers(ws, dry_run=dry_run)
    for leftover in [] if quiet else leftovers:
        info(f"{'Would remove' if dry_run else 'Removed'} {leftover} (left by a killed write)")
    return leftovers
