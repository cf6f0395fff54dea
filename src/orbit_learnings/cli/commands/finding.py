"""Getting learnings to whoever needs them, and hearing how it went: `learning search`,
the unified `orbit search`, `learning inject` (hot, via `cli/hot.py`), `learning feedback`
and `learning stats`."""

from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import completion, hot
from orbit_learnings.cli.hot import do_search, resolve_min_helpfulness
from orbit_learnings.cli.options import (
    AllStatusesFlag,
    ExplainOpt,
    JsonFlag,
    LevelOpt,
    MinHelpfulnessOpt,
    OldMinHelpfulnessOpt,
    SearchLimitOpt,
    StatusOpt,
    TagOpt,
    WeakFlag,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
    render_hits,
    render_rows,
    warn,
    warn_problems,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.scope import Scope
from orbit_learnings.retrieval import queries


def search_command(
    text: Annotated[list[str], typer.Argument(metavar="TEXT...", help="Words to look for.")],
    tag: TagOpt = None,
    status: StatusOpt = "active",
    *,
    all_statuses: AllStatusesFlag = False,
    limit: SearchLimitOpt = 20,
    explain: ExplainOpt = False,
    min_helpfulness: MinHelpfulnessOpt = None,
    level: LevelOpt = "all",
    weak: WeakFlag = False,
    json_out: JsonFlag = False,
    min_confidence: OldMinHelpfulnessOpt = None,
) -> None:
    """Full-text search over summaries, bodies and tags.

    Each result carries a match confidence (the estimated chance it answers the
    query). The confident ones are listed; when none reaches the threshold, the
    closest are listed marked weak and stderr says "no confident match" (exit 0).
    `--json` returns every result with `match_confidence` and `confident`.

    \b
    Examples:
      orbit learning search "flaky test retry" --limit 5
      orbit learning search "nextval: reached maximum value of sequence" --json
      orbit learning search "vacation days" --weak   # every weak match too
    """
    do_search(
        STATE.workspace(),
        " ".join(text),
        tags=tag or [],
        status=status,
        include_all=all_statuses,
        limit=limit,
        explain=explain,
        min_helpfulness=resolve_min_helpfulness(min_helpfulness, min_confidence),
        level=level,
        weak=weak,
        json_out=json_out,
    )


def unified_search_command(
    words: Annotated[list[str], typer.Argument(metavar="TEXT... | path PATH")],
    kind: Annotated[
        str, typer.Option("--kind", help="What to search; only 'learning' exists.")
    ] = "learning",
    tag: TagOpt = None,
    status: StatusOpt = "active",
    *,
    all_statuses: AllStatusesFlag = False,
    limit: SearchLimitOpt = 20,
    explain: ExplainOpt = False,
    min_helpfulness: MinHelpfulnessOpt = None,
    level: LevelOpt = "all",
    weak: WeakFlag = False,
    json_out: JsonFlag = False,
    min_confidence: OldMinHelpfulnessOpt = None,
) -> None:
    """Search learnings by text, or by path with `orbit search path PATH`.

    \b
    Examples:
      orbit search "migration lock" --kind learning
      orbit search path src/db/migrate.py --kind learning
    """
    if kind != "learning":
        raise UsageError(f"unknown --kind {kind!r}; only 'learning' is searchable")
    if len(words) >= 2 and words[0] == "path":
        statuses = "all" if all_statuses else status
        ws = STATE.workspace()
        result = queries.list_learnings(
            ws, Scope(words[1:], tag or []), status=statuses, limit=limit, level=level
        )
        warn_problems(result.warnings)
        if json_out:
            emit_json(result.to_dict())
        else:
            render_hits(result.hits)
        return
    search_command(  # text search is `orbit learning search`, option for option
        words,
        tag=tag,
        status=status,
        all_statuses=all_statuses,
        limit=limit,
        explain=explain,
        min_helpfulness=min_helpfulness,
        level=level,
        weak=weak,
        json_out=json_out,
        min_confidence=min_confidence,
    )


def feedback_command(
    learning_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", autocompletion=completion.learning_ids)
    ] = None,
    helpful: Annotated[
        bool | None, typer.Option("--helpful/--not-helpful", help="Was it helpful in this task?")
    ] = None,
    task: Annotated[str, typer.Option("--task", help="The task (required).")] = "",
    model_name: Annotated[str | None, typer.Option("--model", "-m", help="Agent family.")] = None,
    from_output: Annotated[
        Path | None,
        typer.Option("--from-output", help="Record LEARNING_HELPFUL/NOT_HELPFUL markers in FILE."),
    ] = None,
    *,
    json_out: JsonFlag = False,
) -> None:
    """Say whether a learning helped in a task; its helpfulness is derived from these answers.

    \b
    Examples:
      orbit learning feedback L-0003 --helpful --task ORB-120 --model claude
      orbit learning feedback --from-output agent-log.txt --task ORB-120
    """
    from orbit_learnings.store import feedback

    ws = STATE.workspace()
    if from_output is not None:
        if learning_id is not None or helpful is not None:
            raise UsageError(
                "--from-output reads the verdicts from the file: drop ID and --helpful"
            )
        try:
            text = from_output.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"cannot read {from_output}: {exc.strerror}") from None
        report = feedback.record_from_output(ws, text, task, model_name)
        for unknown in report.unknown:
            warn(f"{from_output}: no learning {unknown}; marker skipped")
        if json_out:
            emit_json({"recorded": report.recorded, "unknown": report.unknown})
        else:
            info(f"Recorded {len(report.recorded)} verdict(s).")
        return
    if learning_id is None or helpful is None:
        raise UsageError("pass ID and --helpful or --not-helpful (or --from-output FILE)")
    found = feedback.record(
        STATE.workspace_for(learning_id),
        learning_id.strip(),
        helpful=helpful,
        task_id=task,
        model=model_name,
    )
    if json_out:
        emit_json({"learning_id": learning_id, **found.to_dict()})
    else:
        info(f"{learning_id}: helpfulness {found.helpfulness:.2f}")


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
    min_helpfulness: MinHelpfulnessOpt = None,
    include_stale: Annotated[
        bool,
        typer.Option("--include-stale", help="Also push learnings whose cited code is gone."),
    ] = False,
    min_confidence: OldMinHelpfulnessOpt = None,
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
        min_helpfulness=hot.resolve_min_helpfulness(min_helpfulness, min_confidence),
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
