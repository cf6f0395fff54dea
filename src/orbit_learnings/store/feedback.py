"""The `feedback.jsonl` sidecar: was a learning helpful in a task? (issue: search)

One row per learning, task and model; the latest answer for that key stands.
Confidence is derived when read, never written into the YAML, so git diffs
stay about content: start 0.5, +0.05 per helpful, -0.10 per not helpful,
clamped to [0.1, 1.0].
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
from orbit_learnings.store.fileops import read_regular_text
from orbit_learnings.store.layout import FEEDBACK_FILE
from orbit_learnings.store.workspace import Workspace

START, HELPFUL_STEP, UNHELPFUL_STEP, FLOOR, CEILING = 0.5, 0.05, 0.10, 0.1, 1.0
MARKER = re.compile(rf"\bLEARNING_(HELPFUL|NOT_HELPFUL):\s*({ids.ID_IN_TEXT})")


class Confidence:
    """A learning's feedback. A plain class: every search reads it, and `dataclasses`
    would cost that process the import of `inspect`."""

    __slots__ = ("confidence", "times_helpful", "times_not_helpful")

    def __init__(self, confidence: float, times_helpful: int, times_not_helpful: int) -> None:
        self.confidence = confidence
        self.times_helpful = times_helpful
        self.times_not_helpful = times_not_helpful

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Confidence) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.to_dict().values()))

    def __repr__(self) -> str:
        return f"Confidence({self.confidence}, {self.times_helpful}, {self.times_not_helpful})"

    def to_dict(self) -> dict[str, object]:
        return {
            "confidence": self.confidence,
            "times_helpful": self.times_helpful,
            "times_not_helpful": self.times_not_helpful,
        }


def score(helpful: int, not_helpful: int) -> float:
    raw = START + HELPFUL_STEP * helpful - UNHELPFUL_STEP * not_helpful
    return round(min(max(raw, FLOOR), CEILING), 4)


def parse(
    text: str, learning_id: str, display: str
) -> tuple[dict[tuple[str, str], dict[str, Any]], list[Problem]]:
    """Latest row per (task, model); bad rows become problems."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    problems: list[Problem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            if not isinstance(row, dict) or row.get("learning_id") != learning_id:
                raise ValueError("row must be an object for this learning")
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
    return latest, problems


def summarise(ws: Workspace, learning_id: str) -> Confidence:
    path = os.path.join(ws.learnings_path, learning_id, FEEDBACK_FILE)
    if not _exists_as_file(path):  # most learnings have no feedback: one system call, not four
        return Confidence(START, 0, 0)
    try:
        text = read_regular_text(path)
    except (FileNotFoundError, UnicodeDecodeError, OrbitError):  # unreadable: no feedback
        return Confidence(START, 0, 0)
    latest, _ = parse(text, learning_id, path)
    helpful = sum(1 for row in latest.values() if row["helpful"])
    return Confidence(score(helpful, len(latest) - helpful), helpful, len(latest) - helpful)


def last_helpful(ws: Workspace, learning_id: str) -> str | None:
    """When this learning was last marked helpful, among the answers that stand (the latest
    per task and model: a helpful mark later taken back does not count); None if never."""
    path = os.path.join(ws.learnings_path, learning_id, FEEDBACK_FILE)
    if not _exists_as_file(path):
        return None
    try:
        text = read_regular_text(path)
    except (FileNotFoundError, UnicodeDecodeError, OrbitError):  # unreadable: no feedback
        return None
    latest, _ = parse(text, learning_id, path)
    return max((str(row["at"]) for row in latest.values() if row["helpful"]), default=None)


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


def confidence_for(ws: Workspace, ids: Iterable[str]) -> dict[str, Confidence]:
    """Read at query time for the matched set only (a handful of small files)."""
    return {learning_id: summarise(ws, learning_id) for learning_id in ids}


def record(
    ws: Workspace, learning_id: str, *, helpful: bool, task_id: str, model: str | None
) -> Confidence:
    from orbit_learnings.store import bundles as store
    from orbit_learnings.store.fileops import append_line, file_lock

    if not task_id.strip():
        raise UsageError("feedback needs --task: it is anchored to a concrete task")
    store.read_learning(ws, learning_id)
    row = {
        "learning_id": learning_id,
        "task_id": task_id.strip(),
        "model": (model or "").strip() or None,
        "helpful": helpful,
        "at": now_iso(),
    }
    with file_lock(ws.locks_dir / f"{learning_id}.lock"):
        append_line(ws.bundle_dir(learning_id) / FEEDBACK_FILE, json.dumps(row))
    return summarise(ws, learning_id)


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
    for verdict, learning_id in MARKER.findall(text):
        try:
            home = levels.for_id(ws, learning_id)  # U- IDs live in the personal store
        except OrbitError:
            report.unknown.append(learning_id)
            continue
        if learning_id not in known.setdefault(home.root_dir, set(bundles.bundle_ids(home))):
            report.unknown.append(learning_id)
            continue
        confidence = record(
            home, learning_id, helpful=verdict == "HELPFUL", task_id=task_id, model=model
        )
        report.recorded.append(
            {"id": learning_id, "helpful": verdict == "HELPFUL", **confidence.to_dict()}
        )
    return report
