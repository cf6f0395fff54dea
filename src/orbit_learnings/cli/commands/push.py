"""Push-pipeline commands: `learning inject` (hot, via `cli/hot.py`) and `learning stats`."""

from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import hot
from orbit_learnings.cli.output import (
    emit_json,
    info,
    render_rows,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.scope import Scope


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
    *,
    feedback_hint: Annotated[
        bool,
        typer.Option("--feedback-hint", help="Add the LEARNING_HELPFUL/NOT_HELPFUL instruction."),
    ] = False,
    min_confidence: Annotated[
        float | None, typer.Option("--min-confidence", help="Skip learnings below this confidence.")
    ] = None,
    include_stale: Annotated[
        bool,
        typer.Option("--include-stale", help="Also push learnings whose cited code is gone."),
    ] = False,
) -> None:
    """Print the learnings for a task as a block to prepend to an agent prompt.

    Summaries only; nothing is printed when nothing matches. A learning whose anchor
    drifted says so in its line; one whose cited code is gone is held back.

    \b
    Examples:
      orbit learning inject --path src/db/migrate.py --tag database
      orbit learning inject --task-file task.yaml --session "$RUN_ID" \\
        --max-tokens 300
    """
    hot.do_inject(
        STATE.workspace(),
        Scope(path or [], tag or []),
        task_file=str(task_file) if task_file else None,
        limit=limit,
        session=session,
        max_tokens=max_tokens,
        output_format=output_format,
        feedback_hint=feedback_hint,
        min_confidence=min_confidence,
        include_stale=include_stale,
    )


def stats_command(
    days: Annotated[int, typer.Option("--days", min=1, help="Window for 'never injected'.")] = 30,
    *,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Per learning: how often it was injected, when last, votes; and what was never injected.

    \b
    Example:
      orbit learning stats --days 90
    """
    from orbit_learnings.push import stats

    report = stats.collect(STATE.workspace(), days)
    if json_out:
        emit_json(report.to_dict())
        return
    rows = [
        (e.id, str(e.injected), e.last_injected or "never", str(e.vote_count), e.summary)
        for e in report.learnings
    ]
    render_rows(("ID", "Injected", "Last injected", "Votes", "Summary"), rows)
    if report.never_injected:
        info(f"\nNot injected in the last {days} days: {', '.join(report.never_injected)}")
