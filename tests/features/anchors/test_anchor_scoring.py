"""The anchor scorer reads the documented JSON and scores it as intended, before the feature exists.

An oracle that reports exactly the labels must get full marks and a tool that always says
`ok` must get zero recall; otherwise a bad figure from scripts/eval_anchors.py could be
the scorer's fault rather than the feature's.
"""

from __future__ import annotations

from typing import Any

from tests.fixtures.anchor_history import LEARNINGS, Label, labels_per_step
from tests.fixtures.anchor_scoring import (
    by_kind,
    confusion,
    drift_scores,
    match,
    moved_accuracy,
    parse_report,
)

IDS = {learning.key: f"L-{n:04d}" for n, learning in enumerate(LEARNINGS, 1)}
STEPS = labels_per_step()


def entry(label: Label, state: str | None = None) -> dict[str, Any]:
    """One `anchors --json` entry, as the CLI contract describes it."""
    anchor, place = label.anchor, label.place
    state = state or label.expect.state
    now = {"path": place.path, "lines": place.lines} if place and state == "moved" else None
    return {
        "id": IDS[label.learning],
        "path": anchor.path,
        "lines": f"{anchor.lines[0]}-{anchor.lines[1]}",
        "state": state,
        "now": now,
        "similarity": 1.0 if state in ("ok", "moved") else 0.5,
    }


def observations(state: str | None = None) -> list[Any]:
    found = []
    for labels in STEPS:
        report = parse_report({"anchors": [entry(label, state) for label in labels]})
        found.extend(match(labels, IDS, report))
    return found


def test_an_oracle_gets_full_marks() -> None:
    seen = observations()
    assert drift_scores(seen)["precision"] == drift_scores(seen)["recall"] == 1.0
    assert moved_accuracy(seen)["accuracy"] == 1.0
    table = confusion(seen)
    assert all(count == 0 for exp, row in table.items() for rep, count in row.items() if exp != rep)
    assert all(row["recall"] in (1.0, None) for row in by_kind(seen).values())


def test_a_tool_that_always_says_ok_finds_no_drift() -> None:
    seen = observations("ok")
    scores = drift_scores(seen)
    assert scores["recall"] == 0.0 and scores["precision"] is None
    assert moved_accuracy(seen)["right_place"] == 0


def test_an_anchor_absent_from_the_report_counts_as_missing() -> None:
    labels = STEPS[0]
    report = parse_report({"anchors": [entry(label) for label in labels[1:]]})
    states = [o.reported.state for o in match(labels, IDS, report)]
    assert states.count("missing") == 1 and states[0] == "missing"
