"""Rendering: rich tables on a terminal, plain lines in pipes, JSON for scripts.

`--json` output is the only thing written to stdout; warnings and errors go to
stderr so a script can always parse what it reads. Stdlib only at import time:
the lean dispatch for hot commands renders through this module too.

Every JSON document the CLI prints for scripts goes through `emit_json`, so it has one
shape: an object whose first key is `version` (`JSON_VERSION`); a list is never the top
level but sits under a key that names it (`"results"`, `"drafts"`, `"checks"`). A failure
under `--json` is the same envelope with one key, `error`: `{"code", "message", ...}`
(`fail`), its code the error type's (`core.errors`), never derived from the message.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence

from orbit_learnings.core.errors import OrbitError, Problem
from orbit_learnings.core.results import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from orbit_learnings.core.results import Result


JSON_VERSION = 1
"""The version of every `--json` document. Added keys keep it; a key removed, renamed or
given a new meaning moves it on, so a script can refuse a shape it was not written for."""


def envelope(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The one definition of the `--json` shape: `{"version": 1, ...payload}`."""
    if "version" in payload:
        raise ValueError("a --json payload cannot carry its own 'version'")
    return {"version": JSON_VERSION, **payload}


def emit_json(payload: Mapping[str, Any]) -> None:
    sys.stdout.write(json.dumps(envelope(payload), indent=2, ensure_ascii=False) + "\n")


def wants_json(argv: Sequence[str]) -> bool:
    """Whether this command line asked for `--json` (or `inject --format json`), so that its
    failure is JSON too. Read from the words, since a failure can come before any option is
    parsed; never for an agent's hook, whose stdout belongs to the agent's protocol."""
    words = list(argv[: argv.index("--")] if "--" in argv else argv)
    position = 0  # past the global options (`--root DIR`, `--debug`): at the command
    while position < len(words) and words[position].startswith("-"):
        position += 2 if words[position] == "--root" else 1
    if words[position : position + 2] == ["learning", "inject"]:
        pairs = zip(words, [*words[1:], ""], strict=True)
        return "--format=json" in words or ("--format", "json") in pairs
    return "--json" in words and words[position : position + 1] != ["hook"]


def is_terminal() -> bool:
    return sys.stdout.isatty()


def agreed(question: str, *, option: str) -> bool:
    """Ask before a write that only a flag made optional; off a terminal, refuse with a
    usage error naming `--yes` and `--dry-run` instead of waiting on stdin. Asked on
    stderr, so that stdout holds only the result (--json)."""
    from orbit_learnings.core.errors import UsageError

    if not sys.stdin.isatty():
        raise UsageError(
            f"{option} rewrites learnings: pass --yes to apply, or --dry-run to preview"
        )
    sys.stderr.write(f"{question} [y/N]: ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def warn(message: str) -> None:
    sys.stderr.write(f"orbit: warning: {message}\n")


def warn_problems(problems: Iterable[Problem]) -> None:
    for problem in problems:
        warn(f"{problem} (skipped)")


def error(message: str) -> None:
    sys.stderr.write(f"orbit: error: {message}\n")


def info(message: str) -> None:
    """Human progress/status lines: stdout, never mixed into --json output."""
    sys.stdout.write(message + "\n")


def fail(
    message: str,
    *,
    code: str,
    exit_code: int,
    json_out: bool,
    lines: Sequence[str] = (),
    details: Mapping[str, Any] | None = None,
) -> int:
    """Every failure's one way out: its line(s) on stderr and, under `--json`, the error
    object on stdout (`{"version": 1, "error": {"code", "message", ...details}}`)."""
    for line in lines or [message]:
        error(line)
    if json_out:
        emit_json({"error": {"code": code, "message": message, **(details or {})}})
    return exit_code


def report_failure(exc: BaseException, *, debug: bool, json_out: bool) -> int:
    """The one error boundary's verdict: a single stderr line, an exit code and, under
    `--json`, the error object, its code the error type's."""
    if isinstance(exc, KeyboardInterrupt):
        return fail("interrupted", code="interrupted", exit_code=130, json_out=json_out)
    if isinstance(exc, BrokenPipeError):
        return 0
    if debug:
        raise exc
    if isinstance(exc, OrbitError):
        problems = getattr(exc, "problems", None)
        return fail(
            exc.message,
            code=exc.code,
            exit_code=exc.exit_code,
            json_out=json_out,
            # every invalid file at once, each `file:line: what is wrong`
            lines=[str(p) for p in problems] if problems else (),
            details=exc.details(),
        )
    if isinstance(exc, OSError) and _refused_by_the_file_system(exc):
        where = exc.filename or "a file"
        why = f"{exc.strerror} (a read-only checkout? reading still works)"
        message = f"cannot write {where}: {why}"
        return fail(message, code="write-refused", exit_code=1, json_out=json_out)
    message = f"unexpected {type(exc).__name__}: {exc} (re-run with --debug for details)"
    return fail(message, code="unexpected", exit_code=3, json_out=json_out)


def _refused_by_the_file_system(exc: OSError) -> bool:
    """A write refused by the file system (a read-only checkout, a CI cache, a mounted
    volume) is the user's situation, not orbit's bug: one line, exit 1."""
    import errno

    return exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)


def render_list(result: Result, *, json_out: bool) -> None:
    """Shared by `orbit learning list` and the lean hot-path dispatch."""
    warn_problems(result.warnings)
    if json_out:
        emit_json(result.to_dict())
    else:
        render_hits(result.hits)


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False)


def _weak(hit: Any) -> bool:
    """A text match below the confident-match threshold: shown to a person, marked."""
    return getattr(hit, "match_confidence", None) is not None and not hit.confident


def render_hits(
    hits: Sequence[Any], *, show_score: bool = False, empty: str = "No learnings found."
) -> None:
    if not hits:
        sys.stderr.write(empty + "\n")
        return
    if not is_terminal():  # exactly `ID<TAB>summary`, so `cut -f2` is the summary
        for hit in hits:  # (why it matched is `matched_by` in --json)
            sys.stdout.write(printable(hit.id) + "\t" + printable(hit.summary) + "\n")
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False, header_style="bold", expand=False)
    table.add_column("ID", style="cyan", no_wrap=True)
    table.add_column("Summary", ratio=3, overflow="fold")  # wrap, never cut with "…"
    table.add_column("Scope", ratio=2, overflow="fold")
    table.add_column("Votes", justify="right")
    if show_score:
        table.add_column("Score", justify="right")
    for hit in hits:
        scope = Text(printable(", ".join([*hit.paths, *(f"#{t}" for t in hit.tags)])))
        summary = Text(printable(hit.summary))
        if hit.status != "active":
            summary = Text.assemble((f"({hit.status}) ", "dim"), summary)
        if _weak(hit):
            summary = Text.assemble((f"(weak {hit.match_confidence:.2f}) ", "yellow"), summary)
        cells = [hit.id, summary, scope, str(hit.vote_count)]
        if show_score:
            cells.append(f"{hit.score:.3f}")
        table.add_row(*cells)
    _console().print(table)


def render_rows(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """An aligned table on a terminal (the last column wraps), tab-separated lines in a pipe."""
    if not is_terminal():
        for row in rows:
            sys.stdout.write(printable("\t".join(row)) + "\n")
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(header_style="bold", expand=False)
    for position, header in enumerate(headers):
        last = position == len(headers) - 1
        table.add_column(header, overflow="fold", no_wrap=not last, ratio=1 if last else None)
    for row in rows:
        table.add_row(*(Text(printable(cell)) for cell in row))
    _console().print(table)


def _supersedes(record: dict[str, Any]) -> str:
    """`O-0012 (org; hidden in this repository)` for a project learning replacing an org
    one here: the org file says nothing of it, so this line is where it shows."""
    from orbit_learnings.core.ids import level_of

    target = str(record["supersedes"])
    if record.get("level") == "project" and level_of(target) == "org":
        return f"{target} (org; hidden in this repository)"
    return target


def render_record(record: dict[str, Any]) -> None:
    lines = [
        ("summary", record["summary"]),  # in full: a panel title would cut it at the border
        (
            "status",
            record["status"]
            + (f" (by {record['superseded_by']})" if record.get("superseded_by") else "")
            + (
                f" (superseded here by {record['superseded_here_by']})"
                if record.get("superseded_here_by")
                else ""
            )
            + (f": {record['archived_reason']}" if record.get("archived_reason") else ""),
        ),
        ("paths", ", ".join(record["scope"]["paths"]) or "-"),
        ("tags", ", ".join(record["scope"]["tags"]) or "-"),
        (
            "votes",
            f"{record['vote_count']}"
            + (f", last {record['last_voted_at']}" if record["last_voted_at"] else ""),
        ),
        ("priority", str(record.get("priority", 0))),
        ("created", f"{record['created_at']} by {record.get('created_by') or 'unknown'}"),
        ("updated", record["updated_at"]),
    ]
    if record.get("supersedes"):
        lines.append(("supersedes", _supersedes(record)))
    if record.get("evidence"):
        lines.append(("evidence", ", ".join(f"{e['kind']}:{e['ref']}" for e in record["evidence"])))
    if not is_terminal():
        sys.stdout.write(printable(f"{record['id']}: {record['summary']}") + "\n")
        for key, value in lines[1:]:  # the summary is on the first line already
            sys.stdout.write(printable(f"  {key}: {value}") + "\n")
        if record.get("body"):
            sys.stdout.write("\n" + printable(record["body"].rstrip("\n")) + "\n")
        return
    from rich.markdown import Markdown
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for key, value in lines:
        grid.add_row(key, Text(printable(value)))
    console = _console()
    console.print(
        Panel(
            grid,
            title=f"[cyan]{record['id']}[/cyan]",
            title_align="left",
        )
    )
    if record.get("body"):
        console.print(Markdown(printable(record["body"])))
