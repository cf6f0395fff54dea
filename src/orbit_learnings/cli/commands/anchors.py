"""`orbit learning anchors`: where each cited piece of code stands, and `--fix` for the
ones that merely moved; plus the anchor parts of `update` and `show`."""

from __future__ import annotations

import shutil
import sys
from typing import Annotated

import typer

from orbit_learnings.cli import completion
from orbit_learnings.cli.options import JsonFlag
from orbit_learnings.cli.output import agreed, emit_json, info, is_terminal, render_rows
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.errors import UsageError
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.retrieval.anchors import AnchorState


def anchors_change(ws: Workspace, specs: list[str] | None, *, remove: bool) -> list[Anchor] | None:
    """What `update --anchor/--no-anchor` replaces the anchors with (None: leave them)."""
    if remove and specs:
        raise UsageError("pass either --anchor or --no-anchor, not both")
    if remove:
        return []
    if not specs:
        return None
    from orbit_learnings.curation.anchors.citing import cite

    return cite(ws, specs)


def anchors_command(
    learning_ids: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[ID]...", help="Only these learnings.", autocompletion=completion.learning_ids
        ),
    ] = None,
    *,
    fix: Annotated[
        bool, typer.Option("--fix", help="Rewrite the anchors whose lines merely moved.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="With --fix: do not ask.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --fix: only print what would change.")
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Where the code each learning cites stands: ok, moved, drifted or broken.

    moved: the same lines elsewhere (code inserted above, the function moved, the file
    renamed as git saw it); drifted: the lines changed (similarity says how much);
    broken: the code is gone. --fix rewrites moved anchors only; a drifted one waits
    for you to re-read the lesson and re-record it with `update --anchor`.

    \b
    Examples:
      orbit learning anchors
      orbit learning anchors --fix --dry-run
      orbit learning anchors L-0007 --json
    """
    from orbit_learnings.curation.anchors.fixing import apply_moves, planned_moves
    from orbit_learnings.curation.anchors.report import anchor_report

    if (yes or dry_run) and not fix:
        raise UsageError("--yes and --dry-run go with --fix")
    ws = STATE.workspace()
    states = anchor_report(ws, [i.strip() for i in learning_ids] if learning_ids else None)
    plan = planned_moves(states) if fix else []
    question = f"Rewrite {len(plan)} moved anchor(s)?"
    apply = bool(plan) and not dry_run and (yes or agreed(question, option="--fix"))
    moved = apply_moves(ws, states) if apply else []
    if json_out:
        payload: dict[str, object] = {"anchors": [s.to_dict() for s in states]}
        if fix:
            payload |= {"fixes": [m.to_dict() for m in plan], "fixed": bool(moved)}
        emit_json(payload)
        return
    _render_states(states)
    for move in plan:
        verb = "Rewrote" if moved else "Would rewrite"
        info(f"{verb} {move.learning_id}: {move.old} -> {move.new}")
    if fix and not plan:
        info("No anchor merely moved; nothing to fix.")


def _render_states(states: list[AnchorState]) -> None:
    if not states:
        info("No learning cites code yet (`orbit learning add ... --anchor PATH:START-END`).")
        return
    rows = [
        (
            s.learning_id,
            s.anchor.cited,
            s.state,
            "-" if s.state == "broken" else f"{s.location.path}:{s.location.lines}",
            f"{s.location.similarity:.2f}",
        )
        for s in states
    ]
    render_rows(("ID", "Anchor", "State", "Now", "Similarity"), rows)


def show_anchors(ws: Workspace, learning_id: str) -> list[dict[str, object]]:
    """Each anchor of one learning with its lines now and as recorded (for `show`)."""
    from orbit_learnings.curation.anchors.history import recorded_lines
    from orbit_learnings.curation.anchors.report import anchor_report
    from orbit_learnings.store.workspace import read_workspace_text

    shown: list[dict[str, object]] = []
    for state in anchor_report(ws, [learning_id]):
        text = None if state.state == "broken" else read_workspace_text(ws, state.location.path)
        now = (text or "").splitlines()[state.location.start - 1 : state.location.end]
        was = recorded_lines(ws, state.anchor) if state.state != "ok" else None
        shown.append(
            state.to_dict()
            | {
                "now_text": now if text is not None else None,
                "recorded_text": was.lines if was else (now if state.state == "ok" else None),
                "recorded_in": was.commit if was else None,
            }
        )
    return shown


def render_anchors(anchors: list[dict[str, object]]) -> None:
    """The cited lines as recorded, beside the same lines now."""
    width = max(shutil.get_terminal_size((120, 24)).columns, 60) if is_terminal() else 120
    half = (width - 3) // 2
    for item in anchors:
        cited = f"{item['path']}:{item['lines']}"
        now = item["now"]
        where = f"{now['path']}:{now['lines']}" if isinstance(now, dict) else "gone"
        sys.stdout.write(
            f"\nanchor {cited} — {item['state']} (now {where}, similarity {item['similarity']})\n"
        )
        was_lines = item.get("recorded_text")
        now_lines = item.get("now_text")
        if item["state"] == "ok" or not isinstance(was_lines, list):
            _one_column(now_lines if isinstance(now_lines, list) else [], item)
            continue
        commit = item.get("recorded_in") or "?"
        left = [f"as recorded ({commit})", *was_lines]
        right = ["now", *(now_lines if isinstance(now_lines, list) else ["(gone)"])]
        for position in range(max(len(left), len(right))):
            a = left[position] if position < len(left) else ""
            b = right[position] if position < len(right) else ""
            sys.stdout.write(f"{_cell(a, half)} │ {_cell(b, half)}".rstrip() + "\n")


def _one_column(lines: list[str], item: dict[str, object]) -> None:
    if item["state"] != "ok" and item.get("recorded_text") is None:
        sys.stdout.write("(the recorded lines are in no commit of the file git knows)\n")
    for line in lines:
        sys.stdout.write(f"  {line}\n")


def _cell(text: str, width: int) -> str:
    flat = text.expandtabs(4)
    return flat[: width - 1] + "…" if len(flat) > width else flat.ljust(width)
