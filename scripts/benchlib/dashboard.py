"""`--dashboard`: the dashboard's three API pages through Starlette's TestClient, warm and
right after one learning changed on disk (printed, never written to the docs)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchlib.measure import table, table_head, timed
from benchlib.store import ROOT, code_files, generate

if TYPE_CHECKING:
    from starlette.testclient import TestClient

DASHBOARD_PAGES = {
    "dashboard_first_page": "/api/learnings?limit=50",
    "dashboard_filtered_page": "/api/learnings?limit=50&tag=security&scope=services/billing/"
    "&sort=-votes",
    "dashboard_search_page": "/api/learnings?limit=50&q=retries+billing",
}


def bench_dashboard(count: int, repeats: int) -> dict[str, object]:
    """The dashboard's three pages through Starlette's TestClient (in process: the ASGI
    app and the JSON encoding, without a socket), warm and right after one learning
    changed on disk (the freshness check re-reads it, and whole-store facts such as
    staleness are keyed by that change)."""
    from starlette.testclient import TestClient

    from orbit_learnings.index import build as index
    from orbit_learnings.integrations.dashboard.app import build_app
    from orbit_learnings.store.workspace import Workspace

    tmp = Path(tempfile.mkdtemp(prefix=f"orbit-bench-dash-{count}-"))
    try:
        generate(tmp, count)
        code_files(tmp)
        ws = Workspace(tmp)
        os.chdir(tmp)
        time.sleep(1.1)  # past the index's racy window
        index.sync(ws)
        client = TestClient(build_app(ws, "bench"), base_url="http://127.0.0.1:8765")
        result: dict[str, object] = {"learnings": count}
        settle(client)
        for name, url in DASHBOARD_PAGES.items():
            result[name] = timed(fetch(client, url), repeats)
        victim = ws.learnings_dir / "L-0002" / "learning.yaml"
        original = victim.read_text()
        counter = iter(range(10**6))

        def change_then(url: str) -> Callable[[], object]:
            def run() -> object:
                victim.write_text(original.replace("lesson 2 ", f"lesson 2 v{next(counter)} "))
                past = time.time_ns() - 5_000_000_000  # not racy: the quick path is taken
                os.utime(victim, ns=(past, past))
                return client.get(url).raise_for_status()

            return run

        changed = max(3, repeats // 3)
        for name, url in DASHBOARD_PAGES.items():
            result[f"{name}_after_change"] = timed(change_then(url), changed)
        return result
    finally:
        os.chdir(ROOT)
        shutil.rmtree(tmp, ignore_errors=True)


def fetch(client: TestClient, url: str) -> Callable[[], object]:
    """One page, which must answer."""
    return lambda: client.get(url).raise_for_status()


def settle(client: TestClient) -> None:
    """Let a background recomputation of whole-store facts finish before warm timings."""
    for _ in range(600):
        stats = client.get("/api/learnings?limit=1").json()["stats"]
        if not stats.get("stale_pending"):
            return
        time.sleep(0.1)


def dashboard_markdown(results: list[dict[str, object]]) -> str:
    sizes = [r["learnings"] for r in results]
    rows = table_head("dashboard API, TestClient (median / p95 ms)", sizes)
    for key, label in [
        ("dashboard_first_page", "first list page, warm"),
        ("dashboard_filtered_page", "filtered page (tag + path, by votes), warm"),
        ("dashboard_search_page", "search page, warm"),
        ("dashboard_first_page_after_change", "first list page, one learning changed"),
        ("dashboard_filtered_page_after_change", "filtered page, one learning changed"),
        ("dashboard_search_page_after_change", "search page, one learning changed"),
    ]:
        cells = [
            f"{table(r, key)['median_ms']:.1f} / {table(r, key)['p95_ms']:.1f}" for r in results
        ]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"
