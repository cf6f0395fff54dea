"""Store-wide facts the page filters and sorts on, kept between requests.

A list page may sort thousands of learnings by helpfulness or keep only the ones no
agent was shown lately. Both facts live in files that change rarely compared with how
often the page asks: each feedback sidecar is re-read only when its stat changes, and
the injection log (append-only) is read on from where the last request stopped.
Staleness, which needs git, is `curation.stalecache`'s job; what nobody used lately is
`push.usage`'s rule, fed with this log.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.ids import level_of
from orbit_learnings.index import freshness
from orbit_learnings.index.freshness import is_racy, sidecar_signatures
from orbit_learnings.push import usage
from orbit_learnings.push.stats import cutoff_for, injection_row, injections_path
from orbit_learnings.store.feedback import START, summarise
from orbit_learnings.store.layout import FEEDBACK_FILE
from orbit_learnings.store.levels import for_id, stores
from orbit_learnings.store.workspace import Workspace

LOW_HELPFULNESS = START  # below where every learning starts: more unhelpful than helpful
RECENT_DAYS = 30  # `orbit learning stats`' default window for "never injected"


class Helpfulness:
    """Helpfulness (from feedback) by learning ID; a sidecar is re-read only when its stat moved."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str, float]] = {}

    def of(self, ids: Iterable[str]) -> dict[str, float]:
        """Each learning's, read from the store it lives in: an org learning's counts its
        bundle's feedback and this repository's `org-feedback/`."""
        homes: dict[Workspace, list[str]] = {}
        for learning_id in ids:
            ws = self.ws if level_of(learning_id) == "project" else for_id(self.ws, learning_id)
            homes.setdefault(ws, []).append(learning_id)
        found: dict[str, float] = {}
        for ws, wanted in homes.items():
            found.update(self._read(ws, wanted))
        return found

    def _read(self, ws: Workspace, ids: list[str]) -> dict[str, float]:
        signatures = sidecar_signatures(ws, ids, FEEDBACK_FILE)
        found: dict[str, float] = {}
        with self._lock:
            for learning_id, sig in signatures.items():
                known = self._known.get(learning_id)
                if known is not None and known[0] == sig:
                    found[learning_id] = known[1]
                    continue
                value = START if sig == "-" else summarise(ws, learning_id).helpfulness
                found[learning_id] = value
                if not any(is_racy(int(part), freshness.clock_ns()) for part in _stamps(sig)):
                    self._known[learning_id] = (sig, value)
        return found


def _stamps(signature: str) -> list[str]:
    """The change times in a (joined) sidecar signature: "-" parts are missing files."""
    return [part for part in signature.split("|") if part != "-"]


class InjectionLog:
    """When each learning was injected, from `.orbit/state/injections.jsonl`, read on
    from the last offset while the file only grows (it is append-only)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._times: dict[str, list[str]] = {}
        self._inode = -1
        self._offset = 0

    def times_of(self, learning_id: str) -> list[str]:
        """The times this learning was injected, in log order."""
        with self._lock:
            self._catch_up()
            return list(self._times.get(learning_id, []))

    def last_times(self) -> dict[str, str]:
        """Learning ID -> the latest time it was injected."""
        with self._lock:
            self._catch_up()
            return {i: max(times) for i, times in self._times.items() if times}

    def recent(self, days: int = RECENT_DAYS) -> set[str]:
        """IDs injected within the last `days` days (the complement is "never injected")."""
        cutoff = cutoff_for(days)
        with self._lock:
            self._catch_up()
            return {i for i, times in self._times.items() if times and max(times) >= cutoff}

    def _catch_up(self) -> None:
        path = injections_path(self.ws)
        try:
            st = os.stat(path)
        except OSError:
            self._times, self._inode, self._offset = {}, -1, 0
            return
        if st.st_ino != self._inode or st.st_size < self._offset:
            self._times, self._inode, self._offset = {}, st.st_ino, 0  # a new log
        if st.st_size > self._offset:
            self._read_from(path)

    def _read_from(self, path: str) -> None:
        from orbit_learnings.store.fileops import open_repo_file

        try:  # a committed link out of `.orbit/state` is never read (`check` reports it)
            fd = open_repo_file(path, within=self.ws.state_dir_str)
        except (OSError, OrbitError):
            return
        with open(fd, "rb") as handle:
            handle.seek(self._offset)
            chunk = handle.read()
        end = chunk.rfind(b"\n") + 1  # a torn last line is read once it is complete
        self._offset += end
        for line in chunk[:end].decode("utf-8", "replace").splitlines():
            row = injection_row(line)
            if row is None:
                continue
            at, ids = str(row.get("at", "")), row["ids"]
            for learning_id in ids if isinstance(ids, list) else []:  # injection_row checked
                self._times.setdefault(str(learning_id), []).append(at)


class Unused:
    """Active learnings nobody used lately (`push.usage`: no injection in this machine's
    log, vote or helpful mark within the team's `unused_days`, default 90), in the project
    store and the personal one; the injection times come from the kept log."""

    def __init__(self, ws: Workspace, injections: InjectionLog) -> None:
        self.ws = ws
        self.injections = injections

    def days(self) -> int:
        return usage.window(self.ws)

    def ids(self, days: int) -> set[str]:
        injected = self.injections.last_times()
        return {
            found.id
            for store in stores(self.ws, "all")
            for found in usage.find_unused(store, days, injected=injected)
        }
