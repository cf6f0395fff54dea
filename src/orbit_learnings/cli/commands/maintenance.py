"""The index and the layout: `learning sync|refresh|migrate-layout|embed`."""

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
    warn,
    warn_problems,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.store import setup


def sync_command(*, json_out: JsonFlag = False) -> None:
    """Rebuild the index from the files, failing on any invalid record or vote row.

    \b
    Example:
      orbit learning sync
    """
    from orbit_learnings.index.build import sync

    report = sync(STATE.workspace())
    if json_out:
        emit_json(report.to_dict())
        return
    for leftover in report.healed:
        info(f"Removed {leftover} (left by a killed write)")
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(report.by_status.items())) or "empty"
    info(
        f"Indexed {report.learnings} learning(s) ({statuses}), "
        f"{report.votes} vote(s) in {report.seconds:.2f}s"
    )


def migrate_layout_command(*, json_out: JsonFlag = False) -> None:
    """Move legacy flat files (.orbit/learnings/<id>.yaml) into bundles. One-way, idempotent.

    \b
    Example:
      orbit learning migrate-layout
    """
    moves = setup.migrate_layout(STATE.workspace())
    if json_out:
        emit_json({"moved": [{"from": m.source, "to": m.destination} for m in moves]})
        return
    for move in moves:
        info(f"moved {move.source} -> {move.destination}")
    info(
        f"Moved {len(moves)} file(s)."
        if moves
        else "Nothing to migrate: the store already uses bundles."
    )


def refresh_command(
    *,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
) -> None:
    """Bring the index up to date with the files, as every read does (git hooks call this).

    Unlike `sync` it never fails on a bad record: it skips it with a warning.

    \b
    Example:
      orbit learning refresh
    """
    from orbit_learnings.index import reads
    from orbit_learnings.index.build import open_fresh

    with open_fresh(STATE.workspace()) as fresh:
        count = reads.count(fresh.conn)
        warnings = fresh.warnings
    if not quiet:
        warn_problems(warnings)
        info(f"Index fresh: {count} learning(s)")


def embed_command(*, json_out: JsonFlag = False) -> None:
    """Compute local embeddings for semantic search (needs the optional `semantic` extra).

    Vectors are cached in the index (never in git), keyed by the learning's text;
    re-running only embeds what changed.

    \b
    Example:
      pip install 'orbit-learnings[semantic]' && orbit learning embed
    """
    from orbit_learnings.index import vectors
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.retrieval import semantic

    if not semantic.available():
        warn("no embedding model is installed; search uses BM25 only")
    semantic.require()
    with open_fresh(STATE.workspace()) as fresh:
        todo = len(vectors.missing(fresh.conn))
        if json_out or not sys.stderr.isatty():
            count = semantic.embed(fresh.conn)
        else:
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                task = bar.add_task("embedding learnings", total=todo)
                count = semantic.embed(
                    fresh.conn, lambda done, total: bar.update(task, completed=done)
                )
    if json_out:
        emit_json({"embedded": count})
    else:
        info(f"Embedded {count} learning(s); semantic search is on.")
