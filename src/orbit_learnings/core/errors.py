"""The one family of errors the core raises; only the CLI layer turns them into exits.

Each error carries the exit code it maps to, so adapters (CLI, MCP, dashboard)
never have to guess how serious a failure is, and a stable `code` (kebab-case) that
`--json` reports: scripts branch on the code, which names the type, never on the message.
"""

from __future__ import annotations

from collections.abc import Sequence


class OrbitError(Exception):
    """A known, user-facing failure: one clear line, exit code 1."""

    exit_code = 1
    code = "domain-error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def details(self) -> dict[str, object]:
        """What a script needs beyond the message (the problems, the similar learnings)."""
        return {}


class UsageError(OrbitError):
    """The caller asked for something malformed (bad flag combination, bad value)."""

    exit_code = 2
    code = "usage-error"


class WorkspaceNotFound(OrbitError):
    """No `.orbit/` directory could be located."""

    code = "workspace-not-found"


class NotFound(OrbitError):
    """An ID that names no learning."""

    code = "not-found"


class DuplicateSuspected(OrbitError):
    """A new learning looks like an existing one; the caller may upvote it or force the add."""

    code = "duplicate-suspected"

    def __init__(self, message: str, similar: Sequence[dict[str, object]]) -> None:
        super().__init__(message)
        self.similar = similar

    def details(self) -> dict[str, object]:
        return {"similar": list(self.similar)}


class LegacyLayoutError(OrbitError):
    """The store still uses the pre-bundle flat layout."""

    code = "legacy-layout"

    @classmethod
    def for_files(cls, first: str, count: int) -> LegacyLayoutError:
        """The one wording, whether a read or a write found them."""
        return cls(
            f"{first} uses the legacy flat layout ({count} file(s));"
            " run `orbit learning migrate-layout` to move them into bundles"
        )


class Problem:
    """One validation finding, located as precisely as we can (`file:line`).

    A plain class rather than a dataclass: this module is on the hot path, and
    importing dataclasses costs more than the whole index lookup.
    """

    __slots__ = ("end_line", "file", "id", "kind", "line", "message")

    def __init__(
        self,
        file: str,
        line: int,
        message: str,
        id: str | None = None,
        kind: str = "schema",
        end_line: int | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.message = message
        self.id = id
        self.kind = kind
        self.end_line = end_line  # a range of code lines (an anchor), for annotations

    def _key(self) -> tuple[str, int, str, str | None, str]:
        return (self.file, self.line, self.message, self.id, self.kind)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Problem({self.file!r}, {self.line}, {self.message!r}, {self.id!r}, {self.kind!r})"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "id": self.id,
            "kind": self.kind,
            "message": self.message,
        } | ({"end_line": self.end_line} if self.end_line is not None else {})


class ValidationFailed(OrbitError):
    """One or more records or sidecars are invalid; carries every problem found."""

    code = "validation-failed"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        first = str(problems[0]) if problems else "validation failed"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(first + more)

    def details(self) -> dict[str, object]:
        return {"problems": [p.to_dict() for p in self.problems]}
