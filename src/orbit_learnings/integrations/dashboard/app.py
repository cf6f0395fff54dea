"""The dashboard: Knowledge > Learnings, a page and a thin HTTP API over the core.

Starlette under uvicorn. Reads call the same functions as the CLI (`queries`), and
so do writes (`writes.py`: the store's update, upvote, supersede and archive), so the
page and the terminal never disagree. A page answers from the index and from caches
of whole-store facts: staleness, which needs git, is recomputed in the background
(`curation.stalecache`) and never on the request path. State-changing requests need
the start-up token in the `X-Orbit-Token` header and must come from the page's own
origin: another web page in the user's browser can neither read the token nor send
the header without a CORS preflight, which this server never grants.
"""

from __future__ import annotations

import secrets
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from orbit_learnings.core.errors import NotFound, OrbitError
from orbit_learnings.core.ids import STATUSES, is_learning_id
from orbit_learnings.curation.stalecache import StaleCache, StaleView
from orbit_learnings.integrations.dashboard import listing
from orbit_learnings.integrations.dashboard.facts import Helpfulness, InjectionLog, Unused
from orbit_learnings.integrations.dashboard.http import error
from orbit_learnings.integrations.dashboard.openapi import OPENAPI, TOKEN_HEADER
from orbit_learnings.integrations.dashboard.writes import Writes, changed_file
from orbit_learnings.retrieval import queries
from orbit_learnings.retrieval.confidence import THRESHOLD as CONFIDENT_MATCH
from orbit_learnings.store.layout import VOTES_FILE
from orbit_learnings.store.levels import for_id
from orbit_learnings.store.workspace import Workspace

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def build_app(ws: Workspace, token: str, *, host: str = "127.0.0.1") -> Starlette:
    """The page and its API. Only requests naming this machine (or the host it was told
    to serve) are answered: another Host header is a DNS-rebinding page reading the store."""
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    api = Api(ws)
    writes = Writes(ws, token)
    one = "/api/learnings/{learning_id}"
    routes = [
        Route("/", page),
        Route("/api/learnings", api.list_learnings),
        Route("/api/bulk", writes.bulk, methods=["POST"]),
        Route(one, api.show, methods=["GET"]),
        Route(one, writes.edit, methods=["PATCH"]),
        Route(f"{one}/supersede", writes.supersede, methods=["POST"]),
        Route(f"{one}/upvote", writes.upvote, methods=["POST"]),
        Route(f"{one}/archive", writes.archive, methods=["POST"]),
        Route(f"{one}/approve", writes.approve, methods=["POST"]),
        Route(f"{one}/reject", writes.reject, methods=["POST"]),
        Route("/openapi.json", openapi),
        Route("/favicon.ico", favicon),
    ]
    hosts = [*LOCAL_HOSTS, host] if host not in ("0.0.0.0", "::") else ["*"]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error},
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
    )
    app.state.api = api  # tests and the benchmark wait for the staleness cache through it
    return app


class Api:
    """The read endpoints for one workspace: the shared read paths plus cached facts."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.stale_cache = StaleCache(ws)
        self.helpfulness = Helpfulness(ws)
        self.injections = InjectionLog(ws)
        self.unused = Unused(ws, self.injections)

    def stats(self) -> tuple[dict[str, Any], StaleView]:
        """Store-wide figures and the last known stale reasons; one index open serves both
        (its freshness number is part of the staleness cache's key)."""
        from orbit_learnings.index import reads
        from orbit_learnings.index.build import open_fresh

        with open_fresh(self.ws) as fresh:
            counts = reads.counts_by_status(fresh.conn)
            meta = reads.meta_values(fresh.conn, "last_indexed", "quick")
            tags = reads.active_tags(fresh.conn)
        stale = self.stale_cache.current(meta["quick"] or None)
        overview = {
            "total": sum(counts.values()),
            **{status: counts.get(status, 0) for status in STATUSES},
            "stale": len(stale.reasons),
            "stale_pending": stale.pending,
            "stale_error": stale.error,
            "last_indexed": meta["last_indexed"],
            "tags": tags,
        }
        return overview, stale

    def list_learnings(self, request: Request) -> Response:  # sync: run in a worker thread
        query = listing.parse_query(request)
        overview, stale = self.stats()
        facts = listing.Facts(stale.reasons, self.helpfulness, self.injections, self.unused)
        try:
            facts.unused_days = self.unused.days() if query.unused else None
            rows, matching = listing.page_rows(self.ws, query, facts)
        except OrbitError as exc:
            raise HTTPException(400, exc.message) from None
        return JSONResponse(
            {
                "results": rows,
                "matching": matching,
                "confident_match": CONFIDENT_MATCH,
                "offset": query.offset,
                "limit": query.limit,
                "sort": query.sort,
                "unused_days": facts.unused_days,
                "stats": overview,
            }
        )

    def show(self, request: Request) -> Response:
        learning_id = request.path_params["learning_id"]
        if not is_learning_id(learning_id):
            return error(404, f"no learning {learning_id}")
        try:
            record = queries.show_learning(self.ws, learning_id).record
            ws = for_id(self.ws, learning_id)
        except NotFound as exc:
            return error(404, exc.message)
        stale = self.stale_cache.current()
        record["stale"] = stale.reasons.get(learning_id, [])
        record["stale_pending"] = stale.pending
        record["injections"] = self.injections.times_of(learning_id)
        if record.get("anchors"):
            from orbit_learnings.curation.anchors.report import anchor_report

            record["anchor_states"] = [s.to_dict() for s in anchor_report(ws, [learning_id])]
        record["files"] = {
            "learning": changed_file(ws, learning_id),
            "votes": changed_file(ws, learning_id, VOTES_FILE),
        }
        return JSONResponse(record)


async def page(request: Request) -> Response:
    html = (
        resources.files("orbit_learnings.integrations.dashboard")
        .joinpath("dashboard.html")
        .read_text("utf-8")
    )
    return HTMLResponse(
        html,
        headers={
            "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:",
            "X-Content-Type-Options": "nosniff",
        },
    )


# An orbit: a dot and its ring, in the page's accent colour. SVG, which every current
# browser takes as an icon whatever the name says; a browser's own request for
# /favicon.ico was a 404 in the server's log on every page load.
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<circle cx="16" cy="16" r="11" fill="none" stroke="#3559e0" stroke-width="3"/>'
    '<circle cx="16" cy="16" r="4" fill="#3559e0"/><circle cx="25" cy="9" r="3" fill="#3559e0"/>'
    "</svg>"
)


async def favicon(request: Request) -> Response:
    return Response(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


async def openapi(request: Request) -> Response:
    return JSONResponse(OPENAPI)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


def new_token() -> str:
    return secrets.token_urlsafe(24)


def serve(ws: Workspace, host: str, port: int, token: str, *, open_browser: bool) -> None:
    import threading
    import webbrowser

    import uvicorn

    port = free_port_or_refuse(host, port)
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/#token={token}"
    print(f"orbit dashboard: {url}")
    print(f"token for changes (header {TOKEN_HEADER}): {token}")
    if open_browser:
        threading.Timer(0.8, lambda: webbrowser.open(url)).start()
    app = build_app(ws, token, host=host)
    app.state.api.stale_cache.current()  # start checking staleness before the first page asks
    uvicorn.run(app, host=host, port=port, log_level="warning")


def free_port_or_refuse(host: str, port: int) -> int:
    """The port to serve on, checked before anything is printed; port 0 picks a free one.

    A taken port is one clear line, not the server's traceback after the URL was shown.
    """
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((host, port))
            return int(probe.getsockname()[1])
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OrbitError(
            f"cannot listen on {host}:{port} ({reason}); "
            "pass --port N, or --port 0 for any free one"
        ) from None
