"""Authoring help: `learning extract` and `learning drafts list|show|accept|reject`."""

from __future__ import annotations

from typing import Annotated

import typer

from orbit_learnings.cli.options import (
    JsonFlag,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
)
from orbit_learnings.cli.state import STATE


def extract_command(
    sessions: Annotated[
        list[str],
        typer.Argument(
            metavar="SESSION...",
            help="Session files: Claude Code .jsonl, Codex CLI rollout .jsonl, or text.",
        ),
    ],
    model: Annotated[
        str | None,
        typer.Option(
            "--with",
            metavar="COMMAND",
            help="A command that reads a prompt on stdin and prints a JSON array of drafts "
            "(e.g. 'claude -p'); without it nothing is sent anywhere.",
        ),
    ] = None,
    *,
    json_out: JsonFlag = False,
) -> None:
    """Find the moments in agent sessions where a lesson shows, and draft learnings from them.

    Moments: a refused tool call and its reason, an interruption, a message that made the
    agent redo an edit, a command that failed and then worked after a change. Drafts go to
    .orbit/state/drafts/ for review; nothing enters the store yet.

    \b
    Examples:
      orbit learning extract ~/.claude/projects/-home-me-shop/*.jsonl
      orbit learning extract ~/.codex/sessions/2026/11/*/rollout-*.jsonl --json
      orbit learning extract session.jsonl --with 'claude -p'
      orbit learning drafts list
    """
    from orbit_learnings.curation.capture.drafts import run_extract

    result = run_extract(STATE.workspace(), sessions, model_command=model)
    if json_out:
        emit_json(
            {"drafts": result.created, "skipped_existing": result.skipped, "files": result.files}
        )
        return
    for report in result.files:
        skipped = f", {report['skipped']} unreadable line(s) skipped" if report["skipped"] else ""
        info(f"{report['file']}: {report['agent']}, {report['moments']} moment(s){skipped}")
    for draft in result.created:
        info(f"{draft['id']}\t{draft['detector']}\t{draft['confidence']}\t{draft['summary']}")
    info(f"{len(result.created)} new draft(s); review with `orbit learning drafts show ID`.")


def drafts_list_command(*, json_out: JsonFlag = False) -> None:
    """List drafts awaiting review.

    \b
    Example:
      orbit learning drafts list
    """
    from orbit_learnings.curation.capture.drafts import list_drafts

    records = list_drafts(STATE.workspace())
    if json_out:
        emit_json({"drafts": records})
        return
    if not records:
        info("No drafts.")
    for record in records:
        info(f"{record['id']}\t{record['detector']}\t{record['confidence']}\t{record['summary']}")


def drafts_show_command(
    draft_id: Annotated[str, typer.Argument(metavar="ID")], *, json_out: JsonFlag = False
) -> None:
    """Show one draft with its source and proposed scope.

    \b
    Example:
      orbit learning drafts show D-1a2b3c4d
    """
    from orbit_learnings.curation.capture.drafts import get_draft

    record = get_draft(STATE.workspace(), draft_id)
    if json_out:
        emit_json(record)
        return
    source = record["source"]
    info(f"{record['id']} ({record['detector']}, confidence {record['confidence']})")
    info(f"  summary: {record['summary']}")
    info(f"  paths:   {', '.join(record['paths']) or '-'}")
    info(f"  tags:    {', '.join(record['tags']) or '-'}")
    info(f"  source:  {source.get('file', '-')} lines {source.get('lines', '-')}")
    info("")
    info(str(record["body"]))


def drafts_accept_command(
    draft_id: Annotated[str, typer.Argument(metavar="ID")],
    summary: Annotated[
        str | None, typer.Option("--summary", "-s", help="Edit the summary.")
    ] = None,
    path: Annotated[
        list[str] | None, typer.Option("--path", "-p", help="Replace the paths.")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Replace the tags.")] = None,
    *,
    force: Annotated[
        bool, typer.Option("--force", help="Add even if a near-duplicate exists.")
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Turn a draft into a learning (after the near-duplicate check).

    \b
    Example:
      orbit learning drafts accept D-1a2b3c4d --summary "Use pnpm, not npm" \\
        --tag tooling
    """
    from orbit_learnings.curation.capture.drafts import accept

    learning_id = accept(
        STATE.workspace(), draft_id, summary=summary, paths=path, tags=tag, force=force
    )
    if json_out:
        emit_json({"draft": draft_id, "id": learning_id})
    else:
        info(f"{draft_id} accepted as {learning_id}")


def drafts_reject_command(draft_id: Annotated[str, typer.Argument(metavar="ID")]) -> None:
    """Discard a draft.

    \b
    Example:
      orbit learning drafts reject D-1a2b3c4d
    """
    from orbit_learnings.curation.capture.drafts import reject

    reject(STATE.workspace(), draft_id)
    info(f"{draft_id} rejected")
