"""Option types shared by the command modules, so every command spells them alike."""

from __future__ import annotations

from typing import Annotated

import typer

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON on stdout (nothing else).")]

PathOpt = Annotated[
    list[str] | None,
    typer.Option("--path", "-p", help="A file, folder or glob (repeatable).", metavar="PATH"),
]

TagOpt = Annotated[
    list[str] | None, typer.Option("--tag", "-t", help="A tag (repeatable).", metavar="TAG")
]

StatusOpt = Annotated[
    str,
    typer.Option("--status", help="active, superseded, archived or all.", metavar="STATUS"),
]

LimitOpt = Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most N results.")]

LevelOpt = Annotated[
    str, typer.Option("--level", help="project, user (your personal store) or all.")
]

EvidenceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--evidence", "-e", help="task=ID or commit=SHA (repeatable).", metavar="KIND=REF"
    ),
]

ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show each score component.")]

MinConfidenceOpt = Annotated[
    float | None, typer.Option("--min-confidence", help="Skip learnings below this confidence.")
]
