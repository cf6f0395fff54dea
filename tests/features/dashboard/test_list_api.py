"""The list API's curation filters and sort orders, and the detail's history and files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from orbit_learnings.core.timestamps import format_ts
from orbit_learnings.integrations.dashboard.app import build_app
from orbit_learnings.store import bundles, feedback
from orbit_learnings.store.workspace import Workspace
from tests.testing import dashboard_app


@pytest.fixture
def client(example: Path) -> TestClient:
    client = TestClient(build_app(Workspace(example), "t"), base_url="http://127.0.0.1:8765")
    dashboard_app(client).state.api.stale_cache.fresh(timeout=30)
    return client


def ids(client: TestClient, **params: str | int | list[str]) -> list[str]:
    answer = client.get("/api/learnings", params={"limit": 100, **params})
    assert answer.status_code == 200, answer.text
    return [r["id"] for r in answer.json()["results"]]


def test_sort_by_each_column(client: TestClient) -> None:
    rows = client.get("/api/learnings", params={"limit": 100, "sort": "-votes"}).json()["results"]
    votes = [r["vote_count"] for r in rows]
    assert votes == sorted(votes, reverse=True) and votes[0] > votes[-1]
    assert ids(client, sort="id") == sorted(ids(client))
    assert ids(client, sort="-id") == sorted(ids(client), reverse=True)
    updated = [
        r["updated_at"]
        for r in client.get("/api/learnings", params={"sort": "updated"}).json()["results"]
    ]
    assert updated == sorted(updated)


def test_sort_by_confidence_and_low_confidence_filter(client: TestClient, example: Path) -> None:
    ws = Workspace(example)
    for task in ("a", "b"):
        feedback.record(ws, "L-0007", helpful=False, task_id=task, model="claude")
    feedback.record(ws, "L-0004", helpful=True, task_id="a", model="claude")
    by_confidence = ids(client, sort="-confidence")
    assert by_confidence[0] == "L-0004" and by_confidence[-1] == "L-0007"
    assert ids(client, low_confidence=1) == ["L-0007"]


def test_sort_and_filter_by_helpfulness_the_names_that_replaced_confidence(
    client: TestClient, example: Path
) -> None:
    """Feedback's number is `helpfulness` (a row's `match_confidence` is the search's);
    the 0.1.0 names answer the same for one more version."""
    ws = Workspace(example)
    for task in ("a", "b"):
        feedback.record(ws, "L-0007", helpful=False, task_id=task, model="claude")
    feedback.record(ws, "L-0004", helpful=True, task_id="a", model="claude")
    assert ids(client, sort="-helpfulness") == ids(client, sort="-confidence")
    assert ids(client, sort="-helpfulness")[0] == "L-0004"
    assert ids(client, sort="helpfulness")[0] == "L-0007"
    assert ids(client, low_helpfulness=1) == ["L-0007"]
    rows = client.get("/api/learnings", params={"q": "migration"}).json()["results"]
    assert rows and all(r["helpfulness"] == r["confidence"] for r in rows)
    assert all("match_confidence" in r for r in rows)
    detail = client.get("/api/learnings/L-0007").json()
    assert detail["helpfulness"] == detail["confidence"] == 0.3
    spec = client.get("/openapi.json").json()
    listed = {p["name"]: p for p in spec["paths"]["/api/learnings"]["get"]["parameters"]}
    assert "low_helpfulness" in listed and listed["low_confidence"].get("deprecated") is True
    assert client.get("/api/learnings", params={"sort": "-trust"}).status_code == 400


def test_path_and_tag_narrow_together(client: TestClient) -> None:
    assert set(ids(client, path="db/")) == {"L-0002", "L-0013"}
    assert set(ids(client, tag="migrations")) == {"L-0002"}
    assert ids(client, path="db/", tag="migrations") == ["L-0002"]
    assert ids(client, path="db/", tag="money") == []
    assert set(ids(client, scope="db/")) == {"L-0002", "L-0013"}  # the older name
    assert set(ids(client, tag=["money", "ci"])) == {"L-0003", "L-0014", "L-0007"}


def test_stale_filter_uses_the_cached_report(client: TestClient, example: Path) -> None:
    every = set(ids(client))
    assert set(ids(client, stale=1)) == every  # the example has no code files at all
    (example / "db/migrations").mkdir(parents=True)
    (example / "db/migrations/0001.sql").write_text("")
    (example / ".orbit/learnings/L-0002/learning.yaml").touch()  # a learning changed
    client.get("/api/learnings")
    dashboard_app(client).state.api.stale_cache.fresh(timeout=30)
    assert "L-0002" not in ids(client, stale=1) and "L-0003" in ids(client, stale=1)


def test_never_injected_reads_the_injection_log(client: TestClient, example: Path) -> None:
    now = datetime.now(UTC)
    log = example / ".orbit/state/injections.jsonl"
    rows = [
        {"at": format_ts(now - timedelta(days=40)), "layer": "hook", "ids": ["L-0002"]},
        {"at": format_ts(now - timedelta(days=1)), "layer": "hook", "ids": ["L-0003", "L-0005"]},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"torn": ')
    never = ids(client, never_injected=1)
    assert "L-0002" in never and "L-0003" not in never and "L-0005" not in never
    with log.open("a") as handle:  # the torn line completed, then one more injection
        handle.write("1}\n" + json.dumps({"at": format_ts(now), "layer": "x", "ids": ["L-0002"]}))
        handle.write("\n")
    assert "L-0002" not in ids(client, never_injected=1)
    detail = client.get("/api/learnings/L-0002").json()
    assert len(detail["injections"]) == 2


def test_unused_filter_reads_the_log_votes_feedback_and_config(
    client: TestClient, example: Path
) -> None:
    """The example's learnings were written in 2026; a fresh window reaches back from now."""
    every = set(ids(client))
    answer = client.get("/api/learnings", params={"unused": 1, "limit": 100}).json()
    assert answer["unused_days"] == 90
    unused = {r["id"] for r in answer["results"]}
    assert unused and unused <= every
    assert client.get("/api/learnings").json()["unused_days"] is None
    target, voted, helpful = sorted(unused)[:3]
    now = datetime.now(UTC)
    log = example / ".orbit/state/injections.jsonl"
    row = {"at": format_ts(now - timedelta(days=2)), "layer": "hook", "ids": [target]}
    log.write_text(json.dumps(row) + "\n")
    ws = Workspace(example)
    bundles.add_vote(ws, voted, "claude", "T-1")
    feedback.record(ws, helpful, helpful=True, task_id="T-2", model="claude")
    left = set(ids(client, unused=1))
    assert left == unused - {target, voted, helpful}
    (example / ".orbit/config.yaml").write_text("unused_days: 100000\n")  # older than all
    assert ids(client, unused=1) == []
    (example / ".orbit/config.yaml").write_text("unused_days: 0\n")
    refused = client.get("/api/learnings", params={"unused": 1})
    assert refused.status_code == 400 and "unused_days" in refused.json()["error"]


def test_detail_names_its_files(client: TestClient) -> None:
    detail = client.get("/api/learnings/L-0005").json()
    assert detail["files"] == {
        "learning": ".orbit/learnings/L-0005/learning.yaml",
        "votes": ".orbit/learnings/L-0005/votes.jsonl",
    }
    assert detail["injections"] == [] and detail["stale_pending"] is False


@pytest.mark.parametrize(
    "params",
    [
        {"sort": "summary"},
        {"sort": "--votes"},
        {"stale": "maybe"},
        {"never_injected": "2"},
        {"unused": "90"},
    ],
)
def test_bad_list_parameters_are_400(client: TestClient, params: dict[str, str]) -> None:
    answer = client.get("/api/learnings", params=params)
    assert answer.status_code == 400 and list(answer.json()) == ["error"]


def test_the_stale_report_survives_a_restart(client: TestClient, example: Path) -> None:
    """Derived state in .orbit/state/: a new server answers at once with the last report."""
    assert (example / ".orbit/state/stale.json").is_file()
    again = TestClient(build_app(Workspace(example), "t"), base_url="http://127.0.0.1:8765")
    stats = again.get("/api/learnings").json()["stats"]
    assert stats["stale_pending"] is False and stats["stale"] == 15


def test_the_detail_says_how_its_cited_code_fared(client: TestClient, example: Path) -> None:
    from orbit_learnings.curation.anchors.citing import cite

    code = example / "services/orders/service.py"
    code.parent.mkdir(parents=True)
    code.write_text("def update(order):\n    check(order)\n    save(order)\n", encoding="utf-8")
    ws = Workspace(example)
    new = bundles.NewLearning(summary="Check before saving", anchors=cite(ws, [f"{code}:1-3"]))
    learning_id = bundles.create_learning(ws, new).id
    detail = client.get(f"/api/learnings/{learning_id}").json()
    assert [(a["path"], a["state"]) for a in detail["anchor_states"]] == [
        ("services/orders/service.py", "ok")
    ]
    code.write_text("def update(order):\n    save(order)\n", encoding="utf-8")
    [drifted] = client.get(f"/api/learnings/{learning_id}").json()["anchor_states"]
    assert drifted["state"] == "drifted" and drifted["similarity"] < 1
    assert "anchor_states" not in client.get("/api/learnings/L-0001").json()
