"""Moving learnings between tools: `learning context`, `export`, `import`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from orbit_learnings.curation.importing import SourceFile

from orbit_learnings.cli.options import (
    JsonFlag,
)
from orbit_learnings.cli.output import (
    emit_json,
    info,
)
from orbit_learnings.cli.state import STATE
from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.scope import Scope


def context_command(
    text: Annotated[list[str], typer.Argument(metavar="TEXT...", help="What the task is about.")],
    path: Annotated[
        list[str] | None, typer.Option("--path", "-p", help="Files it touches.")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Task tags.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 5,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1)] = None,
    inject_file: Annotated[
        Path | None,
        typer.Option(
            "--inject",
            metavar="FILE",
            help="Put the block into FILE between orbit's markers (on top the first time),"
            " keeping the rest; a second run replaces only that block.",
        ),
    ] = None,
    *,
    json_out: JsonFlag = False,
) -> None:
    """The learnings most relevant to a task description, its files and tags.

    \b
    Examples:
      orbit learning context "add a NOT NULL column" --path db/migrations/
      orbit learning context "fix flaky redis test" --max-tokens 200 \\
        --inject prompt-prefix.md
    """
    from orbit_learnings.push import context

    built = context.build(
        STATE.workspace(),
        " ".join(text),
        Scope(path or [], tag or []),
        limit=limit,
        max_tokens=max_tokens,
    )
    if inject_file is not None:
        done = context.inject_into(inject_file, built.block)
        said = {
            "created": f"wrote {inject_file}",
            "replaced": f"replaced orbit's block in {inject_file}, the rest kept",
            "added": f"added orbit's block on top of {inject_file}, the rest kept",
        }[done]
        sys.stderr.write(f"{said} (~{built.tokens} tokens)\n")
    if json_out:
        emit_json(built.to_dict())
    elif inject_file is None:
        sys.stdout.write(built.block)


def export_command(
    output_format: Annotated[
        str,
        typer.Option(
            "--format", help="json, jsonl, markdown, or cursor, copilot, claude-rules, agents-md."
        ),
    ] = "json",
    status: Annotated[str, typer.Option("--status", help="For json/jsonl/markdown.")] = "active",
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for rule files (default: the workspace).")
    ] = None,
    *,
    include_tag_only: Annotated[
        bool,
        typer.Option(
            "--include-tag-only",
            help="Also compile learnings with no path scope, into an always-on rule.",
        ),
    ] = False,
) -> None:
    """Write the store to stdout, or compile it into other agents' path-scoped rule files.

    Rule formats write one file per distinct scope (named from it), each learning a
    bullet with its ID in a comment; learnings with tags only are left out unless
    --include-tag-only, since an always-on rule costs tokens in every session.
    A symlinked AGENTS.md is written through to its target.

    \b
    Examples:
      orbit learning export --format jsonl > learnings.jsonl
      orbit learning export --format cursor      # .cursor/rules/orbit-<scope>.mdc
      orbit learning export --format agents-md   # a section of AGENTS.md
    """
    from orbit_learnings.curation import exporting

    ws = STATE.workspace()
    if output_format in exporting.DATA_FORMATS:
        sys.stdout.write(exporting.export_data(ws, output_format, status))
        return
    if output_format not in exporting.RULE_FORMATS:
        choices = ", ".join((*exporting.DATA_FORMATS, *exporting.RULE_FORMATS))
        raise UsageError(f"unknown --format {output_format!r}; choose one of {choices}")
    report = exporting.export_rules(ws, output_format, out, include_tag_only=include_tag_only)
    for name in report.written:
        info(f"wrote {name}")
    for name in report.removed:
        info(f"removed stale {name}")
    if report.left_out:
        info(
            f"left out {report.left_out} learning(s) with tags only "
            "(--include-tag-only compiles them into an always-on rule)"
        )


def _preview_file(source: SourceFile) -> None:
    scope = ", ".join(source.paths) or "everywhere"
    new = sum(1 for c in source.candidates if not c.duplicate_of)
    info(f"{source.display} (scope: {scope}): {new} learning(s), {len(source.skipped)} left out")
    for c in source.candidates:
        state = (
            f"created {c.created}"
            if c.created
            else f"skip: like {c.duplicate_of}"
            if c.duplicate_of
            else "would create"
        )
        info(f"  {c.line}\t{state}\t{c.summary}")
    for skipped in source.skipped:
        info(f"  {skipped.line}\tleft out: {skipped.reason}\t{skipped.text}")


def import_command(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE...", help="CLAUDE.md, AGENTS.md, *.mdc, ...")
    ],
    *,
    apply: Annotated[bool, typer.Option("--apply", help="Create them (default: dry run).")] = False,
    json_out: JsonFlag = False,
) -> None:
    """Turn the rules of CLAUDE.md, AGENTS.md, Cursor, Copilot or Claude rule files into learnings.

    Each rule keeps its file's scope (front-matter globs, applyTo or paths; a nested
    AGENTS.md or CLAUDE.md its folder) and its whole text. The preview shows, per file,
    what becomes a learning and what is left out and why.

    \b
    Examples:
      orbit learning import CLAUDE.md web/AGENTS.md   # show what would be created
      orbit learning import .cursor/rules/*.mdc .github/instructions/*.md --apply
    """
    from orbit_learnings.curation import importing

    ws = STATE.workspace()
    plan = importing.plan_import(ws, list(files))
    if apply:
        importing.apply_plan(ws, plan)
    if json_out:
        emit_json(
            {
                "applied": apply,
                "files": [f.to_dict() for f in plan.files],
                "candidates": [c.to_dict() for c in plan.candidates],
            }
        )
        return
    for source in plan.files:
        _preview_file(source)
    if not apply and any(not c.duplicate_of for c in plan.candidates):
        info("Dry run: nothing written. Re-run with --apply to create them.")
