"""The `--reads` table: medians over the runs (each run's value in brackets), version
beside version."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from benchlib.measure import table
from benchlib.reads import HOT_COMMANDS, READ_QUERIES, SEARCH_COMMANDS

# Picks one figure of a run's results for one version (the column).
Pick = Callable[[dict[str, object], str], float]


def of_version(key: str, field: str) -> Pick:
    """`field` of the version's own `{version}:{key}` table."""
    return lambda run, version: float(table(run, f"{version}:{key}")[field])


def shared(key: str, field: str) -> Pick:
    """`field` of the `key` table every version's column shows alike."""
    return lambda run, version: float(table(run, key)[field])


def reads_markdown(results: list[dict[str, object]], versions: list[str]) -> str:
    """Medians over the runs (each run's value in brackets), version beside version."""

    def cell(values: list[float], unit: str = "") -> str:
        inner = ", ".join(f"{v:.1f}" if unit else f"{v:.2f}" for v in values)
        return f"{statistics.median(values):.{1 if unit else 2}f}{unit} ({inner})"

    sizes = sorted({int(str(r["learnings"])) for r in results})
    head = " | ".join(f"{size:,} {name}" for size in sizes for name in versions)
    lines = [
        f"| median of runs (each run) | {head} |",
        "|---" * (1 + len(sizes) * len(versions)) + "|",
    ]

    def row(label: str, pick: Pick, unit: str) -> None:
        cells = []
        for size in sizes:
            runs = [r for r in results if r["learnings"] == size]
            for name in versions:
                cells.append(cell([pick(r, name) for r in runs], unit))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    for text in READ_QUERIES:
        for phase in ("search", "freshness", "stat_floor", "query", "ranking", "output"):
            row(
                f"in-process `{text}` top 5: {phase}, ms",
                of_version(f"phases:{text}", f"{phase}_ms"),
                " ms",
            )
    row(
        "imports of a search process, ms",
        of_version(f"phases:{READ_QUERIES[1]}", "imports_ms"),
        " ms",
    )
    row(
        'floor `python -c "import sqlite3, json"`, ms',
        lambda r, n: float(str(r["floor_ms"])),
        " ms",
    )
    stat_floor_rows(row)
    for key in HOT_COMMANDS:
        row(f"{key}, × floor", of_version(key, "ratio"), "")
        row(f"{key}, ms", of_version(key, "median_ms"), " ms")
    return "\n".join(lines)


def stat_floor_rows(
    row: Callable[[str, Pick, str], None],
) -> None:
    """The rows of the floor plus the bare-stat loop (one process per run, the same in
    every version's column), and each hot command's own overhead above it; then the bare
    search process, and each search's overhead above that."""
    floors = (
        ("stat_floor_process", "floor + bare-stat loop (whole process)", "floor + stat loop"),
        (
            "search_floor_process",
            "bare search process (floor + stat loop + one FTS5 query)",
            "bare search process",
        ),
    )
    for floor, label, short in floors:
        for field, unit, what in (("median_ms", " ms", "ms"), ("ratio", "", "× floor")):
            row(
                f"{label}, {what}",
                shared(floor, field),
                unit,
            )
        commands = HOT_COMMANDS if floor == "stat_floor_process" else SEARCH_COMMANDS
        for key in commands:
            row(
                f"{key}, ms above the {short}",
                of_version(key, f"above_{floor}_ms"),
                " ms",
            )
