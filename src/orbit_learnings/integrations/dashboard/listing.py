"""The list page's query: filters, sort order and paging over the shared read paths.

Rows come from `queries.list_learnings` (or `search_text` when there is text), so a
filter means what the CLI means by it: `path` is `list --path`'s containment, `tag`
compares case-insensitively as `list --tag` does. Every filter narrows the rows (a
tag and a path: learnings with both). Only the page's rows pay for per-row facts;
whole-store facts come from caches and are never computed on the request path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.exceptions import HTTPException
from starlette.requests import Request

from orbit_learnings.core.ids import LEVEL_CHOICES, STATUS_CHOICES
from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import Scope, tag_name
from orbit_learnings.integrations.dashboard.facts import (
    LOW_HELPFULNESS,
    Helpfulness,
    InjectionLog,
    Unused,
)
from orbit_learnings.integrations.dashboard.http import flag_param, int_param
from orbit_learnings.integrations.dashboard.openapi import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    OLD_SORTS,
    SORTS,
)
from orbit_learnings.retrieval import queries
from orbit_learnings.store.workspace import Workspace


@dataclass(frozen=True)
class ListQuery:
    """What the page asked for, checked; the URL of the page holds the same fields."""

    text: str = ""
    path: str = ""
    tags: list[str] = field(default_factory=list)
    status: str = "active"
    level: str = "all"  # project, user, org or all
    stale: bool = False
    low_helpfulness: bool = False
    never_injected: bool = False
    unused: bool = False
    sort: str = "rank"
    limit: int = DEFAULT_LIMIT
    offset: int = 0


def parse_query(request: Request) -> ListQuery:
    params = request.query_params
    status = params.get("status") or "active"
    if status not in STATUS_CHOICES:
        raise HTTPException(400, f"status must be one of {', '.join(STATUS_CHOICES)}")
    level = params.get("level") or "all"
    if level not in LEVEL_CHOICES:
        raise HTTPException(400, f"level must be one of {', '.join(LEVEL_CHOICES)}")
    # `sort=confidence` and `low_confidence`: the 0.1.0 names, honoured one more version
    sort = OLD_SORTS.get(params.get("sort") or "rank", params.get("sort") or "rank")
    if sort not in SORTS:
        raise HTTPException(400, f"sort must be one of {', '.join(SORTS)}")
    return ListQuery(
        text=(params.get("q") or "").strip(),
        path=(params.get("path") or params.get("scope") or "").strip(),
        tags=[t for t in params.getlist("tag") if tag_name(t)],
        status=status,
        level=level,
        stale=flag_param(request, "stale"),
        low_helpfulness=flag_param(request, "low_helpfulness")
        or flag_param(request, "low_confidence"),
        never_injected=flag_param(request, "never_injected"),
        unused=flag_param(request, "unused"),
        sort=sort,
        limit=int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        offset=int_param(request, "offset", 0, 0, 10**9),
    )


@dataclass
class Facts:
    """The caches a list page reads: stale reasons (last known), helpfulness, injections,
    and what nobody used lately (`unused_days` is its window when the filter is on)."""

    stale: dict[str, list[str]]
    helpfulness: Helpfulness
    injections: InjectionLog
    unused: Unused
    unused_days: int | None = None


def matching_hits(ws: Workspace, query: ListQuery) -> list[Hit]:
    """Rows for the text, the path, the tags or the whole store, narrowed by the others.

    Without text, the narrowest lookup comes first (a path, else the tags), so that only
    the rows it matches are loaded, in `list`'s own order; text search ranks by score.
    """
    status, root = query.status, ws.root_str
    if query.text:
        hits = queries.search_text(ws, query.text, status=status, limit=None).hits
    elif query.path or query.tags:
        lookup = Scope([query.path], []) if query.path else Scope([], query.tags)
        return _with_tags(queries.list_learnings(ws, lookup, status=status, cwd=root).hits, query)
    else:
        return queries.list_learnings(ws, status=status, cwd=root).hits
    if query.path:
        listed = queries.list_learnings(ws, Scope([query.path]), status=status, cwd=root)
        inside = {h.id for h in listed.hits}
        hits = [h for h in hits if h.id in inside]
    return _with_tags(hits, query)


def _with_tags(hits: list[Hit], query: ListQuery) -> list[Hit]:
    """Only learnings with any of the tags asked for, compared as `list --tag` compares."""
    if not query.tags:
        return hits
    wanted = {tag_name(t).casefold() for t in query.tags}
    return [h for h in hits if wanted.intersection(tag_name(t).casefold() for t in h.tags)]


def narrowed(hits: list[Hit], query: ListQuery, facts: Facts) -> list[Hit]:
    """The fact filters: stale (as last computed), low helpfulness, never injected lately,
    unused (no injection, vote or helpful mark in the team's window); and the level."""
    if query.level != "all":
        hits = [h for h in hits if h.level == query.level]
    if query.stale:
        hits = [h for h in hits if h.id in facts.stale]
    if query.unused:
        unused = facts.unused.ids(facts.unused_days or facts.unused.days())
        hits = [h for h in hits if h.id in unused]
    if query.never_injected:
        recent = facts.injections.recent()
        hits = [h for h in hits if h.status == "active" and h.id not in recent]
    if query.low_helpfulness:
        helpfulness = facts.helpfulness.of(h.id for h in hits)
        hits = [h for h in hits if helpfulness[h.id] < LOW_HELPFULNESS]
    return hits


def ordered(hits: list[Hit], sort: str, helpfulness: Helpfulness) -> list[Hit]:
    """Sorted by one column (`-` first: descending); ties keep the rank order."""
    column = sort.lstrip("-")
    if column == "rank":
        return hits
    descending = sort.startswith("-")
    if column == "helpfulness":
        found = helpfulness.of(h.id for h in hits)
        return sorted(hits, key=lambda h: found[h.id], reverse=descending)
    if column == "votes":
        return sorted(hits, key=lambda h: h.vote_count, reverse=descending)
    if column == "updated":
        return sorted(hits, key=lambda h: h.updated_at, reverse=descending)
    return sorted(hits, key=lambda h: h.id, reverse=descending)


def page_rows(ws: Workspace, query: ListQuery, facts: Facts) -> tuple[list[dict[str, object]], int]:
    """The page's rows as JSON objects, and how many rows match in all."""
    hits = ordered(narrowed(matching_hits(ws, query), query, facts), query.sort, facts.helpfulness)
    page = hits[query.offset : query.offset + query.limit]
    helpfulness = facts.helpfulness.of(h.id for h in page)
    rows = [
        {
            **h.to_dict(),
            "helpfulness": helpfulness[h.id],
            "confidence": helpfulness[h.id],  # the 0.1.0 name; drop after the next release
            "stale": facts.stale.get(h.id, []),
        }
        for h in page
    ]
    return rows, len(hits)
