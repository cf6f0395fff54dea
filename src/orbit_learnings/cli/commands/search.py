"""Finding and judging: `learning search`, the unified `orbit search`, `learning feedback`."""

from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import completion
from orbit_learnings.cli.hot import do_search
from orbit_learnings.cli.options import (
    AllStatusesFlag,
    ExplainOpt,
    JsonFlag,
    LevelOpt,
    MinConfidenceOpt,
    SearchLimitOpt,
    StatusOpt,
    TagOpt,
    WeakFlag,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
    render_hits,
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
    min_confidence: MinConfidenceOpt = None,
    level: LevelOpt = "all",
    weak: WeakFlag = False,
    json_out: JsonFlag = False,
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
        min_confidence=min_confidence,
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
    min_confidence: MinConfidenceOpt = None,
    level: LevelOpt = "all",
    weak: WeakFlag = False,
    json_out: JsonFlag = False,
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
        min_confidence=min_confidence,
        level=level,
        weak=weak,
        json_out=json_out,
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
    """Say whether a learning helped in a task; confidence is derived from these answers.

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
    confidence = feedback.record(
        STATE.workspace_for(learning_id),
        learning_id.strip(),
        helpful=helpful,
        task_id=task,
        model=model_name,
    )
    if json_out:
        emit_json({"learning_id": learning_id, **confidence.to_dict()})
    else:
        info(f"{learning_id}: confidence {confidence.confidence:.2f}")
