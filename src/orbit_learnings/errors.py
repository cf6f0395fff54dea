"""The one family of errors the core raises; only the CLI layer turns them into exits.

Each error carries the exit code it maps to, so adapters (CLI, MCP, dashboard)
never have to guess how serious a failure is.
"""

from __future__ import annotations

from dataclasses import dataclass


class OrbitError(Exception):
    """A known, user-facing failure: one clear line, exit code 1."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(OrbitError):
    """The caller asked for something malformed (bad flag combination, bad value)."""

    exit_code = 2


class WorkspaceNotFound(OrbitError):
    """No `.orbit/` directory could be located."""


class NotFound(OrbitError):
    """An ID that names no learning."""


class LegacyLayoutError(OrbitError):
    """The store still uses the pre-bundle flat layout."""


@dataclass(frozen=True)
class Problem:
    """One validation finding, located as precisely as we can (`file:line`)."""

    file: str
    line: int
    message: str
    id: str | None = None
    kind: str = "schema"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class ValidationFailed(OrbitError):
    """One or more records or sidecars are invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        first = str(problems[0]) if problems else "validation failed"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(first + more)
