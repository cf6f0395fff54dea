"""The dashboard's HTTP API, in process, plus a property test that it never answers 500."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route
from starlette.testclient import TestClient

from orbit_learnings.integrations.dashboard.app import build_app
from orbit_learnings.store.changes import Changes, update_learning
from orbit_learnings.store.workspace import Workspace
from tests.testing import CliRunner, dashboard_app

TOKEN = "test-token"


@pytest.fixture
def client(example: Path) -> TestClient:
    (example / "db/migrations").mkdir(parents=True)
    (example / "db/migrations/0001_init.sql").write_text("")
    client = TestClient(build_app(Workspace(example), TOKEN), base_url="http://127.0.0.1:8765")
    settle(client)
    return client


def settle(client: TestClient) -> None:
    """Wait for the background staleness check to catch up with the files."""
    dashboard_app(client).state.api.stale_cache.fresh(timeout=30)


def test_list_with_stats_and_paging(client: TestClient) -> None:
    data = client.get("/api/learnings", params={"limit": 5}).json()
    assert len(data["results"]) == 5 and data["matching"] == 15
    stats = data["stats"]
    assert (stats["total"], stats["active"], stats["superseded"], stats["archived"]) == (
        16,
        15,
        1,
        0,
    )
    assert stats["last_indexed"].endswith("Z") and stats["stale"] >= 1
    second = client.get("/api/learnings", params={"limit": 5, "offset": 5}).json()
    assert not {r["id"] for r in data["results"]} & {r["id"] for r in second["results"]}
    row = data["results"][0]
    assert {
        "id",
        "summary",
        "tags",
        "paths",
        "vote_count",
        "confidence",
        "updated_at",
        "status",
        "stale",
    } <= set(row)


def test_filters_search_scope_status(client: TestClient) -> None:
    def ids(**params: str) -> list[str]:
        return [r["id"] for r in client.get("/api/learnings", params=params).json()["results"]]

    assert set(ids(tag="database")) == {"L-0002", "L-0013"}
    assert ids(q="redis")[0] == "L-0005"
    assert set(ids(scope="db/migrations/0042.sql")) == {"L-0002", "L-0013"}
    assert set(ids(scope="db/")) == {"L-0002", "L-0013"}
    assert ids(q="migration", scope="services/") == ["L-0013"]
    assert ids(status="superseded") == ["L-0001"]
    stale_ids = {
        r["id"]
        for r in client.get("/api/learnings", params={"limit": 50}).json()["results"]
        if r["stale"]
    }
    assert "L-0002" not in stale_ids and "L-0003" in stale_ids  # db/migrations has a file now


def test_detail_and_404(client: TestClient) -> None:
    record = client.get("/api/learnings/L-0005").json()
    assert record["vote_count"] == 4 and len(record["votes"]) == 4
    assert (
        record["confidence"] == 0.5
        and "times_helpful" in record
        and isinstance(record["stale"], list)
    )
    missing = client.get("/api/learnings/L-0404")
    assert missing.status_code == 404 and "no learning L-0404" in missing.json()["error"]


def test_supersede_needs_token_and_same_origin(client: TestClient, example: Path) -> None:
    url = "/api/learnings/L-0002/supersede"
    assert client.post(url, json={"by": "L-0013"}).status_code == 401
    assert (
        client.post(url, json={"by": "L-0013"}, headers={"X-Orbit-Token": "nope"}).status_code
        == 401
    )
    evil = client.post(
        url,
        json={"by": "L-0013"},
        headers={"X-Orbit-Token": TOKEN, "Origin": "http://evil.example"},
    )
    assert evil.status_code == 403
    cross = client.post(
        url, json={"by": "L-0013"}, headers={"X-Orbit-Token": TOKEN, "Sec-Fetch-Site": "cross-site"}
    )
    assert cross.status_code == 403
    assert "status: active" in (example / ".orbit/learnings/L-0002/learning.yaml").read_text()
    ok = client.post(
        url,
        json={"by": "L-0013"},
        headers={"X-Orbit-Token": TOKEN, "Origin": "http://127.0.0.1:8765"},
    )
    assert ok.status_code == 200 and ok.json()["old"]["superseded_by"] == "L-0013"
    again = client.post(url, json={"by": "L-0013"}, headers={"X-Orbit-Token": TOKEN})
    assert again.status_code == 409 and "already superseded" in again.json()["error"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"not json", 400),
        (b"[]", 400),
        (b'{"by": 3}', 400),
        (b'{"by": "L-0404"}', 404),
        (b'{"by": "L-0002"}', 400),
    ],
)
def test_supersede_refusals_are_json_4xx(client: TestClient, body: bytes, status: int) -> None:
    response = client.post(
        "/api/learnings/L-0002/supersede",
        content=body,
        headers={"X-Orbit-Token": TOKEN, "Content-Type": "application/json"},
    )
    assert response.status_code == status and "error" in response.json()


def test_openapi_document_describes_every_api_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    routes = {
        (route.path, method.lower())
        for route in dashboard_app(client).routes
        if isinstance(route, Route) and route.path.startswith("/api/")
        for method in (route.methods or set()) - {"HEAD"}
    }
    documented = {(path, method) for path, item in spec["paths"].items() for method in item}
    assert routes == documented
    assert len(routes) == 9


def test_page_is_served_without_a_build_step(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "Knowledge" in page.text and "<script>" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]


text = st.text(max_size=40)
flag = st.one_of(text, st.sampled_from(["1", "0", "true"]))
params = st.fixed_dictionaries(
    {},
    optional={
        "q": text,
        "scope": text,
        "path": text,
        "tag": text,
        "status": text,
        "sort": st.one_of(text, st.sampled_from(["-votes", "confidence", "updated", "id"])),
        "stale": flag,
        "low_confidence": flag,
        "never_injected": flag,
        "unused": flag,
        "limit": st.one_of(text, st.integers(-5, 10**6).map(str)),
        "offset": st.one_of(text, st.integers(-5, 10**9).map(str)),
    },
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
bodies = st.one_of(
    st.binary(max_size=60),
    st.dictionaries(
        st.sampled_from(["summary", "body", "paths", "tags", "by", "model", "task", "action",
                         "ids", "tag", "x"]),
        json_values,
        max_size=4,
    ).map(lambda d: json.dumps(d).encode()),
)  # fmt: skip
WRITES = [
    ("PATCH", "/api/learnings/{}"),
    ("POST", "/api/learnings/{}/supersede"),
    ("POST", "/api/learnings/{}/upvote"),
    ("POST", "/api/learnings/{}/archive"),
    ("POST", "/api/bulk"),
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    query=params,
    learning_id=st.one_of(text, st.sampled_from(["L-0002", "L-0013", "U-0001"])),
    body=bodies,
    write=st.sampled_from(WRITES),
)
def test_the_api_never_answers_500(
    client: TestClient,
    query: dict[str, str],
    learning_id: str,
    body: bytes,
    write: tuple[str, str],
) -> None:
    quoted = quote(learning_id, safe="")
    assert client.get("/api/learnings", params=query).status_code < 500
    assert client.get(f"/api/learnings/{quoted}").status_code < 500
    method, url = write
    response = client.request(
        method, url.format(quoted), content=body, headers={"X-Orbit-Token": TOKEN}
    )
    assert response.status_code < 500
    if response.status_code >= 400:  # one line of JSON, never a page or a traceback
        assert isinstance(response.json()["error"], str) and "\n" not in response.text


def test_staleness_follows_a_change_to_the_store(client: TestClient, example: Path) -> None:
    def stale_ids() -> set[str]:
        rows = client.get("/api/learnings", params={"limit": 50}).json()["results"]
        return {r["id"] for r in rows if r["stale"]}

    assert "L-0003" in stale_ids()
    update_learning(Workspace(example), "L-0003", Changes(paths=["db/**"]))
    pending = client.get("/api/learnings", params={"limit": 50}).json()["stats"]
    assert pending["stale_pending"] is True  # answered at once, with the last known report
    settle(client)
    assert "L-0003" not in stale_ids()


def test_a_personal_learning_the_list_shows_can_be_opened(
    client: TestClient, orbit: CliRunner
) -> None:
    """The ID check once accepted only `L-…`: `U-0001` was listed, then answered 404."""
    added = orbit("learning", "add", "--summary", "Mine only", "--tag", "me", "--level", "user")
    assert added.code == 0 and added.out.strip() == "U-0001"
    listed = client.get("/api/learnings", params={"tag": "me"}).json()["results"]
    assert [r["id"] for r in listed] == ["U-0001"]
    opened = client.get("/api/learnings/U-0001")
    assert opened.status_code == 200 and opened.json()["summary"] == "Mine only"


@pytest.mark.parametrize(
    ("host", "status"),
    [("127.0.0.1:8765", 200), ("localhost:8765", 200), ("[::1]:8765", 200), ("evil.example", 400)],
)
def test_only_requests_naming_this_machine_are_answered(
    client: TestClient, host: str, status: int
) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 must read nothing."""
    response = client.get("/api/learnings", headers={"Host": host})
    assert response.status_code == status
    if status == 400:
        assert "L-0002" not in response.text


def test_the_favicon_is_served_and_the_page_names_it(client: TestClient) -> None:
    """A browser asks for /favicon.ico on every page load; it was a 404."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.startswith("<svg") and len(icon.content) < 1024
    assert '<link rel="icon" href="/favicon.ico"' in client.get("/").text
