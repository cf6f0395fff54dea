"""The `feedback.jsonl` sidecar: was a learning helpful in a task? (issue: search)

One row per learning, task and model; the latest answer for that key stands.
Helpfulness is derived when read, never written into the YAML, so git diffs
stay about content: start 0.5, +0.05 per helpful, -0.10 per not helpful,
clamped to [0.1, 1.0]. It was called "confidence" in 0.1.0; that word now means only
a search's match confidence, and the old JSON key stays beside the new one for one version.

Like `votes.jsonl`, a busy file is compacted, never capped: when a mark finds it past
half the readers' bound, it is rewritten with the latest row of each (task, model), the
older of them folded into one row `{"learning_id": ..., "folded": {"helpful": H,
"not_helpful": N}, "through": STAMP}`. Two folded rows take the larger of each count;
a row stamped at or before a fold's `through` is already in it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError, Problem, UsageError
from orbit_learnings.core.timestamps import normalise_ts, now_iso
from orbit_learnings.store.fileops import MAX_FILE_BYTES, read_text_prefix
from orbit_learnings.store.layout import FEEDBACK_FILE
from orbit_learnings.store.workspace import Workspace

START, HELPFUL_STEP, UNHELPFUL_STEP, FLOOR, CEILING = 0.5, 0.05, 0.10, 0.1, 1.0
MARKER = r"\bLEARNING_(HELPFUL|NOT_HELPFUL):\s*({})"  # + `ids.id_in_text()`: an org's prefix too


class Helpfulness:
    """A learning's feedback: how helpful agents said it was. A plain class: every search
    reads it, and `dataclasses` would cost that process the import of `inspect`."""

    __slots__ = ("helpfulness", "times_helpful", "times_not_helpful")

    def __init__(self, helpfulness: float, times_helpful: int, times_not_helpful: int) -> None:
        self.helpfulness = helpfulness
        self.times_helpful = times_helpful
        self.times_not_helpful = times_not_helpful

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Helpfulness) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.to_dict().values()))

    def __repr__(self) -> str:
        return f"Helpfulness({self.helpfulness}, {self.times_helpful}, {self.times_not_helpful})"

    def to_dict(self) -> dict[str, object]:
        return {
            "helpfulness": self.helpfulness,
            "confidence": self.helpfulness,  # the 0.1.0 name; drop after the next release
            "times_helpful": self.times_helpful,
            "times_not_helpful": self.times_not_helpful,
        }


def score(helpful: int, not_helpful: int) -> float:
    raw = START + HELPFUL_STEP * helpful - UNHELPFUL_STEP * not_helpful
    return round(min(max(raw, FLOOR), CEILING), 4)


class Rows:
    """What a feedback file says: the latest row per (task, model), and any folded counts."""

    __slots__ = ("folded", "latest", "through")

    def __init__(self) -> None:
        self.latest: dict[tuple[str, str], dict[str, Any]] = {}
        self.folded = [0, 0]  # helpful, not helpful
        self.through = ""

    def counts(self) -> tuple[int, int]:
        rows = [r for r in self.latest.values() if r["at"] > self.through]
        helpful = sum(1 for row in rows if row["helpful"])
        return self.folded[0] + helpful, self.folded[1] + len(rows) - helpful

    def fold(self, learning_id: str) -> str:
        """The file's new text: the latest row of each key, all but the newest 100 folded."""
        rows = sorted((r for r in self.latest.values() if r["at"] > self.through),
                      key=lambda r: str(r["at"]))  # fmt: skip
        cut = max(len(rows) - 100, 0)
        while 0 < cut < len(rows) and rows[cut]["at"] == rows[cut - 1]["at"]:
            cut += 1
        folded = list(self.folded)
        for row in rows[:cut]:
            folded[0 if row["helpful"] else 1] += 1
        through = max([self.through, *(str(r["at"]) for r in rows[:cut])])
        head = {"helpful": folded[0], "not_helpful": folded[1]}
        lines = (
            [{"learning_id": learning_id, "folded": head, "through": through}]
            if any(folded)
            else []
        )
        return "".join(json.dumps(row) + "\n" for row in [*lines, *rows[cut:]])


def _fold_row(row: dict[str, Any], rows: Rows) -> None:
    counts, through = row["folded"], normalise_ts(row["through"])
    if not isinstance(counts, dict):
        raise ValueError("'folded' must hold helpful and not_helpful counts")
    for position, key in enumerate(("helpful", "not_helpful")):
        value = counts.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**9:
            raise ValueError(f"folded {key!r} must be a count")
        rows.folded[position] = max(rows.folded[position], value)
    rows.through = max(rows.through, through)


def parse(
    text: str, learning_id: str, display: str
) -> tuple[dict[tuple[str, str], dict[str, Any]], list[Problem]]:
    """Latest row per (task, model); bad rows become problems."""
    rows, problems = parse_rows(text, learning_id, display)
    return rows.latest, problems


def parse_rows(text: str, learning_id: str, display: str) -> tuple[Rows, list[Problem]]:
    """Every row, folded ones included; bad rows become problems."""
    found = Rows()
    latest = found.latest
    problems: list[Problem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            if not isinstance(row, dict) or row.get("learning_id") != learning_id:
                raise ValueError("row must be an object for this learning")
            if "folded" in row:
                _fold_row(row, found)
                continue
            if not isinstance(row.get("helpful"), bool):
                raise ValueError("'helpful' must be true or false")
            key = (str(row["task_id"]), str(row.get("model") or ""))
            row["at"] = normalise_ts(row["at"])
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(
                Problem(display, number, f"invalid feedback row: {exc}", learning_id, "feedback")
            )
            continue
        if key not in latest or row["at"] >= latest[key]["at"]:
            latest[key] = row
    return found, problems


def _read_rows(ws: Workspace, learning_id: str) -> Rows | None:
    """The rows of each of the learning's feedback files (an org learning's bundle and the
    subscriber's `org-feedback/<ID>/`) as one; None when there is no readable file."""
    found = [
        rows
        for folder in ws.sidecar_dirs_str(learning_id)
        if (rows := _read_file(os.path.join(folder, FEEDBACK_FILE), learning_id)) is not None
    ]
    if len(found) < 2:
        return found[0] if found else None
    return merge_rows(found)


def _read_file(path: str, learning_id: str) -> Rows | None:
    """One file's rows, as far as the readers' bound (a file past it counts its first
    part: never nothing); None when there is no readable file."""
    if not _exists_as_file(path):  # most learnings have no feedback: one system call, not four
        return None
    try:
        text, _ = read_text_prefix(path)
    except (FileNotFoundError, UnicodeDecodeError, OrbitError):  # unreadable: no feedback
        return None
    return parse_rows(text, learning_id, path)[0]


def merge_rows(parts: list[Rows]) -> Rows:
    """Several files' rows as one: each file's folded counts add up, its rows past its own
    `through` stand, and the latest answer of a (task, model) in any file wins."""
    merged = Rows()
    for part in parts:
        merged.folded = [merged.folded[0] + part.folded[0], merged.folded[1] + part.folded[1]]
        for key, row in part.latest.items():
            known = merged.latest.get(key)
            if row["at"] > part.through and (known is None or row["at"] >= known["at"]):
                merged.latest[key] = row
    return merged


def summarise(ws: Workspace, learning_id: str) -> Helpfulness:
    rows = _read_rows(ws, learning_id)
    if rows is None:
        return Helpfulness(START, 0, 0)
    helpful, unhelpful = rows.counts()
    return Helpfulness(score(helpful, unhelpful), helpful, unhelpful)


def last_helpful(ws: Workspace, learning_id: str) -> str | None:
    """When this learning was last marked helpful, among the answers that stand (the latest
    per task and model: a helpful mark later taken back does not count); None if never.
    Folded marks keep no date."""
    rows = _read_rows(ws, learning_id)
    if rows is None:
        return None
    return max((str(r["at"]) for r in rows.latest.values() if r["helpful"]), default=None)


def oversized(ws: Workspace, learning_id: str) -> Problem | None:
    """A feedback file past the readers' bound, for `check` (reads count its first part)."""
    path = ws.bundle_dir(learning_id) / FEEDBACK_FILE
    return oversized_file(path, ws.relative(path), learning_id)


def oversized_file(path: str | os.PathLike[str], display: str, learning_id: str) -> Problem | None:
    """One feedback file past the readers' bound (a bundle's, or an `org-feedback/` one)."""
    try:
        size = os.lstat(path).st_size
    except OSError:
        return None
    if size <= MAX_FILE_BYTES:
        return None
    message = (
        f"feedback file is {size} bytes, past its bound of {MAX_FILE_BYTES}: only its first"
        " part counts until the next feedback folds it"
    )
    return Problem(display, 1, message, learning_id, "feedback")


def _exists_as_file(path: str) -> bool:
    """False only when nothing is there; anything else goes through the careful read
    (which refuses links and devices), so a missing file costs a search one lstat."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def helpfulness_for(ws: Workspace, ids: Iterable[str]) -> dict[str, Helpfulness]:
    """Read at query time for the matched set only (a handful of small files)."""
    return {learning_id: summarise(ws, learning_id) for learning_id in ids}


def record(
    ws: Workspace, learning_id: str, *, helpful: bool, task_id: str, model: str | None
) -> Helpfulness:
    from orbit_learnings.store import bundles as store
    from orbit_learnings.store.fileops import append_line, file_lock, make_folder, regular_size
    from orbit_learnings.store.votes import refuse_long

    if not task_id.strip():
        raise UsageError("feedback needs a task: it is anchored to a concrete task")
    try:
        refuse_long(task_id.strip(), (model or "").strip())
    except ValueError as exc:
        raise UsageError(f"{exc}: the task names the task, the model the agent family") from None
    store.read_learning(ws, learning_id)
    row = {
        "learning_id": learning_id,
        "task_id": task_id.strip(),
        "model": (model or "").strip() or None,
        "helpful": helpful,
        "at": now_iso(),
    }
    home = ws.sidecar_home_str(learning_id)  # for an org learning: the subscriber's folder
    path = os.path.join(home, FEEDBACK_FILE)
    with file_lock(ws.locks_dir / f"{learning_id}.lock"):
        if regular_size(path) > MAX_FILE_BYTES // 2:
            _fold(path, learning_id)
        make_folder(home)
        append_line(path, json.dumps(row))
    return summarise(ws, learning_id)


def _fold(path: Any, learning_id: str) -> None:
    """Rewrite a busy feedback file (callers hold the learning's lock), read whole."""
    from orbit_learnings.store.fileops import atomic_write_text, open_regular

    with open_regular(path) as handle:
        text = handle.read().decode("utf-8", "replace")
    rows, _ = parse_rows(text, learning_id, str(path))
    atomic_write_text(path, rows.fold(learning_id))


class MarkerReport:
    __slots__ = ("recorded", "unknown")

    def __init__(self, recorded: list[dict[str, object]], unknown: list[str]) -> None:
        self.recorded = recorded
        self.unknown = unknown


def record_from_output(ws: Workspace, text: str, task_id: str, model: str | None) -> MarkerReport:
    """Record every `LEARNING_HELPFUL: L-0001` / `LEARNING_NOT_HELPFUL: L-0002` marker."""
    from orbit_learnings.store import bundles, levels

    known: dict[str, set[str]] = {}  # store root -> its IDs, listed once per store
    report = MarkerReport([], [])
    markers = re.compile(MARKER.format(ids.id_in_text().pattern))
    for verdict, learning_id in markers.findall(text):
        try:
            home = levels.for_id(ws, learning_id)  # U- IDs live in the personal store
        except OrbitError:
            report.unknown.append(learning_id)
            continue
        if learning_id not in known.setdefault(home.root_str, set(bundles.bundle_ids(home))):
            report.unknown.append(learning_id)
            continue
        found = record(
            home, learning_id, helpful=verdict == "HELPFUL", task_id=task_id, model=model
        )
        report.recorded.append(
            {"id": learning_id, "helpful": verdict == "HELPFUL", **found.to_dict()}
        )
    return report
