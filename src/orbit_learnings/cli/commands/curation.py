"""Curation commands for reviewers, git hooks and CI: prune, check, resolve-conflict, renumber."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from orbit_learnings.cli import completion
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
    """
    from orbit_learnings.curation.check import check_store, github_annotation

    if output_format not in ("text", "github"):
        raise UsageError(f"unknown --format {output_format!r}; choose text or github")
    if dry_run and not fix:
        raise UsageError("--dry-run previews --fix; pass both")
    ws = STATE.workspace()
    fixed = _fix_leftovers(ws, dry_run=dry_run, quiet=json_out) if fix else []
    problems = check_store(ws, stale=stale, base=base)
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


TargetOption = Annotated[
    str | None,
    typer.Option(
        "--target",
        metavar="REF",
        help="The branch work merges into; its learning keeps the ID. "
        "Default: target_branch in .orbit/config.yaml, else origin/main, main or master.",
    ),
]


def resolve_conflict_command(
    learning_id: Annotated[
        str,
        typer.Argument(
            metavar="ID", help="The conflicted learning.", autocompletion=completion.learning_ids
        ),
    ],
    *,
    target: TargetOption = None,
    json_out: JsonFlag = False,
) -> None:
    """Split a git add/add conflict into two learnings; the published one keeps the ID.

    The side already on the target branch (origin/main by default) keeps the ID; the
    newcomer gets the next free ID, with the votes, feedback and supersede links that
    came with it. One learning edited on both branches is not split: keep the right
    value of each conflicting field instead. Stages nothing: review, `git add`, commit.

    \b
    Example:
      orbit learning resolve-conflict L-0007
      orbit learning resolve-conflict L-0007 --target origin/develop
    """
    from orbit_learnings.curation.branches.conflicts import resolve_conflict

    learning_id = learning_id.strip()
    result = resolve_conflict(STATE.workspace(), learning_id, target=target)
    if json_out:
        emit_json(result.to_dict())
        return
    side = "our side" if result.kept == "ours" else "the incoming side"
    info(f"{learning_id} keeps {side} ({result.reason}).")
    moved = f" with {result.moved_rows} sidecar row(s)" if result.moved_rows else ""
    info(f"The other side is now {result.new_id}{moved}.")
    if result.relinked:
        info(f"Links to it now point at {result.new_id} in: {', '.join(result.relinked)}.")
    info("Review both files, then `git add .orbit/learnings` and commit.")


def renumber_command(
    learning_id: Annotated[
        str,
        typer.Argument(
            metavar="OLD", help="The learning to move.", autocompletion=completion.learning_ids
        ),
    ],
    *,
    target: TargetOption = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Renumber even a learning published on the target branch."),
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Move a learning to the next free ID, with its sidecars and every link pointing at it.

    Refuses a learning that is published on the target branch: a published ID keeps
    its meaning (renumber this branch's newcomer instead, as `check --base` says).

    \b
    Example:
      orbit learning renumber L-0007
    """
    from orbit_learnings.curation.branches.collisions import renumber

    new_id = renumber(STATE.workspace(), learning_id.strip(), target=target, force=force)
    if json_out:
        emit_json({"old": learning_id, "new": new_id})
    else:
        info(f"{learning_id} is now {new_id}")
