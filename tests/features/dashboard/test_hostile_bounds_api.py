"""Hostile repositories (#31): the page's doors keep the readers' bounds.

What a request may write is what a reader takes (`store.fileops.MAX_FILE_BYTES`, one
learning's worth): a body past it is refused before it is buffered, a summary, a tag or
a task ID past its own bound is refused with the field, bulk tags are read under the
store lock, and a learning ID no store can hold is a 404, never a 500.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.types import Message

from orbit_learnings.integrations.dashboard.app import build_app
from orbit_learnings.store.fileops import MAX_FILE_BYTES
from orbit_learnings.store.workspace import Workspace

TOKEN = "test-token"
AUTH = {"X-Orbit-Token": TOKEN}
FILE = ".orbit/learnings/{}/learning.yaml"


@pytest.fixture
def client(example: Path) -> TestClient:
    return TestClient(build_app(Workspace(example), TOKEN), base_url="http://127.0.0.1:8765")


def listed(client: TestClient) -> set[str]:
    answer = client.get("/api/learnings?limit=500&status=all")
    assert answer.status_code == 200, answer.text
    return {row["id"] for row in answer.json()["results"]}


def test_two_600_kb_patches_never_make_a_learning_vanish(client: TestClient, example: Path) -> None:
    """Summary then body, 600 KB each: both answered 200 before, and the 1.2 MB file left
    the list, search and hooks. Now the summary is refused by its field, and the file
    never passes the bound whatever is sent."""
    summary = client.patch("/api/learnings/L-0003", json={"summary": "s" * 600_000}, headers=AUTH)
    assert summary.status_code == 422 and summary.json()["field"] == "summary"
    body = client.patch("/api/learnings/L-0003", json={"body": "b" * 600_000}, headers=AUTH)
    assert body.status_code == 200
    again = client.patch("/api/learnings/L-0003", json={"body": "a\n" * 340_000}, headers=AUTH)
    assert again.status_code == 422 and again.json()["field"] == "body"
    assert (example / FILE.format("L-0003")).stat().st_size <= MAX_FILE_BYTES
    assert "L-0003" in listed(client)


def test_a_page_upvote_with_a_600_kb_task_is_refused_and_votes_still_count(
    client: TestClient, example: Path
) -> None:
    path = "/api/learnings/L-0001/upvote"
    first = client.post(path, json={"model": "human", "task": "review-1"}, headers=AUTH)
    assert first.status_code == 200, first.text
    count = first.json()["vote_count"]
    huge = client.post(path, json={"model": "human", "task": "t" * 600_000}, headers=AUTH)
    assert huge.status_code == 400 and "task ID is at most" in huge.json()["error"]
    later = client.post(path, json={"model": "human", "task": "review-2"}, headers=AUTH)
    assert later.status_code == 200 and later.json()["vote_count"] == count + 1, later.text
    assert client.get("/api/learnings/L-0001").json()["vote_count"] == count + 1


def test_two_bulk_add_tags_at_once_both_land(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving that lost a tag in 12 of 12 pairs, made to happen every time:
    while the first request reads the learning, the second runs whole. Read under the
    store lock, the second waits for the first, and both tags land."""
    from orbit_learnings.integrations.dashboard import writes
    from orbit_learnings.store import bundles

    ws = Workspace(example)
    first_thread = threading.get_ident()
    second_done = threading.Event()
    original = bundles.read_learning
    paused: list[bool] = []

    def second() -> None:
        writes.bulk(ws, {"action": "add-tag", "tag": "beta", "ids": ["L-0002"]})
        second_done.set()

    def read_learning(*args: Any) -> Any:
        found = original(*args)
        if threading.get_ident() == first_thread and not paused:
            paused.append(True)
            threading.Thread(target=second, daemon=True).start()
            second_done.wait(timeout=3)  # ends early only when the second was not held off
        return found

    monkeypatch.setattr(bundles, "read_learning", read_learning)
    answer = writes.bulk(ws, {"action": "add-tag", "tag": "alpha", "ids": ["L-0002"]})
    assert second_done.wait(timeout=60)
    assert answer["changed"] == [FILE.format("L-0002")]
    tags = original(ws, "L-0002").tags
    assert "alpha" in tags and "beta" in tags, tags


class Upload:
    """An ASGI request body sent in 64 KiB chunks, counting what the app pulled."""

    CHUNK = 64 * 1024

    def __init__(self, total: int) -> None:
        self.total = total
        self.sent = 0

    async def receive(self) -> dict[str, Any]:
        size = min(self.CHUNK, self.total - self.sent)
        self.sent += size
        return {"type": "http.request", "body": b" " * size, "more_body": self.sent < self.total}


def patch_request(example: Path, upload: Upload, *, declared: bool) -> tuple[int, int]:
    """(status, bytes pulled) of a PATCH sent straight to the ASGI app."""
    app = build_app(Workspace(example), TOKEN)
    headers = [(b"host", b"127.0.0.1:8765"), (b"x-orbit-token", TOKEN.encode()),
               (b"content-type", b"application/json")]  # fmt: skip
    if declared:
        headers.append((b"content-length", str(upload.total).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "PATCH",
        "scheme": "http", "path": "/api/learnings/L-0003", "raw_path": b"/api/learnings/L-0003",
        "query_string": b"", "headers": headers, "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8765), "root_path": "",
    }  # fmt: skip
    status: list[int] = []

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    asyncio.run(app(scope, upload.receive, send))
    return status[0], upload.sent


def test_a_64_mb_patch_is_refused_by_its_length_before_a_byte_is_read(example: Path) -> None:
    status, pulled = patch_request(example, Upload(64 * 1024 * 1024), declared=True)
    assert status == 413
    assert pulled == 0  # all 64 MB before


def test_a_64_mb_chunked_patch_is_refused_once_it_passes_the_bound(example: Path) -> None:
    status, pulled = patch_request(example, Upload(64 * 1024 * 1024), declared=False)
    assert status == 413
    assert pulled <= MAX_FILE_BYTES + Upload.CHUNK  # all 64 MB before


@pytest.mark.parametrize(
    ("method", "suffix", "payload"),
    [
        ("patch", "", {"summary": "x"}),
        ("post", "/upvote", {"model": "m", "task": "t"}),
        ("post", "/archive", None),
        ("post", "/supersede", {"by": "L-0001"}),
    ],
)
def test_an_id_of_300_digits_is_a_404(
    client: TestClient, method: str, suffix: str, payload: dict[str, str] | None
) -> None:
    url = "/api/learnings/L-" + "1" * 300 + suffix
    answer = getattr(client, method)(url, headers=AUTH, **({"json": payload} if payload else {}))
    assert answer.status_code == 404, answer.text
    assert "no learning" in answer.json()["error"]


def test_bulk_and_supersede_name_an_id_of_300_digits_as_no_learning(client: TestClient) -> None:
    long_id = "L-" + "1" * 300
    bulk = client.post("/api/bulk", json={"action": "archive", "ids": [long_id]}, headers=AUTH)
    assert bulk.status_code == 200 and "no learning" in bulk.json()["results"][0]["error"]
    by = client.post("/api/learnings/L-0001/supersede", json={"by": long_id}, headers=AUTH)
    assert by.status_code == 404, by.text


def test_editing_a_file_that_ends_in_a_yaml_end_marker(client: TestClient, example: Path) -> None:
    """A new key goes before the `...` that ends the document: a 500 before."""
    path = example / FILE.format("L-0003")
    text = path.read_text()
    head = text[: text.index("summary:")].replace("scope:", "priority: 0\nscope:", 1)
    path.write_text(head + "summary: Money is integer cents\n...\n")
    answer = client.patch("/api/learnings/L-0003", json={"body": "Use int cents."}, headers=AUTH)
    assert answer.status_code == 200, answer.json().get("error")
    assert path.read_text().endswith("...\n") and "Use int cents." in path.read_text()
