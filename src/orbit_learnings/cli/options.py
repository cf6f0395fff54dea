"""Option types shared by the command modules, so every command spells them alike."""

from __future__ import annotations

from typing import Annotated

import typer

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON on stdout (nothing else).")]
