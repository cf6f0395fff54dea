"""Capture on 37 real public sessions (tests/eval/capture), labelled before any tuning.

The tuning set guards what was tuned on it; the held-out set (never used to pick a
parameter) is held to the bounds that do not depend on tuning: every line read, and no
more moments than a reviewer can triage. Figures by kind: scripts/eval_capture.py.
"""

from __future__ import annotations

import sys

import pytest

from tests.testing import REPO

sys.path.insert(0, str(REPO / "scripts"))

import eval_capture


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, object]]:
    return {name: eval_capture.evaluate(name) for name in ("tuning", "heldout")}


def test_every_line_of_every_real_session_is_read(reports: dict[str, dict[str, object]]) -> None:
    assert [r["lines_skipped"] for r in reports.values()] == [0, 0]
    assert [r["sessions"] for r in reports.values()] == [22, 15]


def test_moments_stay_few_enough_to_review(reports: dict[str, dict[str, object]]) -> None:
    for report in reports.values():
        assert float(str(report["moments_per_session"])) <= 3.0
        assert float(str(report["moments_per_empty_session"])) <= 0.25


def test_the_tuning_set_keeps_what_it_reached(reports: dict[str, dict[str, object]]) -> None:
    coverage = reports["tuning"]["coverage"]
    assert (
        isinstance(coverage, dict) and coverage["covered"] >= 23
    )  # 0.11 on main, 0.56 before signals


def test_the_reflection_replay_names_lessons_the_prompt_cues_never_do() -> None:
    """scripts/eval_reflection.py on the tuning set: the transcript's moments are named, and
    ask in fewer sessions labelled empty than a rule-shaped prompt does."""
    import eval_reflection

    tally = eval_reflection.Tally()
    eval_reflection.replay(eval_capture.folder("tuning"), eval_capture.load("tuning"), tally)
    assert tally.sessions == 22 and tally.named > 0
    assert tally.asked_empty["moments"] <= tally.asked_empty["cues"]
    assert "transcript moments" in eval_reflection.report(tally)
