"""Rendering: rich tables on a terminal, plain lines in pipes, JSON for scripts.

`--json` output is the only thing written to stdout; warnings and errors go to
stderr so a script can always parse what it reads. Stdlib only at import time:
the lean dispatch for hot commands renders through this module too.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence

from orbit_learnings.core.errors import OrbitError, Problem
from orbit_learnings.core.results import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from orbit_learnings.core.results import Result


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


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


def report_failure(exc: BaseException, *, debug: bool) -> int:
    """The one error boundary's verdict: a single stderr line and an exit code."""
    if isinstance(exc, KeyboardInterrupt):
        error("interrupted")
        return 130
    if isinstance(exc, BrokenPipeError):
        return 0
    if debug:
        raise exc
    if isinstance(exc, OrbitError):
        problems = getattr(exc, "problems", None)
        for line in [str(p) for p in problems] if problems else [exc.message]:
            error(line)  # every invalid file at once, each `file:line: what is wrong`
        return exc.exit_code
    if isinstance(exc, OSError) and _refused_by_the_file_system(exc):
        where = exc.filename or "a file"
        error(f"cannot write {where}: {exc.strerror} (a read-only checkout? reading still works)")
        return 1
    error(f"unexpected {type(exc).__name__}: {exc} (re-run with --debug for details)")
    return 3


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
    if not is_terminal():
        for hit in hits:
            extra = f"  ({', '.join(hit.matched_by)})" if hit.matched_by else ""
            extra += f"  [weak {hit.match_confidence:.2f}]" if _weak(hit) else ""
            sys.stdout.write(printable(f"{hit.id}\t{hit.summary}{extra}") + "\n")
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


def render_record(record: dict[str, Any]) -> None:
    lines = [
        ("summary", record["summary"]),  # in full: a panel title would cut it at the border
        (
            "status",
            record["status"]
            + (f" (by {record['superseded_by']})" if record.get("superseded_by") else ""),
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
        lines.append(("supersedes", record["supersedes"]))
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
