"""The dashboard API's OpenAPI document, served at /openapi.json (and read by tests)."""

from __future__ import annotations

from typing import Any

from orbit_learnings.core.ids import LEVEL_CHOICES, STATUS_CHOICES

TOKEN_HEADER = "X-Orbit-Token"
MAX_LIMIT = 500  # rows per page, at most
DEFAULT_LIMIT = 50
# "rank" is the lookup's (or the search's) own order; a leading "-" sorts descending
SORTS = (
    "rank",
    *(f"{sign}{c}" for c in ("id", "votes", "helpfulness", "updated") for sign in ("", "-")),
)
OLD_SORTS = {"confidence": "helpfulness", "-confidence": "-helpfulness"}  # 0.1.0's names


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
        "helpfulness": {"type": "number"},  # from feedback: 0.1-1.0, 0.5 when unrated
        "confidence": {"type": "number", "deprecated": True},  # helpfulness's 0.1.0 name
        "match_confidence": {"type": "number"},  # text search only
        "confident": {"type": "boolean"},  # text search only: reaches the threshold
        "score": {"type": "number"},
        "stale": {"type": "array", "items": {"type": "string"}},
        "level": {"type": "string"},
    },
}
_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}


_STRINGS = {"type": "array", "items": {"type": "string"}}
_ID = {"name": "learning_id", "in": "path", "required": True, "schema": {"type": "string"}}
_TOKEN = {"name": TOKEN_HEADER, "in": "header", "required": True, "schema": {"type": "string"}}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _flag(name: str, description: str) -> dict[str, Any]:
    schema = {"type": "string", "enum": ["1", "0", "true", "false"]}
    return {"name": name, "in": "query", "schema": schema, "description": description}


def _write(
    summary: str,
    properties: dict[str, Any],
    ok: str,
    *,
    required: list[str] | None = None,
    with_id: bool = True,
) -> dict[str, Any]:
    """A state-changing operation: the token header, a JSON body, one-line JSON refusals."""
    body: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        body["required"] = required
    answer = {"type": "object", "properties": {"changed": _STRINGS}}
    return {
        "summary": summary + "; needs the start-up token",
        "parameters": [_ID, _TOKEN] if with_id else [_TOKEN],
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": {
            "200": _json(answer, ok + "; `changed` lists repo-relative paths"),
            "400": _json(_ERROR, "Bad body"),
            "401": _json(_ERROR, "No or wrong token"),
            "403": _json(_ERROR, "Cross-origin"),
            "404": _json(_ERROR, "Unknown id"),
            "409": _json(_ERROR, "Refused (already superseded, not active, ...)"),
            "422": _json(_ERROR, "Content the store refuses; `field` names the field"),
        },
    }


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
                        "name": "path",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "A file, folder or glob (containment, as `list --path`);"
                        " `scope` is the same parameter's older name",
                    },
                    {
                        "name": "tag",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "Repeatable: learnings with any of these tags",
                    },
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(STATUS_CHOICES)},
                    },
                    {
                        "name": "level",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(LEVEL_CHOICES)},
                        "description": "Only learnings of this store: project, user or org",
                    },
                    _flag("stale", "Only learnings the last staleness check found stale"),
                    _flag("low_helpfulness", "Only learnings whose helpfulness is below 0.5"),
                    {**_flag("low_confidence", "low_helpfulness's 0.1.0 name"), "deprecated": True},
                    _flag("never_injected", "Only active learnings not injected in 30 days"),
                    _flag(
                        "unused",
                        "Only active learnings older than `unused_days` (.orbit/config.yaml,"
                        " default 90) with no injection in this machine's log, vote or"
                        " helpful mark in that many days",
                    ),
                    {
                        "name": "sort",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(SORTS)},
                        "description": "A column; a leading `-` sorts descending",
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
                                "unused_days": {
                                    "type": ["integer", "null"],
                                    "description": "The window of `unused=1`; null without it",
                                },
                                "stats": {
                                    "type": "object",
                                    "properties": {
                                        **{
                                            k: {"type": "integer"}
                                            for k in (
                                                "total",
                                                "active",
                                                "proposed",
                                                "superseded",
                                                "archived",
                                                "stale",
                                            )
                                        },
                                        "stale_pending": {"type": "boolean"},
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
                "summary": "One learning in full: votes, helpfulness, staleness, injections, files",
                "parameters": [_ID],
                "responses": {
                    "200": _json({"type": "object"}, "The record"),
                    "404": _json(_ERROR, "Unknown id"),
                },
            },
            "patch": _write(
                "Edit summary, body, path globs or tags (as `orbit learning update`)",
                {
                    "summary": {"type": "string"},
                    "body": {"type": "string"},
                    "paths": _STRINGS,
                    "tags": _STRINGS,
                },
                "The learning and the changed file",
            ),
        },
        "/api/learnings/{learning_id}/supersede": {
            "post": _write(
                "Mark this learning superseded by another (as `orbit learning supersede`)",
                {"by": {"type": "string"}},
                "Both records and both changed files",
                required=["by"],
            )
        },
        "/api/learnings/{learning_id}/upvote": {
            "post": _write(
                "Vote for this learning (as `orbit learning upvote`; idempotent per model, task)",
                {"model": {"type": "string"}, "task": {"type": "string"}},
                "The vote count, and votes.jsonl when a vote was added",
                required=["model", "task"],
            )
        },
        "/api/learnings/{learning_id}/archive": {
            "post": _write(
                "Archive this learning (as `orbit learning prune --archive` does)",
                {},
                "The learning and the changed file (none when it was archived already)",
            )
        },
        "/api/learnings/{learning_id}/approve": {
            "post": _write(
                "Approve this proposal (as `orbit learning approve`): it becomes active",
                {},
                "The learning and the changed file",
            )
        },
        "/api/learnings/{learning_id}/reject": {
            "post": _write(
                "Reject this proposal (as `orbit learning reject`): its bundle is deleted",
                {},
                "The rejected ID and the changed file",
            )
        },
        "/api/bulk": {
            "post": _write(
                "Archive, approve or reject many learnings, or add a tag to many; each one "
                "succeeds or fails alone",
                {
                    "action": {
                        "type": "string",
                        "enum": ["archive", "add-tag", "approve", "reject"],
                    },
                    "ids": _STRINGS,
                    "tag": {"type": "string"},
                },
                "One result per learning and every changed file",
                required=["action", "ids"],
                with_id=False,
            )
        },
    },
}
