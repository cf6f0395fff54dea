"""What every dashboard endpoint shares: one-line JSON errors, the write guard, parameters.

Every refusal is `{"error": "..."}` with a 4xx status (never a 500 and never HTML),
so the page can show it next to the control that caused it.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orbit_learnings.core.errors import NotFound, OrbitError, UsageError, ValidationFailed
from orbit_learnings.core.numbers import whole_number
from orbit_learnings.integrations.dashboard.openapi import TOKEN_HEADER
from orbit_learnings.store.fileops import MAX_FILE_BYTES

# A request carries at most one learning's worth of text: the readers' bound on a file.
MAX_BODY = MAX_FILE_BYTES


def error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def refuse_write(request: Request, token: str) -> Response | None:
    """Writes need the same origin and the token `orbit dashboard` printed."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return error(403, "cross-origin requests may not change the store")
    if request.headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        return error(403, "cross-site requests may not change the store")
    given = request.headers.get(TOKEN_HEADER, "")
    if not hmac.compare_digest(given.encode(), token.encode()):
        return error(
            401, f"missing or wrong {TOKEN_HEADER}; use the token `orbit dashboard` printed"
        )
    return None


async def json_object(request: Request, example: str, *, empty_ok: bool = False) -> dict[str, Any]:
    """The request body as a JSON object, or a 400 that shows the expected shape; an
    action that needs nothing (`empty_ok`) may have no body at all."""
    raw = await capped_body(request)
    if empty_ok and not raw.strip():
        return {}
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise HTTPException(400, f"body must be a JSON object like {example}")
    return body


async def capped_body(request: Request) -> bytes:
    """The request body, refused with a 413 before it is buffered when it is too large:
    by its declared Content-Length without reading a byte, else (chunked) as soon as
    what arrived passes `MAX_BODY`."""
    declared = request.headers.get("content-length")
    length = whole_number(declared.strip()) if declared is not None else None
    if length is not None and length > MAX_BODY:
        raise HTTPException(413, f"body larger than {MAX_BODY} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise HTTPException(413, f"body larger than {MAX_BODY} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def string_field(body: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise HTTPException(400, f"{name} must be a string")
    return value


def string_list(body: dict[str, Any], name: str) -> list[str] | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HTTPException(400, f"{name} must be a list of strings")
    return value


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    number = whole_number(raw)
    if number is None:
        raise HTTPException(400, f"{name} must be a non-negative integer")
    return max(low, min(number, high))


def flag_param(request: Request, name: str) -> bool:
    raw = (request.query_params.get(name) or "").strip().lower()
    if raw in ("", "0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise HTTPException(400, f"{name} must be 1 or 0")


FIELDS = ("summary", "body", "paths", "tags")


def field_of(message: str) -> str | None:
    """Which edited field a store refusal is about, so the page shows it beside that field."""
    import re

    lowered = message.lower()
    if any(k in lowered for k in ("glob", "scope.paths", "--path", "outside the workspace")):
        return "paths"
    if re.search(r"scope\.tags|\btags?\b", lowered):
        return "tags"
    if "scope" in lowered:
        return "paths"
    return next((f for f in FIELDS if re.search(rf"\b{f}\b", lowered)), None)


def store_error(exc: OrbitError) -> JSONResponse:
    """A store refusal as JSON: 404 for an unknown ID, 422 with the field for content the
    store rejects, 409 for a state that forbids the change."""
    if isinstance(exc, NotFound):
        return error(404, exc.message)
    if isinstance(exc, ValidationFailed):
        problems = [{**p.to_dict(), "field": field_of(p.message)} for p in exc.problems]
        first = problems[0]["field"] if problems else None
        return error(422, exc.message, field=first, problems=problems)
    if isinstance(exc, UsageError):
        field = field_of(exc.message)
        return error(400 if field is None else 422, exc.message, field=field)
    field = field_of(exc.message)
    return error(409 if field is None else 422, exc.message, field=field)
