"""The dashboard's write endpoints: the same files as the CLI, refusals as one-line JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from orbit_learnings.integrations.dashboard.app import build_app
from orbit_learnings.store.workspace import Workspace
from tests.features.dashboard.twins import (
    cli,
    differing_files,
    learning_data,
    learning_text,
    make_twin,
)

TOKEN = "test-token"
AUTH = {"X-Orbit-Token": TOKEN}
FILE = ".orbit/learnings/{}/learning.yaml"


@pytest.fixture
def client(example: Path) -> TestClient:
    return TestClient(build_app(Workspace(example), TOKEN), base_url="http://127.0.0.1:8765")


@pytest.fixture
def twin(example: Path, tmp_path: Path) -> Path:
    return make_twin(example, tmp_path / "twin")


def test_edit_writes_what_update_writes(client: TestClient, example: Path, twin: Path) -> None:
    answer = client.patch(
        "/api/learnings/L-0003",
        json={
            "summary": "Money is integer cents",
            "paths": ["services/billing/**", "lib/money.py"],
        },
        headers=AUTH,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["changed"] == [FILE.format("L-0003")]
    cli(twin, "learning", "update", "L-0003", "--summary", "Money is integer cents",
        "--path", "services/billing/**", "--path", "lib/money.py")  # fmt: skip
    assert differing_files(example, twin) == []
    body = client.patch("/api/learnings/L-0003", json={"body": "New *body*\n"}, headers=AUTH)
    cli(twin, "learning", "update", "L-0003", "--body", "New *body*\n")
    assert body.status_code == 200 and differing_files(example, twin) == []


def test_edit_changes_only_the_edited_keys(client: TestClient, example: Path) -> None:
    before = learning_data(example, "L-0005")
    answer = client.patch(
        "/api/learnings/L-0005", json={"tags": ["testing", "redis"]}, headers=AUTH
    )
    assert answer.status_code == 200
    after = learning_data(example, "L-0005")
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed == {"scope", "updated_at"}
    assert after["scope"] == {"paths": before["scope"]["paths"], "tags": ["testing", "redis"]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"summary": "   "}, "summary"),
        ({"paths": ["!negated"]}, "paths"),
        ({"paths": ["/elsewhere/x.py"]}, "paths"),
        ({"paths": [], "tags": []}, "paths"),
    ],
)
def test_edit_refusals_name_the_field_and_change_nothing(
    client: TestClient, example: Path, body: dict[str, object], field: str
) -> None:
    before = (example / FILE.format("L-0003")).read_text()
    answer = client.patch("/api/learnings/L-0003", json=body, headers=AUTH)
    assert answer.status_code == 422, answer.text
    data = answer.json()
    assert data["field"] == field and data["error"] and "\n" not in data["error"]
    assert (example / FILE.format("L-0003")).read_text() == before


@pytest.mark.parametrize(
    ("body", "status"),
    [({}, 400), ({"summary": 3}, 400), ({"tags": "one"}, 400), ({"tags": [1]}, 400)],
)
def test_edit_bad_bodies_are_400(client: TestClient, body: object, status: int) -> None:
    answer = client.patch("/api/learnings/L-0003", json=body, headers=AUTH)
    assert answer.status_code == status and "error" in answer.json()


def test_upvote_appends_what_the_cli_appends(client: TestClient, example: Path, twin: Path) -> None:
    vote = {"model": "human", "task": "review-1"}
    first = client.post("/api/learnings/L-0004/upvote", json=vote, headers=AUTH).json()
    assert first["vote_count"] == 1 and first["changed"] == [".orbit/learnings/L-0004/votes.jsonl"]
    again = client.post("/api/learnings/L-0004/upvote", json=vote, headers=AUTH).json()
    assert again["vote_count"] == 1 and again["changed"] == []
    cli(twin, "learning", "upvote", "L-0004", "--model", "human", "--task", "review-1")
    assert differing_files(example, twin) == []
    empty = client.post(
        "/api/learnings/L-0004/upvote", json={"model": "h", "task": " "}, headers=AUTH
    )
    assert empty.status_code == 400 and "needs a task" in empty.json()["error"]


def test_archive_changes_status_and_stamp_only(client: TestClient, example: Path) -> None:
    before = learning_data(example, "L-0012")
    answer = client.post("/api/learnings/L-0012/archive", headers=AUTH)
    assert answer.status_code == 200 and answer.json()["changed"] == [FILE.format("L-0012")]
    after = learning_data(example, "L-0012")
    assert {k for k in after if before.get(k) != after[k]} == {"status", "updated_at"}
    assert after["status"] == "archived"
    again = client.post("/api/learnings/L-0012/archive", headers=AUTH)
    assert again.status_code == 200 and again.json()["changed"] == []


def test_supersede_names_both_files(client: TestClient, example: Path, twin: Path) -> None:
    answer = client.post("/api/learnings/L-0002/supersede", json={"by": "L-0013"}, headers=AUTH)
    assert answer.json()["changed"] == [FILE.format("L-0013"), FILE.format("L-0002")]
    cli(twin, "learning", "supersede", "L-0002", "--with", "L-0013")
    assert differing_files(example, twin) == []


def test_bulk_archive_and_add_tag(client: TestClient, example: Path, twin: Path) -> None:
    tagged = client.post(
        "/api/bulk",
        json={"action": "add-tag", "ids": ["L-0004", "L-0016"], "tag": "ui"},
        headers=AUTH,
    ).json()
    assert tagged["changed"] == [FILE.format("L-0004"), FILE.format("L-0016")]
    cli(twin, "learning", "update", "L-0004", "--tag", "frontend", "--tag", "react", "--tag", "ui")
    cli(
        twin, "learning", "update", "L-0016", "--tag", "testing", "--tag", "frontend", "--tag", "ui"
    )
    assert differing_files(example, twin) == []
    again = client.post(
        "/api/bulk", json={"action": "add-tag", "ids": ["L-0004"], "tag": "UI"}, headers=AUTH
    ).json()
    assert again["changed"] == []  # tags compare case-insensitively, as lookups do
    archived = client.post(
        "/api/bulk", json={"action": "archive", "ids": ["L-0007", "L-0009", "L-0999"]}, headers=AUTH
    ).json()
    assert archived["changed"] == [FILE.format("L-0007"), FILE.format("L-0009")]
    assert "no learning L-0999" in archived["results"][2]["error"]
    assert "status: archived" in learning_text(example, "L-0009")


@pytest.mark.parametrize(
    "body",
    [
        {"action": "delete", "ids": ["L-0002"]},
        {"action": "archive", "ids": []},
        {"action": "archive", "ids": "L-0002"},
        {"action": "archive", "ids": ["L-0002"] * 501},
        {"action": "add-tag", "ids": ["L-0002"]},
    ],
)
def test_bulk_refusals(client: TestClient, example: Path, body: dict[str, object]) -> None:
    answer = client.post("/api/bulk", json=body, headers=AUTH)
    assert 400 <= answer.status_code < 500 and "error" in answer.json()
    assert "status: active" in learning_text(example, "L-0002")


WRITES = [
    ("patch", "/api/learnings/L-0002", {"summary": "x"}),
    ("post", "/api/learnings/L-0002/upvote", {"model": "m", "task": "t"}),
    ("post", "/api/learnings/L-0002/archive", {}),
    ("post", "/api/learnings/L-0002/supersede", {"by": "L-0013"}),
    ("post", "/api/bulk", {"action": "archive", "ids": ["L-0002"]}),
    ("post", "/api/learnings/L-0002/approve", {}),
    ("post", "/api/learnings/L-0002/reject", {}),
]


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"X-Orbit-Token": "nope"}, 401),
        ({**AUTH, "Origin": "http://evil.example"}, 403),
        ({**AUTH, "Sec-Fetch-Site": "cross-site"}, 403),
    ],
)
def test_every_write_needs_the_token_and_the_same_origin(
    client: TestClient,
    example: Path,
    method: str,
    url: str,
    body: dict[str, object],
    headers: dict[str, str],
    status: int,
) -> None:
    before = {p: p.read_bytes() for p in (example / ".orbit/learnings").rglob("*") if p.is_file()}
    answer = client.request(method.upper(), url, json=body, headers=headers)
    assert answer.status_code == status and "error" in answer.json()
    after = {p: p.read_bytes() for p in (example / ".orbit/learnings").rglob("*") if p.is_file()}
    assert before == after


def test_unknown_ids_are_404(client: TestClient) -> None:
    for method, url, body in WRITES[:3]:
        answer = client.request(
            method.upper(), url.replace("L-0002", "L-0404"), json=body, headers=AUTH
        )
        assert answer.status_code == 404 and "no learning L-0404" in answer.json()["error"]
    weird = client.patch("/api/learnings/..%2Fetc", json={"summary": "x"}, headers=AUTH)
    assert weird.status_code == 404


def test_the_review_queue_approves_and_rejects_what_the_cli_would(
    client: TestClient, example: Path, twin: Path
) -> None:
    for root in (example, twin):
        for summary in ("Snapshot tests live beside their component", "Vendor nothing under web/"):
            cli(root, "learning", "propose", "--summary", summary, "--tag", "review")
    listed = client.get("/api/learnings", params={"status": "proposed"}).json()
    proposed = [r["id"] for r in listed["results"]]
    assert len(proposed) == 2 and listed["stats"]["proposed"] == 2
    first, second = proposed
    approved = client.post(f"/api/learnings/{first}/approve", headers=AUTH)
    assert approved.status_code == 200 and approved.json()["changed"] == [FILE.format(first)]
    rejected = client.post("/api/bulk", json={"action": "reject", "ids": [second]}, headers=AUTH)
    assert rejected.json()["changed"] == [FILE.format(second)]
    cli(twin, "learning", "approve", first)
    cli(twin, "learning", "reject", second)
    stamps = ("created_at", "updated_at")  # the two proposals were made seconds apart
    page, terminal = (
        {k: v for k, v in learning_data(root, first).items() if k not in stamps}
        for root in (example, twin)
    )
    assert page == terminal and page["status"] == "active"
    assert not (example / ".orbit/learnings" / second).exists()
    again = client.post(f"/api/learnings/{first}/reject", headers=AUTH)
    assert again.status_code >= 400 and "not a proposal" in again.json()["error"]


def test_api_refusals_name_fields_never_cli_flags_and_a_tag_is_one_word(
    client: TestClient, example: Path
) -> None:
    before = learning_text(example, "L-0003")
    empty = client.patch("/api/learnings/L-0003", json={"summary": "  "}, headers=AUTH).json()
    assert empty["error"] == "a learning needs a non-empty summary" and empty["field"] == "summary"
    spaced = client.patch("/api/learnings/L-0003", json={"tags": ["two words"]}, headers=AUTH)
    assert spaced.status_code == 422 and spaced.json()["field"] == "tags"
    assert (
        spaced.json()["error"] == "tag 'two words' has a space; a tag is one word (say 'two-words')"
    )
    bulk = client.post(
        "/api/bulk", json={"action": "add-tag", "ids": ["L-0003"], "tag": "two words"}, headers=AUTH
    ).json()
    assert bulk.get("changed", []) == [] and "has a space" in json.dumps(bulk)
    upvote = client.post(
        "/api/learnings/L-0003/upvote", json={"model": "", "task": "T-1"}, headers=AUTH
    )
    for answer in (empty, spaced.json(), bulk, upvote.json()):
        assert "--" not in json.dumps(answer), answer
    assert learning_text(example, "L-0003") == before
