"""Option types shared by the command modules, so every command spells them alike."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from orbit_learnings.cli import completion

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON on stdout (nothing else).")]

RepoOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--repo",
        help="In an org store: a repository (name glob, case-sensitive) the learning"
        " applies in; repeatable; none means every subscriber.",
        metavar="GLOB",
    ),
]
PathOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--path",
        "-p",
        help="A file, folder or glob (repeatable).",
        metavar="PATH",
        autocompletion=completion.paths,
    ),
]

TagOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--tag", "-t", help="A tag (repeatable).", metavar="TAG", autocompletion=completion.tags
    ),
]

StatusOpt = Annotated[
    str,
    typer.Option("--status", help="active, superseded, archived or all.", metavar="STATUS"),
]

LimitOpt = Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most N results.")]

LevelOpt = Annotated[
    str, typer.Option("--level", help="project, user (your personal store), org or all.")
]

EvidenceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--evidence",
        "-e",
        help="task=ID, commit=SHA, pr=N, issue=ID, url=URL or file=PATH (repeatable).",
        metavar="KIND=REF",
    ),
]

ExplainOpt = Annotated[bool, typer.Option("--explain", help="Show each score component.")]
AllStatusesFlag = Annotated[bool, typer.Option("--all", help="Search every status.")]
SearchLimitOpt = Annotated[int, typer.Option("--limit", "-n", min=1)]
WeakFlag = Annotated[
    bool,
    typer.Option(
        "--weak",
        help="List every match, the weak ones (below the confident-match threshold) marked;"
        " without it, weak ones show only when none is confident (see docs/search.md).",
    ),
]

MinHelpfulnessOpt = Annotated[
    float | None,
    typer.Option(
        "--min-helpfulness",
        help="Skip learnings whose helpfulness (from feedback, 0.1-1.0, 0.5 unrated) is below X.",
        metavar="X",
    ),
]
# The 0.1.0 name of --min-helpfulness, hidden: it still works and says it is deprecated.
OldMinHelpfulnessOpt = Annotated[float | None, typer.Option("--min-confidence", hidden=True)]
SpecScopeOpt = Annotated[
    list[str] | None, typer.Option("--scope", help="paths=a,b or tags=x,y (spec form).")
]
BodyOpt = Annotated[str | None, typer.Option("--body", "-b", help="Longer explanation (markdown).")]
BodyFileOpt = Annotated[
    Path | None, typer.Option("--body-file", help="Read the body from FILE ('-' for stdin).")
]
CreatedByOpt = Annotated[
    str | None,
    typer.Option(
        "--created-by", help="Author (default: $ORBIT_CREATED_BY, git's user.name, the OS user)."
    ),
]
AddLevelOpt = Annotated[
    str, typer.Option("--level", help="project (default) or user: your personal store.")
]
IdArg = Annotated[
    str, typer.Argument(metavar="ID", help="A learning ID.", autocompletion=completion.learning_ids)
]
AnchorOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--anchor",
        "-a",
        help="Cite code: PATH:START-END or PATH::Name (Python; repeatable). Its path is scope too.",
        metavar="CITATION",
        autocompletion=completion.paths,
    ),
]
