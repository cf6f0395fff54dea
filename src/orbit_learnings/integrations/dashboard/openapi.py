"""The dashboard API's OpenAPI document, served at /openapi.json (and read by tests)."""

from __future__ import annotations

from typing import Any

from orbit_learnings.core.ids import STATUS_CHOICES

TOKEN_HEADER = "X-Orbit-Token"
MAX_LIMIT = 500  # rows per page, at most
DEFAULT_LIMIT = 50


_LEARNING_ROW = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "summary": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "paths": {"type": "array", "items": {"type": "string"}},
        "matched_by": {"type": "array", "items": {"type": "string"}},
        "updated_at": {"type": "string"},
        "status": {"type": "string"},
        "vote_count": {"type": "integer"},
        "confidence": {"type": "number"},
        "match_confidence": {"type": "number"},  # text search only
        "score": {"type": "number"},
        "stale": {"type": "array", "items": {"type": "string"}},
    },
}
_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "orbit-learnings dashboard API", "version": "1"},
    "paths": {
        "/api/learnings": {
            "get": {
                "summary": "List, filter and search learnings (paged on the server)",
                "parameters": [
                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "scope",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "A file, folder or glob (containment, as `list --path`)",
                    },
                    {"name": "tag", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(STATUS_CHOICES)},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1}},
                    {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                ],
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {
                                "results": {"type": "array", "items": _LEARNING_ROW},
                                "matching": {"type": "integer"},
                                "confident_match": {"type": "number"},
                                "offset": {"type": "integer"},
                                "limit": {"type": "integer"},
                                "stats": {
                                    "type": "object",
                                    "properties": {
                                        k: {"type": "integer"}
                                        for k in (
                                            "total",
                                            "active",
                                            "superseded",
                                            "archived",
                                            "stale",
                                        )
                                    },
                                },
                            },
                        },
                        "A page of learnings and store statistics",
                    ),
                    "400": _json(_ERROR, "Bad parameter"),
                },
            }
        },
        "/api/learnings/{learning_id}": {
            "get": {
                "summary": "One learning in full, with votes, confidence and staleness",
                "parameters": [
                    {
                        "name": "learning_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": _json({"type": "object"}, "The record"),
                    "404": _json(_ERROR, "Unknown id"),
                },
            }
        },
        "/api/learnings/{learning_id}/supersede": {
            "post": {
                "summary": "Mark this learning superseded by another (needs the start-up token)",
                "parameters": [
                    {
                        "name": "learning_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {
                        "name": TOKEN_HEADER,
                        "in": "header",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"by": {"type": "string"}},
                                "required": ["by"],
                            }
                        }
                    },
                },
                "responses": {
                    "200": _json({"type": "object"}, "Both records"),
                    "400": _json(_ERROR, "Bad body"),
                    "401": _json(_ERROR, "No or wrong token"),
                    "403": _json(_ERROR, "Cross-origin"),
                    "404": _json(_ERROR, "Unknown id"),
                    "409": _json(_ERROR, "Refused (already superseded, not active, ...)"),
                },
            }
        },
    },
}
