"""When each learning was last used: shown to an agent, voted for, or marked helpful.

One rule for `orbit learning check --unused DAYS` and the dashboard's *unused* filter: an
active learning is unused when it is older than the window and nothing used it within it.
Three traces count, each read where it lives:

- an injection: `.orbit/state/injections.jsonl`, **this machine's** log (`.orbit/state/` is
  not in git), so a learning injected on a teammate's machine looks unused here;
- a vote: `votes.jsonl`, in git (through the index);
- a helpful mark: `feedback.jsonl`, in git, as it stands (the latest answer per task and
  model); a "not helpful" mark confirms nothing.

The learning's `created_at` starts its window: one added yesterday is not unused for a
90-day window. Nothing here writes, archives or deletes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime

from orbit_learnings.core.errors import Problem
from orbit_learnings.index import reads
from orbit_learnings.index.build import open_fresh
from orbit_learnings.index.rows import refresh_votes
from orbit_learnings.push.stats import cutoff_for, injections_path, read_injections
from orbit_learnings.store import config
from orbit_learnings.store.feedback import last_helpful
from orbit_learnings.store.layout import bundle_display
from orbit_learnings.store.workspace import Workspace

DEFAULT_DAYS = 90  # without `unused_days` in .orbit/config.yaml
KIND = "unused"  # the `Problem` kind `check` reports
PER_MACHINE = (
    "injections are read from this machine's .orbit/state/injections.jsonl (not in git): "
    "a learning injected on a teammate's machine looks unused here; votes and helpful "
    "marks are in git"
)


class Usage:
    """One active learning and the last time each trace used it (None: never)."""

    __slots__ = ("created_at", "id", "last_helpful", "last_injected", "last_voted", "summary")

    def __init__(
        self,
        learning_id: str,
        summary: str,
        created_at: str,
        last_injected: str | None = None,
        last_voted: str | None = None,
        last_helpful: str | None = None,
    ) -> None:
        self.id = learning_id
        self.summary = summary
        self.created_at = created_at
        self.last_injected = last_injected
        self.last_voted = last_voted
        self.last_helpful = last_helpful

    def _traces(self) -> list[tuple[str, str]]:
        found = [
            (self.last_injected, "injected"),
            (self.last_voted, "voted"),
            (self.last_helpful, "marked helpful"),
        ]
        return [(at, how) for at, how in found if at]

    @property
    def last_used(self) -> str | None:
        return max((at for at, _ in self._traces()), default=None)

    @property
    def last_use(self) -> str | None:
        """How it was last used (`injected`, `voted`, `marked helpful`), or None."""
        traces = self._traces()
        return max(traces)[1] if traces else None

    def is_unused(self, cutoff: str) -> bool:
        """Older than the cutoff, and nothing used it since."""
        last = self.last_used
        return self.created_at < cutoff and (last is None or last < cutoff)

    def describe(self, days: int) -> str:
        last = self.last_used
        used = "never" if last is None else f"{last[:10]}, {self.last_use}"
        return (
            f"{self.id} unused in the last {days} days (last used: {used};"
            f" created {self.created_at[:10]}): no injection on this machine, vote or helpful"
            " mark; upvote it if it still holds, else supersede or archive it"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "summary": self.summary,
            "created_at": self.created_at,
            "last_used": self.last_used,
            "last_injected": self.last_injected,
            "last_voted": self.last_voted,
            "last_helpful": self.last_helpful,
        }


def last_injections(rows: Iterable[Mapping[str, object]]) -> dict[str, str]:
    """Learning ID -> the latest time the injection log shows it injected."""
    latest: dict[str, str] = {}
    for row in rows:
        at, ids = row.get("at"), row.get("ids")
        if not isinstance(at, str) or not isinstance(ids, list):
            continue
        for learning_id in map(str, ids):
            if at > latest.get(learning_id, ""):
                latest[learning_id] = at
    return latest


def collect(
    ws: Workspace, injected: Mapping[str, str] | None = None, *, helpful: bool = True
) -> list[Usage]:
    """Every active learning of this store with its last use, by ID. `injected` (ID ->
    last injection) saves re-reading the log for a caller that keeps it (the dashboard);
    `helpful=False` leaves the feedback sidecars unread (`last_helpful` None)."""
    if injected is None:
        injected = last_injections(read_injections(ws))
    with open_fresh(ws) as index:
        refresh_votes(index.conn, ws, reads.all_ids(index.conn, ("active",)))
        rows = reads.usage_dates(index.conn, ("active",))
    return [
        Usage(
            learning_id,
            summary,
            created,
            injected.get(learning_id),
            voted,
            last_helpful(ws, learning_id) if helpful else None,
        )
        for learning_id, summary, created, voted in rows
    ]


def find_unused(
    ws: Workspace,
    days: int,
    *,
    injected: Mapping[str, str] | None = None,
    now: datetime | None = None,
) -> list[Usage]:
    """The active learnings of this store nothing used in the last `days` days, and older
    than that. A helpful mark (a file read) is looked up only for a learning the cheaper
    traces left unused."""
    cutoff = cutoff_for(days, now)
    found = []
    for usage in collect(ws, injected, helpful=False):
        if usage.is_unused(cutoff):
            usage.last_helpful = last_helpful(ws, usage.id)
            if usage.is_unused(cutoff):
                found.append(usage)
    return found


def window(ws: Workspace) -> int:
    """The team's window: `unused_days` in `.orbit/config.yaml`, else 90 days."""
    return config.unused_days(ws) or DEFAULT_DAYS


def has_log(ws: Workspace) -> bool:
    return os.path.isfile(injections_path(ws))


def check_days(ws: Workspace, explicit: int | None, *, staged: bool) -> int | None:
    """The window plain `check` reports unused learnings for, or None for no report.

    `--unused DAYS` always asks. Without it, `unused_days` in the config turns the report
    on, except where it could not mean anything or must not block: checking what is staged
    (the pre-commit hook validates files, not use) and a machine with no injection log (a
    fresh clone, a CI runner), where every learning nobody voted for would look unused.
    """
    if explicit is not None:
        return explicit
    if staged or not has_log(ws):
        return None
    return config.unused_days(ws)


def problems(usages: Iterable[Usage], days: int) -> list[Problem]:
    """`check`'s findings: one per unused learning, located at its `learning.yaml`."""
    return [Problem(bundle_display(u.id), 1, u.describe(days), u.id, KIND) for u in usages]
