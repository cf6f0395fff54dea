"""Capture and review: `learning extract`, `learning drafts list|show|accept|reject`, and
`learning propose|approve|reject` — proposals live in the store, reviewed in the pull request."""

import inspect
import typing
from typing import Annotated, Any

import typer

from orbit_learnings.cli.options import (
    JsonFlag,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError

SessionsArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[SESSION]...",
        help="Session files: Claude Code .jsonl, Codex CLI rollout .jsonl, or text.",
    ),
]
WithOpt = Annotated[
    str | None,
    typer.Option(
        "--with",
        metavar="COMMAND",
        help="A command that reads a prompt on stdin and prints a JSON array of drafts "
        "(e.g. 'claude -p'); without it nothing is sent anywhere.",
    ),
]
ReviewOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--review",
        metavar="FILE",
        help="Pull-request review comments as the forge's API returns them (GitHub "
        "`gh api repos/O/R/pulls/N/comments`, GitLab MR discussions); repeatable.",
    ),
]


def extract_command(
    sessions: SessionsArg = None,
    model: WithOpt = None,
    review: ReviewOpt = None,
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
      gh api repos/acme/shop/pulls/42/comments > review.json
      orbit learning extract --review review.json
      orbit learning drafts list
    """
    from orbit_learnings.curation.capture.drafts import run_extract

    if not sessions and not review:
        raise UsageError("name session files, or --review FILE, to extract from")
    result = run_extract(
        STATE.workspace(), sessions or [], model_command=model, reviews=review or []
    )
    if json_out:
        emit_json(
            {"drafts": result.created, "skipped_existing": result.skipped,
             "recurred": result.recurred, "files": result.files,
             "moments_without_draft": result.undrafted}
        )  # fmt: skip
        return
    for report in result.files:
        skipped = f", {report['skipped']} unreadable line(s) skipped" if report["skipped"] else ""
        info(f"{report['file']}: {report['agent']}, {report['moments']} moment(s){skipped}")
    for draft in result.created:
        info(f"{draft['id']}\t{draft['detector']}\t{draft['confidence']}\t{draft['summary']}")
    for draft_id in result.recurred:
        info(f"{draft_id}\tmet again: its evidence grew, it moves up the review queue")
    for moment in result.undrafted:  # found, but no rule to state with confidence
        where = f"{moment['file']}:{_first(moment['lines'])}"
        info(f"moment\t{moment['moment']}\t{where}\tno draft ({moment['why']}): {moment['quote']}")
    info(f"{len(result.created)} new draft(s); review with `orbit learning drafts show ID`.")
    if result.undrafted:
        info(f"{len(result.undrafted)} moment(s) without a draft: read them above, or let a "
             "team model word them with `--with COMMAND`.")  # fmt: skip


def _first(lines: object) -> object:
    return lines[0] if isinstance(lines, list) and lines else lines


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
    """Turn a draft into a proposal in the store (after the near-duplicate check).

    The proposal (status `proposed`) goes into the pull request with your commit;
    `orbit learning approve ID` makes it active.

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
        info(f"{draft_id} accepted as {learning_id} (proposed; commit it for review)")


def drafts_reject_command(draft_id: Annotated[str, typer.Argument(metavar="ID")]) -> None:
    """Discard a draft.

    \b
    Example:
      orbit learning drafts reject D-1a2b3c4d
    """
    from orbit_learnings.curation.capture.drafts import reject

    reject(STATE.workspace(), draft_id)
    info(f"{draft_id} rejected")


def propose_command(**options: Any) -> None:
    """Propose a learning for review: written to the store with status `proposed`.

    A proposal is a file in the pull request like any other learning, validated by
    `check`, but never listed, searched or injected until a reviewer approves it. Same
    options as `learning add`; agents propose through the MCP tool `propose_learning`.

    \b
    Examples:
      orbit learning propose --summary "Use pnpm, never npm, in web/" \\
        --path 'web/**' --body "The lockfile is pnpm-lock.yaml"
      orbit learning approve L-0007
    """
    from orbit_learnings.cli.commands.records import record_new

    learning_id = record_new("proposed", **options)
    if not options.get("json_out"):
        info(f"proposed; a reviewer approves it with `orbit learning approve {learning_id}`")


def _take_options_of_add() -> None:
    """`propose` takes exactly `add`'s options: one table, read from `add` itself (its
    annotations resolved, since Typer reads them from the function it registers)."""
    from orbit_learnings.cli.commands.records import add_command

    hints = typing.get_type_hints(add_command, include_extras=True)
    hints.pop("return", None)
    parameters = [
        p.replace(annotation=hints[p.name])
        for p in inspect.signature(add_command).parameters.values()
    ]
    propose_command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    propose_command.__annotations__ = {**hints, "return": None}


_take_options_of_add()


def approve_command(
    learning_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="Proposals.")],
    *,
    json_out: JsonFlag = False,
) -> None:
    """Approve proposals: they become active, listed, searched and injected.

    \b
    Example:
      orbit learning approve L-0007 L-0008 && git commit -am "approve two"
    """
    from orbit_learnings.store.changes import set_status

    ws = STATE.workspace()
    done = [set_status(ws, i, "active", from_statuses=("proposed",)).id for i in learning_ids]
    if json_out:
        emit_json({"approved": done})
    else:
        info(f"approved {', '.join(done)}")


def reject_command(
    learning_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="Proposals.")],
    *,
    json_out: JsonFlag = False,
) -> None:
    """Reject proposals: their bundles are deleted (git keeps the history).

    \b
    Example:
      orbit learning reject L-0009
    """
    from orbit_learnings.store.changes import remove_proposal

    ws = STATE.workspace()
    for learning_id in learning_ids:
        remove_proposal(ws, learning_id)
    if json_out:
        emit_json({"rejected": learning_ids})
    else:
        info(f"rejected {', '.join(learning_ids)}")
