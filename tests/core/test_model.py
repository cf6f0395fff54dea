"""Schema validation of learning records."""

from __future__ import annotations

import pytest

from orbit_learnings.core import model
from orbit_learnings.core.ids import is_learning_id
from orbit_learnings.core.ranking import rank, vote_score

VALID = {
    "id": "L-0001",
    "schemaVersion": 1,
    "status": "active",
    "created_at": "2026-05-09T18:00:00Z",
    "updated_at": "2026-05-09T18:00:00Z",
    "scope": {"paths": ["src/**"], "tags": []},
    "summary": "Do the thing",
}


def test_minimal_record_is_valid_and_optional_fields_default() -> None:
    learning = model.validate(VALID, "L-0001")
    assert learning.priority == 0
    assert learning.evidence == ()
    assert learning.supersedes is None and learning.superseded_by is None


def test_datetime_values_come_back_as_z_strings() -> None:
    from datetime import UTC, datetime

    data = {**VALID, "created_at": datetime(2026, 5, 9, 18, 0, tzinfo=UTC)}
    assert model.validate(data).created_at == "2026-05-09T18:00:00Z"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"id": "X-1"}, "not of the form"),
        ({"status": "deleted"}, "status must be one of"),
        ({"schemaVersion": 2}, "schemaVersion"),
        ({"summary": "  "}, "summary must not be empty"),
        ({"scope": {"paths": [], "tags": []}}, "at least one path glob or tag"),
        ({"scope": {"paths": "src/**"}}, "list of strings"),
        ({"created_at": "yesterday"}, "ISO 8601"),
        ({"priority": "high"}, "priority must be an integer"),
        ({"priority": 2**63}, "priority must be between -1000 and 1000"),
        ({"priority": -1001}, "priority must be between -1000 and 1000"),
        ({"evidence": [{"kind": "ticket", "ref": "1"}]}, "evidence items"),
        ({"supersedes": "nope"}, "supersedes must be a learning id"),
    ],
)
def test_each_schema_violation_is_reported(change: dict[str, object], fragment: str) -> None:
    with pytest.raises(model.SchemaError) as caught:
        model.validate({**VALID, **change})
    assert fragment in str(caught.value)


def test_id_must_agree_with_folder() -> None:
    with pytest.raises(model.SchemaError, match="disagrees with its folder L-0002"):
        model.validate(VALID, "L-0002")


def test_all_problems_are_reported_at_once() -> None:
    with pytest.raises(model.SchemaError) as caught:
        model.validate({**VALID, "status": "x", "priority": "y"})
    assert len(caught.value.problems) == 2


@pytest.mark.parametrize("good", ["L-0001", "L-12345", "L-7K3QF9ZD"])
def test_id_shapes(good: str) -> None:
    assert is_learning_id(good)


@pytest.mark.parametrize("bad", ["L-001", "l-0001", "L-abcdefgh", "../L-0001"])
def test_bad_ids(bad: str) -> None:
    assert not is_learning_id(bad)


def test_vote_decay_halves_per_half_life() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 7, 1, tzinfo=UTC)
    assert vote_score(["2026-07-01T00:00:00Z"], now, 180) == pytest.approx(1.0)
    assert vote_score(["2027-01-01T00:00:00Z"], now, 180) == pytest.approx(1.0)  # future clamps
    old = "2026-01-02T00:00:00Z"  # 180 days before
    assert vote_score([old], now, 180) == pytest.approx(0.5)
    assert vote_score([old, old], now, 0) == 2.0


def test_rank_orders_by_votes_priority_recency_id() -> None:
    from dataclasses import dataclass

    @dataclass
    class Item:
        id: str
        vote_score: float
        priority: int
        updated_at: str

    items = [
        Item("L-0004", 0.0, 0, "2026-01-01T00:00:00Z"),
        Item("L-0003", 0.0, 0, "2026-01-01T00:00:00Z"),
        Item("L-0002", 0.0, 0, "2026-02-01T00:00:00Z"),
        Item("L-0005", 0.0, 3, "2025-01-01T00:00:00Z"),
        Item("L-0001", 1.5, 0, "2020-01-01T00:00:00Z"),
    ]
    assert [i.id for i in rank(items)] == ["L-0001", "L-0005", "L-0002", "L-0003", "L-0004"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("task=T-1", model.Evidence("task", "T-1")),
        (" commit = abc ", model.Evidence("commit", "abc")),
        ("pr=412", model.Evidence("pr", "412")),
        ("issue=ORB-7", model.Evidence("issue", "ORB-7")),
        (
            "URL=https://example.com/postmortem",
            model.Evidence("url", "https://example.com/postmortem"),
        ),
        ("file=docs/incidents/2026-03.md", model.Evidence("file", "docs/incidents/2026-03.md")),
    ],
)
def test_parse_evidence(text: str, expected: model.Evidence) -> None:
    assert model.parse_evidence(text) == expected


@pytest.mark.parametrize("bad", ["T-1", "ticket=1", "task=", "=abc"])
def test_parse_evidence_refuses_other_shapes(bad: str) -> None:
    with pytest.raises(
        ValueError, match=r"KIND=REF with KIND one of task\|commit\|pr\|issue\|url\|file"
    ):
        model.parse_evidence(bad)


def test_extension_keys_survive_as_extra_and_summary_whitespace_collapses() -> None:
    learning = model.validate(
        {**VALID, "x-owner-team": "platform", "summary": " Do \n the  thing "}
    )
    assert learning.extra == {"x-owner-team": "platform"}
    assert learning.summary == "Do the thing"
    assert learning.to_dict()["summary"] == "Do the thing"
    assert "x-owner-team" not in learning.to_dict()


@pytest.mark.parametrize(
    ("document", "key_path", "said"),
    [
        ({**VALID, "scope": {"path": ["src/**"], "tags": ["x"]}}, ("scope", "path"), "'paths'"),
        ({**VALID, "sumary": "typo"}, ("sumary",), "'summary'"),
        (
            {**VALID, "evidence": [{"kind": "pr", "ref": "1", "reff": "2"}]},
            ("evidence", 0, "reff"),
            "'ref'",
        ),
        ({**VALID, "owner_team": "platform"}, ("owner_team",), "known: id"),
    ],
    ids=["scope-path", "top-level-typo", "evidence-item", "no-near-key"],
)
def test_an_unknown_key_is_an_error_that_names_the_key_it_meant(
    document: dict[str, object], key_path: tuple[object, ...], said: str
) -> None:
    """`scope: path:` once passed check and the learning silently lost its scope."""
    with pytest.raises(model.SchemaError) as caught:
        model.validate(document)
    (problem,) = [p for p in caught.value.problems if p.key_path == key_path]
    assert "unknown key" in problem.message and said in problem.message


def test_a_non_mapping_document_is_one_problem() -> None:
    with pytest.raises(model.SchemaError, match="must be a YAML mapping"):
        model.validate(["id", "L-0001"])
