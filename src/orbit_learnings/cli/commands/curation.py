"""Curation commands for reviewers, git hooks and CI: prune and check."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from orbit_learnings.cli.options import (
    JsonFlag,
)
from orbit_learnings.cli.output import (
    agreed,
    emit_json,
    info,
    is_terminal,
    warn,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.store.workspace import Workspace

if TYPE_CHECKING:
    from orbit_learnings.core.errors import Problem
    from orbit_learnings.curation.staleness import StaleReport

UnusedOpt = Annotated[
    int | None,
    typer.Option(
        "--unused",
        metavar="DAYS",
        help="Also fail on active learnings older than DAYS days that nothing used in them:"
        " no injection (this machine's log only: .orbit/state is not in git), vote or"
        " helpful mark. Never deletes.",
    ),
]


def prune_command(
    *,
    archive_them: Annotated[
        bool, typer.Option("--archive", help="Archive them (status: archived, kept on disk).")
    ] = False,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow-renames",
            help="Rewrite the scope of stale learnings whose files git saw renamed.",
        ),
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="With --follow-renames: apply without asking.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --follow-renames: only print the plan.")
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
    injection. A path that git saw renamed is named with its new place; --follow-renames
    rewrites those scopes (after a preview and a question, unless --yes).

    \b
    Examples:
      orbit learning prune             # report only; changes nothing
      orbit learning prune --archive   # archive every stale learning
      orbit learning prune --follow-renames --dry-run  # what it would rewrite
    """
    from orbit_learnings.curation.staleness import archive, find_stale

    delete = archive_them or delete
    _check_prune_flags(follow=follow, archive=delete, yes=yes, dry_run=dry_run)
    ws = STATE.workspace()
    report = find_stale(ws)
    for note in report.notes:
        sys.stderr.write(f"orbit: note: {note}\n")
    if follow:
        _follow_renames(ws, report, yes=yes, dry_run=dry_run, json_out=json_out)
        return
    archived = archive(ws, report) if delete else None
    _show_stale(report, archived, json_out=json_out)


def _show_stale(report: StaleReport, archived: list[str] | None, *, json_out: bool) -> None:
    """The report, with what --archive archived (None without it)."""
    if json_out:
        payload: dict[str, object] = report.to_dict()
        payload.pop("notes")
        if archived is not None:
            payload["archived"] = archived
        emit_json(payload)
        return
    if not report.stale:
        info("No stale learnings.")
        return
    for stale in report.stale:
        info(f"{stale.id}\t{stale.describe()}\t{stale.summary}")
    if archived is not None:
        info(f"Archived {len(archived)} learning(s); see `orbit learning list --status archived`.")


def _check_prune_flags(*, follow: bool, archive: bool, yes: bool, dry_run: bool) -> None:
    if (yes or dry_run) and not follow:
        raise UsageError("--yes and --dry-run go with --follow-renames")
    if yes and dry_run:
        raise UsageError("--yes applies and --dry-run only previews; pass one of them")
    if follow and archive:
        raise UsageError("--follow-renames and --archive both change stale learnings; run one")


def _follow_renames(
    ws: Workspace, report: StaleReport, *, yes: bool, dry_run: bool, json_out: bool
) -> None:
    """Preview the rewrites, then apply them when --yes says so or a person at a terminal
    agrees: nothing is written otherwise."""
    from orbit_learnings.curation.staleness import follow_renames

    plan = [{"id": s.id, **r.to_dict()} for s in report.stale for r in s.renames]
    if not json_out or not (yes or dry_run):  # with --json, only a question needs the plan
        show = (lambda line: sys.stderr.write(line + "\n")) if json_out else info
        for step in plan:
            show(f"{step['id']}: {step['from']} → {step['to']}")
        if not plan:
            show("No stale learning has a renamed path to follow.")
    apply = bool(plan) and not dry_run and (yes or _agreed(plan))
    rewritten = follow_renames(ws, report) if apply else []
    if json_out:
        payload = {**report.to_dict(), "rewrites": plan, "rewritten": rewritten}
        payload.pop("notes")
        emit_json(payload)
    elif apply:
        info(f"Rewrote the scope of {len(rewritten)} learning(s).")
    elif plan:
        info("Dry run: nothing written." if dry_run else "Nothing written.")


def _agreed(plan: list[dict[str, str]]) -> bool:
    learnings = len({step["id"] for step in plan})
    return agreed(f"Rewrite the scope of {learnings} learning(s)?", option="--follow-renames")


StagedFlag = Annotated[
    bool, typer.Option("--staged", help="Check the learnings as staged in git (what you commit).")
]
FixFlag = Annotated[
    bool, typer.Option("--fix", help="First remove what killed writes left behind.")
]
DryRunFlag = Annotated[
    bool, typer.Option("--dry-run", help="With --fix: only name what would be removed.")
]
ProposalsFlag = Annotated[
    bool,
    typer.Option("--proposals", help="Also fail while proposals await review (a release branch)."),
]


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
    staged: StagedFlag = False,
    fix: FixFlag = False,
    dry_run: DryRunFlag = False,
    unused: UnusedOpt = None,
    proposals: ProposalsFlag = False,
    json_out: JsonFlag = False,
) -> None:
    """Validate the whole store; exit 1 on any problem, each as path:line: message.


    Read-only unless --fix, which first clears what a killed write left behind (stray temp
    files, bundle folders without a learning.yaml); --fix --dry-run previews that.
    --unused DAYS lists what nobody used (never deletes): injections are read from this
    machine's log, so one injected on a teammate's machine looks unused here; votes and
    helpful marks are in git. `unused_days: N` in .orbit/config.yaml runs that report in
    plain check too, on a machine that has an injection log and not with --staged.

    \b
    Examples:
      orbit learning check
      orbit learning check --fix --dry-run              # what --fix would remove
      orbit learning check --stale --format github      # in a GitHub Actions job
      orbit learning check --base origin/main           # in a pull request's CI
      orbit learning check --staged                     # in a pre-commit hook
      orbit learning check --unused 90                  # unused in 90 days
      orbit learning check --proposals                  # fail on any proposal
    """
    from orbit_learnings.curation.check import check_store

    _check_check_flags(output_format, unused, fix=fix, dry_run=dry_run)
    ws = STATE.workspace()
    fixed = _fix_leftovers(ws, dry_run=dry_run, quiet=json_out) if fix else []
    problems = check_store(ws, stale=stale, base=base, staged=staged)
    found = _add_unused(ws, problems, unused, staged=staged) | (
        {"removed_leftovers": fixed} if fix else {}
    )
    if fix:
        found["removed_leftovers"] = fixed
    waiting = _proposals(ws, quiet=json_out)
    if json_out:
        emit_json({"problems": [p.to_dict() for p in problems], "proposals": waiting} | found)
    else:
        _print_problems(problems, github=output_format == "github")
    if problems or (proposals and waiting):
        raise typer.Exit(1)


def _proposals(ws: Workspace, *, quiet: bool) -> list[str]:
    """The proposals awaiting review, named on stderr (a note, not a problem)."""
    from orbit_learnings.retrieval.queries import list_learnings

    waiting = [hit.id for hit in list_learnings(ws, status="proposed").hits]
    if waiting and not quiet:
        warn(f"{len(waiting)} proposal(s) awaiting review: {', '.join(waiting)} "
             "(`orbit learning approve ID` or `orbit learning reject ID`)")  # fmt: skip
    return waiting


def _check_check_flags(output_format: str, unused: int | None, *, fix: bool, dry_run: bool) -> None:
    if output_format not in ("text", "github"):
        raise UsageError(f"unknown --format {output_format!r}; choose text or github")
    if dry_run and not fix:
        raise UsageError("--dry-run previews --fix; pass both")
    if unused is not None and unused < 1:
        raise UsageError(f"--unused takes a number of days, 1 or more; got {unused}")


def _print_problems(problems: list[Problem], *, github: bool) -> None:
    from orbit_learnings.curation.check import github_annotation

    for problem in problems:
        sys.stdout.write((github_annotation(problem) if github else str(problem)) + "\n")
    if not problems and not github and is_terminal():
        info("All learnings are valid.")


def _add_unused(
    ws: Workspace, problems: list[Problem], explicit: int | None, *, staged: bool
) -> dict[str, object]:
    """Add `check`'s unused learnings to the problems, in order (none when not asked
    for: `push.usage.check_days`); return the window and each one's last use for --json.
    A note on stderr says whose injections were read."""
    from orbit_learnings.push import usage

    days = usage.check_days(ws, explicit, staged=staged)
    if days is None:
        return {}
    found = usage.find_unused(ws, days)
    if not usage.has_log(ws):
        sys.stderr.write(
            "orbit: note: no injection log on this machine (.orbit/state/injections.jsonl):"
            " only votes and helpful marks count\n"
        )
    elif found:
        sys.stderr.write(f"orbit: note: {usage.PER_MACHINE}\n")
    problems += usage.problems(found, days)
    problems.sort(key=lambda p: (p.file, p.line, p.message))
    return {"unused_days": days, "unused": [u.to_dict() for u in found]}


def _fix_leftovers(ws: Workspace, *, dry_run: bool, quiet: bool) -> list[str]:
    from orbit_learnings.store.allocation import clear_crash_leftovers

    leftovers = clear_crash_leftovers(ws, dry_run=dry_run)
    for leftover in [] if quiet else leftovers:
        info(f"{'Would remove' if dry_run else 'Removed'} {leftover} (left by a killed write)")
    return leftovers
