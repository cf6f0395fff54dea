"""The dashboard: Knowledge > Learnings, a page and a thin HTTP API over the core.

Starlette under uvicorn. The API calls the same core functions as the CLI
(`queries`, `store.supersede`, `staleness`), so the page and the terminal never
disagree. State-changing requests need the start-up token in the
`X-Orbit-Token` header and must come from the page's own origin: another web
page in the user's browser can neither read the token nor send the header
without a CORS preflight, which this server never grants.
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from orbit_learnings.core.errors import NotFound, OrbitError, UsageError
from orbit_learnings.core.ids import EXAMPLE_ID, STATUS_CHOICES, STATUSES, is_learning_id
from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import Scope
from orbit_learnings.integrations.dashboard.openapi import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    OPENAPI,
    TOKEN_HEADER,
)
from orbit_learnings.retrieval import queries
from orbit_learnings.store import bundles as store
from orbit_learnings.store.workspace import Workspace


class StaleCache:
    """Staleness needs git: compute it once per index state, not on every request."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.key: str | None = None
        self.reasons: dict[str, list[str]] = {}

    def get(self, quick: str | None = None) -> dict[str, list[str]]:
        """`quick` is the store's one-number state (see freshness.scan), passed in when the
        caller has just read it; git history moves too, so entries also expire by minute."""
        from orbit_learnings.curation.staleness import find_stale
        from orbit_learnings.index.freshness import scan

        if quick is None:
            quick = scan(self.ws).quick
        key = f"{quick}:{int(time.time() // 60)}"
        if key != self.key:
            report = find_stale(self.ws)
            self.reasons = {s.id: s.reasons for s in report.stale}
            self.key = key
        return self.reasons


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()):  # "²".isdigit() is True
        raise HTTPException(400, f"{name} must be a non-negative integer")
    return max(low, min(int(raw), high))


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def build_app(ws: Workspace, token: str, *, host: str = "127.0.0.1") -> Starlette:
    """The page and its API. Only requests naming this machine (or the host it was told
    to serve) are answered: another Host header is a DNS-rebinding page reading the store."""
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    api = Api(ws, token)
    routes = [
        Route("/", page),
        Route("/api/learnings", api.list_learnings),
        Route("/api/learnings/{learning_id}", api.show),
        Route("/api/learnings/{learning_id}/supersede", api.supersede, methods=["POST"]),
        Route("/openapi.json", openapi),
    ]
    hosts = [*LOCAL_HOSTS, host] if host not in ("0.0.0.0", "::") else ["*"]
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error},
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
    )


class Api:
    """The JSON endpoints for one workspace; every answer comes from the shared read paths."""

    def __init__(self, ws: Workspace, token: str) -> None:
        self.ws = ws
        self.token = token
        self.stale_cache = StaleCache(ws)

    def stats(self) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """Store-wide figures and stale reasons by id; one index open serves both (its
        quick number keys the staleness cache)."""
        from orbit_learnings.index import reads
        from orbit_learnings.index.build import open_fresh

        with open_fresh(self.ws) as fresh:
            counts = reads.counts_by_status(fresh.conn)
            meta = reads.meta_values(fresh.conn, "last_indexed", "quick")
            tags = reads.active_tags(fresh.conn)
        stale = self.stale_cache.get(meta["quick"] or None)  # "" while files are too young
        overview = {
            "total": sum(counts.values()),
            **{status: counts.get(status, 0) for status in STATUSES},
            "stale": len(stale),
            "last_indexed": meta["last_indexed"],
            "tags": tags,
        }
        return overview, stale

    def list_learnings(self, request: Request) -> Response:  # sync: run in a worker thread
        from orbit_learnings.retrieval.confidence import THRESHOLD as CONFIDENT_MATCH
        from orbit_learnings.store.feedback import confidence_for

        limit = _int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        offset = _int_param(request, "offset", 0, 0, 10**9)
        try:
            hits = _matching_hits(self.ws, request)
        except OrbitError as exc:
            raise HTTPException(400, exc.message) from None
        page = hits[offset : offset + limit]
        confidence = confidence_for(self.ws, [h.id for h in page])
        overview, stale = self.stats()
        rows = [
            {**h.to_dict(), "confidence": confidence[h.id].confidence, "stale": stale.get(h.id, [])}
            for h in page
        ]
        return JSONResponse(
            {
                "results": rows,
                "matching": len(hits),
                "confident_match": CONFIDENT_MATCH,
                "offset": offset,
                "limit": limit,
                "stats": overview,
            }
        )

    def show(self, request: Request) -> Response:
        learning_id = request.path_params["learning_id"]
        if not is_learning_id(learning_id):
            return _error(404, f"no learning {learning_id}")
        try:
            record = queries.show_learning(self.ws, learning_id).record
        except NotFound as exc:
            return _error(404, exc.message)
        record["stale"] = self.stale_cache.get().get(learning_id, [])
        return JSONResponse(record)

    async def supersede(self, request: Request) -> Response:
        refused = _refuse_write(request, self.token)
        if refused is not None:
            return refused
        try:
            body = json.loads(await request.body() or b"null")
        except ValueError:
            body = None
        new_id = body.get("by") if isinstance(body, dict) else None
        if not isinstance(new_id, str) or not new_id.strip():
            return _error(400, f'body must be JSON like {{"by": "{EXAMPLE_ID}"}}')
        old_id = request.path_params["learning_id"]
        try:  # blocking work off the event loop: one slow request never stalls the others
            old, new = await run_in_threadpool(store.supersede, self.ws, old_id, new_id.strip())
        except NotFound as exc:
            return _error(404, exc.message)
        except OrbitError as exc:
            return _error(400 if isinstance(exc, UsageError) else 409, exc.message)
        return JSONResponse({"old": old.to_dict(), "new": new.to_dict()})


def _matching_hits(ws: Workspace, request: Request) -> list[Hit]:
    """The list page's rows: text search when `q` is given, else the scope lookup."""
    params = request.query_params
    status = params.get("status") or "active"
    if status not in STATUS_CHOICES:
        raise HTTPException(400, f"status must be one of {', '.join(STATUS_CHOICES)}")
    tags = [t for t in params.getlist("tag") if t.strip()]
    scope = (params.get("scope") or "").strip()
    text = (params.get("q") or "").strip()
    if not text:
        lookup = Scope([scope] if scope else [], tags)
        return queries.list_learnings(ws, lookup, status=status, cwd=ws.root_dir).hits
    hits = queries.search_text(ws, text, tags=tags, status=status, limit=None).hits
    if scope:
        listed = queries.list_learnings(ws, Scope([scope]), status=status, cwd=ws.root_dir)
        in_scope = {h.id for h in listed.hits}
        hits = [h for h in hits if h.id in in_scope]
    return hits


def _refuse_write(request: Request, token: str) -> Response | None:
    """Writes need the same origin and the token `orbit dashboard` printed."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return _error(403, "cross-origin requests may not change the store")
    if request.headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        return _error(403, "cross-site requests may not change the store")
    given = request.headers.get(TOKEN_HEADER, "")
    if not hmac.compare_digest(given.encode(), token.encode()):
        return _error(
            401, f"missing or wrong {TOKEN_HEADER}; use the token `orbit dashboard` printed"
        )
    return None


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


async def openapi(request: Request) -> Response:
    return JSONResponse(OPENAPI)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(exc.status_code, str(exc.detail))


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
    uvicorn.run(build_app(ws, token, host=host), host=host, port=port, log_level="warning")


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
