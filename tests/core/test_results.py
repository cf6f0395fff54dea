"""Result lists and details: the one shape every adapter renders."""

from __future__ import annotations

import json

import pytest

from orbit_learnings.core.errors import Problem
from orbit_learnings.core.results import Detail, Hit, Result


def make_hit() -> Hit:
    return Hit(
        "L-0001",
        "Use cents",
        ["money"],
        ["billing/**"],
        "active",
        "2026-05-09T18:00:00Z",
        2,
        3,
        1.5,
    )


def test_a_fresh_hit_is_a_project_hit_without_score_or_explanation() -> None:
    assert make_hit().to_dict() == {
        "id": "L-0001",
        "summary": "Use cents",
        "tags": ["money"],
        "paths": ["billing/**"],
        "matched_by": [],
        "updated_at": "2026-05-09T18:00:00Z",
        "status": "active",
        "vote_count": 3,
        "level": "project",
    }


def test_score_is_rounded_and_explanation_included_once_set() -> None:
    hit = make_hit()
    hit.score = 0.123456789
    hit.explain = {"bm25": 0.5}
    hit.level = "user"
    hit.matched_by.append("path:billing/x.py")
    data = hit.to_dict()
    assert data["score"] == 0.123457
    assert data["explain"] == {"bm25": 0.5}
    assert (data["level"], data["matched_by"]) == ("user", ["path:billing/x.py"])


def test_a_zero_score_is_still_reported() -> None:
    hit = make_hit()
    hit.score = 0.0
    assert hit.to_dict()["score"] == 0.0


def test_hit_has_fixed_slots() -> None:
    with pytest.raises(AttributeError):
        make_hit().colour = "red"  # type: ignore[attr-defined]  # the slots refuse it


def test_result_serialises_hits_in_order_and_keeps_warnings_out_of_the_payload() -> None:
    second = make_hit()
    second.id = "L-0002"
    warning = Problem("a.yaml", 1, "bad")
    result = Result([make_hit(), second], [warning])
    payload = result.to_dict()
    assert [h["id"] for h in payload["results"]] == ["L-0001", "L-0002"]
    assert list(payload) == ["results"]
    assert result.warnings == [warning]
    json.dumps(payload)  # plain data all the way down


def test_detail_holds_a_record_and_its_warnings() -> None:
    detail = Detail({"id": "L-0001"}, [])
    assert (detail.record, detail.warnings) == ({"id": "L-0001"}, [])
