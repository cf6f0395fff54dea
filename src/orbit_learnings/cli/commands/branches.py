"""Commands for where two branches meet: resolve-conflict, renumber, and git's merge driver."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import completion
from orbit_learnings.cli.options import JsonFlag
from orbit_learnings.cli.output import emit_json, info
from orbit_learnings.cli.state import STATE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.curation.branches.conflicts import LinkRepair
    from orbit_learnings.curation.branches.gitstate import Operation

TargetOption = Annotated[
    str | None,
    typer.Option(
        "--target",
        metavar="REF",
        help="The branch work merges into; its learning keeps the ID. "
        "Default: target_branch in .orbit/config.yaml, else origin/main, main or master.",
    ),
]


LinksOption = Annotated[
    str,
    typer.Option(
        "--links",
        metavar="drop|take",
        help="A link of the newcomer's that the published side already holds (both branches "
        "superseded one learning): drop it (default), or take it over.",
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
    links: LinksOption = "drop",
    json_out: JsonFlag = False,
) -> None:
    """Split a git add/add conflict into two learnings; the published one keeps the ID.

    The side already on the target branch (origin/main by default) keeps the ID; the
    newcomer gets the next free ID, with the votes, feedback and supersede links that
    came with it. A newcomer's link that the published side already holds is dropped
    (--links take: taken over). During a merge, rebase or cherry-pick the result is
    staged: continue it, or --abort undoes this too. One learning edited on both
    branches is not split: keep the right value of each conflicting field instead.

    \b
    Example:
      orbit learning resolve-conflict L-0007
      orbit learning resolve-conflict L-0007 --target origin/develop --links take
    """
    from orbit_learnings.core.errors import UsageError
    from orbit_learnings.curation.branches.conflicts import resolve_conflict

    if links not in ("drop", "take"):
        raise UsageError(f"--links takes drop or take, got {links!r}")
    learning_id = learning_id.strip()
    ws = STATE.workspace()
    result = resolve_conflict(ws, learning_id, target=target, take_links=links == "take")
    if json_out:
        emit_json(result.to_dict())
        return
    side = "our side" if result.kept == "ours" else "the incoming side"
    info(f"{learning_id} keeps {side} ({result.reason}).")
    moved = f" with {result.moved_rows} sidecar row(s)" if result.moved_rows else ""
    info(f"The other side is now {result.new_id}{moved}.")
    if result.relinked:
        info(f"Links to it now point at {result.new_id} in: {', '.join(result.relinked)}.")
    for repair in result.links:
        info(_link_message(repair))
    info(_next_step(result.operation))


def _link_message(repair: LinkRepair) -> str:
    where = f"{repair.learning_id}.{repair.key} is {repair.target}"
    if repair.action == "completed":
        return f"{where}: completed the link on {repair.target}'s side."
    back = "superseded_by" if repair.key == "supersedes" else "supersedes"
    held = f"{repair.target}.{back} is {repair.holder}"
    done = "dropped it" if repair.action == "dropped" else f"took it over from {repair.holder}"
    return f"{where} but {held}: {done} (`{repair.alternative()}` makes the other choice)."


def _next_step(operation: Operation | None) -> str:
    if operation is None:
        return "Review both files, then `git add .orbit/learnings` and commit."
    return (
        f"Staged: review with `git diff --cached`, then `{operation.continue_command}` "
        f"(`{operation.abort_command}` undoes this too)."
    )


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


def merge_driver_command(
    base: Annotated[Path, typer.Argument(metavar="BASE", help="git's %O: the common ancestor.")],
    ours: Annotated[
        Path, typer.Argument(metavar="OURS", help="git's %A: our version; the result goes here.")
    ],
    theirs: Annotated[Path, typer.Argument(metavar="THEIRS", help="git's %B: their version.")],
    path: Annotated[
        str | None,
        typer.Argument(metavar="[PATH]", help="git's %P: the path, for messages."),
    ] = None,
) -> None:
    """Merge two edits of one learning.yaml field by field (git runs this, not you).

    Edits of different fields merge cleanly; `updated_at` takes the later time; tags,
    paths and evidence keep what either side added. A field both sides changed
    differently is left between conflict markers (exit 1), which `check` names.
    `orbit hooks install` and `orbit init` register it in .orbit/.gitattributes and
    the repository's git config.

    \b
    Example (what git runs; `orbit hooks install` registers it):
      orbit learning merge-driver %O %A %B %P
    """
    from orbit_learnings.curation.branches.fieldmerge import merge_learning
    from orbit_learnings.store.fileops import MAX_FILE_BYTES, atomic_write_text

    where = path or str(ours)
    largest = max(_size(p) for p in (base, ours, theirs))
    if largest > MAX_FILE_BYTES:  # refused before reading: no reader would take the result
        _keep_ours(where, f"a side is {largest} bytes, past the {MAX_FILE_BYTES} a learning holds")
    texts = [_read(p) for p in (base, ours, theirs)]
    merged = merge_learning(*texts)
    if len(merged.text.encode("utf-8")) > MAX_FILE_BYTES:
        _keep_ours(where, f"the merged file would pass the {MAX_FILE_BYTES} bytes a learning holds")
    atomic_write_text(ours, merged.text)
    if not merged.clean:
        what = "two learnings under one ID" if merged.whole else ", ".join(merged.conflicts)
        sys.stderr.write(f"orbit: conflict in {path or ours}: {what}\n")
        raise typer.Exit(1)


def _keep_ours(where: str, why: str) -> None:
    """Leave git's %A as our version and report a conflict: git stops for a person."""
    sys.stderr.write(f"orbit: conflict in {where}: {why}; kept ours, not merged\n")
    raise typer.Exit(1)


def _size(path: Path) -> int:
    from orbit_learnings.core.errors import UsageError

    try:
        return path.stat().st_size
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _read(path: Path) -> str:
    from orbit_learnings.core.errors import UsageError

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
