"""The reviewer's view of what earns its place: injections, votes, feedback per learning."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.timestamps import format_ts
from orbit_learnings.retrieval import queries
from orbit_learnings.store.layout import INJECTIONS_FILE
from orbit_learnings.store.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


@dataclass
class LearningStats:
    id: str
    summary: str
    status: str
    vote_count: int
    injected: int = 0
    last_injected: str | None = None
    by_layer: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "summary": self.summary,
            "status": self.status,
            "injected": self.injected,
            "last_injected": self.last_injected,
            "by_layer": self.by_layer,
            "vote_count": self.vote_count,
        }


@dataclass
class StatsReport:
    learnings: list[LearningStats]
    never_injected: list[str]
    days: int

    def to_dict(self) -> dict[str, object]:
        return {
            "learnings": [s.to_dict() for s in self.learnings],
            "never_injected": self.never_injected,
            "days": self.days,
        }


def injections_path(ws: Workspace) -> str:
    return os.path.join(ws.state_dir_str, INJECTIONS_FILE)


def injection_row(line: str) -> dict[str, object] | None:
    """One line of the injection log, or None for a torn or foreign line."""
    try:
        row = json.loads(line)
    except ValueError:
        return None
    return row if isinstance(row, dict) and isinstance(row.get("ids"), list) else None


def read_injections(ws: Workspace) -> list[dict[str, object]]:
    """Rows of `.orbit/state/injections.jsonl`; a torn or foreign line is skipped."""
    rows: list[dict[str, object]] = []
    try:
        with open_injections(ws) as handle:
            rows = [row for line in handle if (row := injection_row(line)) is not None]
    except (FileNotFoundError, NotADirectoryError, OrbitError):
        pass  # derived state: none, or a committed link `check` reports, means no injections
    return rows


def open_injections(ws: Workspace) -> TextIO:
    """The injection log for reading, line by line (it grows with every hook call). A
    link out of `.orbit/state`, a FIFO or a device in its place is refused (OrbitError)
    before anything is read: a committed link must not feed `stats` another file."""
    from orbit_learnings.store.fileops import open_repo_file

    fd = open_repo_file(injections_path(ws), within=ws.state_dir_str)
    return open(fd, encoding="utf-8", errors="replace")


def cutoff_for(days: int, now: datetime | None = None) -> str:
    """The oldest injection time that still counts as recent."""
    return format_ts((now or datetime.now(UTC)) - timedelta(days=days))


def never_injected(active_ids: Iterable[str], recent: set[str]) -> list[str]:
    """Active learnings no agent was shown since the cutoff: one rule for `stats` and the
    dashboard's filter."""
    return sorted(i for i in active_ids if i not in recent)


def collect(ws: Workspace, days: int = 30, now: datetime | None = None) -> StatsReport:
    hits = queries.list_learnings(ws, status="all").hits
    stats = {h.id: LearningStats(h.id, h.summary, h.status, h.vote_count) for h in hits}
    cutoff = cutoff_for(days, now)
    recent: set[str] = set()
    for row in read_injections(ws):
        at, layer = str(row.get("at", "")), str(row.get("layer", "?"))
        ids = row["ids"] if isinstance(row["ids"], list) else []  # read_injections checked
        for learning_id in ids:
            entry = stats.get(str(learning_id))
            if entry is None:
                continue
            entry.injected += 1
            entry.by_layer[layer] = entry.by_layer.get(layer, 0) + 1
            if entry.last_injected is None or at > entry.last_injected:
                entry.last_injected = at
            if at >= cutoff:
                recent.add(entry.id)
    ordered = sorted(stats.values(), key=lambda s: (-s.injected, s.id))
    never = never_injected((s.id for s in stats.values() if s.status == "active"), recent)
    return StatsReport(ordered, never, days)
