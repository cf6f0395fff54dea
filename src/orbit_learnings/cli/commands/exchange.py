"""Moving learnings between tools: `learning context`, `export`, `import`."""

from __future__ import annotations

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
        Path | None, typer.Option("--inject", metavar="FILE", help="Write the markdown block here.")
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
    from orbit_learnings.store.fileops import atomic_write_text

    built = context.build(
        STATE.workspace(),
        " ".join(text),
        Scope(path or [], tag or []),
        limit=limit,
        max_tokens=max_tokens,
    )
    if inject_file is not None:
        atomic_write_text(inject_file, built.block)
        sys.stderr.write(f"wrote {inject_file} (~{built.tokens} tokens)\n")
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
) -> None:
    """Write the store to stdout, or compile it into other agents' path-scoped rule files.

    \b
    Examples:
      orbit learning export --format jsonl > learnings.jsonl
      orbit learning export --format cursor      # .cursor/rules/orbit-*.mdc
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
    report = exporting.export_rules(ws, output_format, out)
    for name in report.written:
        info(f"wrote {name}")
    for name in report.removed:
        info(f"removed stale {name}")


def import_command(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE...", help="CLAUDE.md, AGENTS.md, *.mdc, ...")
    ],
    *,
    apply: Annotated[bool, typer.Option("--apply", help="Create them (default: dry run).")] = False,
    json_out: JsonFlag = False,
) -> None:
    """Turn bullet points of CLAUDE.md, AGENTS.md, Cursor or Copilot rules into learnings.

    \b
    Examples:
      orbit learning import CLAUDE.md                 # show what would be created
      orbit learning import .cursor/rules/*.mdc --apply
    """
    from orbit_learnings.curation import importing

    ws = STATE.workspace()
    plan = importing.plan_import(ws, list(files))
    if apply:
        importing.apply_plan(ws, plan)
    if json_out:
        emit_json({"applied": apply, "candidates": [c.to_dict() for c in plan.candidates]})
        return
    for c in plan.candidates:
        scope = ", ".join(c.paths) or ", ".join(c.tags)
        state = (
            f"created {c.created}"
            if c.created
            else f"skip: like {c.duplicate_of}"
            if c.duplicate_of
            else "would create"
        )
        info(f"{c.source}:{c.line}\t{state}\t[{scope}] {c.summary}")
    if not apply and any(not c.duplicate_of for c in plan.candidates):
        info("Dry run: nothing written. Re-run with --apply to create them.")
