"""The page's changes: edit, upvote, archive, supersede and bulk actions.

Each one calls the very function the CLI command calls (`edits.update_learning` as
`orbit learning update`, `store.add_vote` as `upvote`, `edits.supersede` as
`supersede`, `edits.archive_learning` as `prune --archive`), with paths read as the
CLI reads them from the repository's root, so a file changed from the page is the
file the terminal would have written. Every answer names the files that changed,
repo-relative, because the reviewer commits them next.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orbit_learnings.core.errors import OrbitError, UsageError
from orbit_learnings.core.ids import is_learning_id
from orbit_learnings.core.model import Learning
from orbit_learnings.core.scope import tag_name
from orbit_learnings.integrations.dashboard.http import (
    FIELDS,
    json_object,
    refuse_write,
    store_error,
    string_field,
    string_list,
)
from orbit_learnings.store import bundles as store
from orbit_learnings.store import changes as edits
from orbit_learnings.store.layout import LEARNING_FILE, SIDECARS, VOTES_FILE
from orbit_learnings.store.levels import for_id
from orbit_learnings.store.workspace import Workspace, scope_glob

MAX_BULK = 500  # ids per bulk request
BULK_ACTIONS = ("archive", "add-tag", "approve", "reject")


def changed_file(ws: Workspace, learning_id: str, name: str = LEARNING_FILE) -> str:
    """The repo-relative path of a bundle's file, as `git status` shows it; a sidecar
    where it is written (an org learning's: this repository's `org-feedback/`)."""
    folder = ws.sidecar_home_str(learning_id) if name in SIDECARS else ws.bundle_dir(learning_id)
    return ws.relative(os.path.join(folder, name))


def edit(project: Workspace, learning_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """`orbit learning update ID [--summary S] [--body B] [--path P ...] [--tag T ...]`."""
    unknown = sorted(set(body) - set(FIELDS))
    if unknown or not body:
        raise HTTPException(400, f"the body sets one or more of {', '.join(FIELDS)}")
    ws = for_id(project, learning_id)
    paths = string_list(body, "paths")
    if paths is not None and ws.level == "project":  # as typed at the root: repo-relative
        paths = [scope_glob(ws, raw, cwd=ws.root_str) for raw in paths]
    changes = edits.Changes(
        summary=string_field(body, "summary"),
        body=string_field(body, "body"),
        paths=paths,
        tags=string_list(body, "tags"),
    )
    learning = edits.update_learning(ws, learning_id, changes)
    return {"learning": learning.to_dict(), "changed": [changed_file(ws, learning_id)]}


def upvote(project: Workspace, learning_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """`orbit learning upvote ID --model M --task T`: idempotent per model and task."""
    ws = for_id(project, learning_id)
    model = string_field(body, "model", required=True) or ""
    task = string_field(body, "task", required=True) or ""
    summary = store.add_vote(ws, learning_id, model, task)
    changed = [changed_file(ws, learning_id, VOTES_FILE)] if summary.added else []
    return {**summary.to_dict(), "changed": changed}


def archive(project: Workspace, learning_id: str) -> dict[str, Any]:
    """What `orbit learning prune --archive` does to each learning it archives."""
    ws = for_id(project, learning_id)
    before = store.read_learning(ws, learning_id).status
    learning = edits.archive_learning(ws, learning_id)
    changed = [changed_file(ws, learning_id)] if before != learning.status else []
    return {"learning": learning.to_dict(), "changed": changed}


def approve(project: Workspace, learning_id: str) -> dict[str, Any]:
    """`orbit learning approve ID`: a proposal becomes active."""
    ws = for_id(project, learning_id)
    learning = edits.set_status(ws, learning_id, "active", from_statuses=("proposed",))
    return {"learning": learning.to_dict(), "changed": [changed_file(ws, learning_id)]}


def reject(project: Workspace, learning_id: str) -> dict[str, Any]:
    """`orbit learning reject ID`: a proposal's bundle is deleted (git keeps the history)."""
    ws = for_id(project, learning_id)
    changed = changed_file(ws, learning_id)
    edits.remove_proposal(ws, learning_id)
    return {"id": learning_id, "changed": [changed]}


def supersede(project: Workspace, old_id: str, new_id: str) -> dict[str, Any]:
    """`orbit learning supersede OLD --with NEW`: both files change under one lock."""
    ws = for_id(project, old_id)
    if ws != for_id(project, new_id):
        raise UsageError("a project learning and a personal one cannot supersede each other")
    old, new = edits.supersede(ws, old_id, new_id)
    changed = [changed_file(ws, new.id), changed_file(ws, old.id)]
    return {"old": old.to_dict(), "new": new.to_dict(), "changed": changed}


def add_tag(project: Workspace, learning_id: str, tag: str) -> dict[str, Any]:
    """`orbit learning update ID --tag <each current tag> --tag TAG`; nothing when present.
    The current tags are read under the store lock, with the write: two bulk requests at
    once both land."""
    ws = for_id(project, learning_id)

    def with_tag(current: Learning) -> edits.Changes | None:
        if tag_name(tag).casefold() in {tag_name(t).casefold() for t in current.tags}:
            return None
        return edits.Changes(tags=[*current.tags, tag])

    changed = edits.update_with(ws, learning_id, with_tag) is not None
    return {"id": learning_id, "changed": [changed_file(ws, learning_id)] if changed else []}


def bulk(project: Workspace, body: dict[str, Any]) -> dict[str, Any]:
    """One action over many learnings; each succeeds or fails on its own, as N commands would."""
    action = string_field(body, "action", required=True)
    ids = string_list(body, "ids")
    if action not in BULK_ACTIONS:
        raise HTTPException(400, f"action must be one of {', '.join(BULK_ACTIONS)}")
    if not ids or len(ids) > MAX_BULK:
        raise HTTPException(400, f"ids must list 1 to {MAX_BULK} learning IDs")
    tag = string_field(body, "tag", required=action == "add-tag") or ""
    if action == "add-tag" and not tag_name(tag):
        raise HTTPException(422, "tag must not be empty")
    results: list[dict[str, Any]] = []
    for learning_id in dict.fromkeys(i.strip() for i in ids):
        try:
            if action in _ONE_BY_ONE:
                done = _ONE_BY_ONE[action](project, learning_id)
                results.append({"id": learning_id, "changed": done["changed"]})
            else:
                results.append(add_tag(project, learning_id, tag))
        except OrbitError as exc:
            results.append({"id": learning_id, "error": exc.message, "changed": []})
    changed = [path for r in results for path in r["changed"]]
    return {"results": results, "changed": changed}


_ONE_BY_ONE = {"archive": archive, "approve": approve, "reject": reject}


class Writes:
    """The write endpoints of one workspace, each behind the token and same-origin guard."""

    def __init__(self, ws: Workspace, token: str) -> None:
        self.ws = ws
        self.token = token

    async def _run(
        self,
        request: Request,
        example: str,
        work: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        empty_ok: bool = False,
    ) -> Response:
        refused = refuse_write(request, self.token)
        if refused is not None:
            return refused
        body = await json_object(request, example, empty_ok=empty_ok)
        try:  # blocking file work off the event loop
            return JSONResponse(await run_in_threadpool(work, body))
        except OrbitError as exc:
            return store_error(exc)

    def _id(self, request: Request) -> str:
        learning_id = str(request.path_params["learning_id"]).strip()
        if not is_learning_id(learning_id):
            raise HTTPException(404, f"no learning {learning_id}")
        return learning_id

    async def edit(self, request: Request) -> Response:
        learning_id = self._id(request)
        example = '{"summary": "...", "body": "...", "paths": ["src/**"], "tags": ["db"]}'
        return await self._run(request, example, lambda body: edit(self.ws, learning_id, body))

    async def upvote(self, request: Request) -> Response:
        learning_id = self._id(request)
        example = '{"model": "human", "task": "review-1"}'
        return await self._run(request, example, lambda body: upvote(self.ws, learning_id, body))

    async def archive(self, request: Request) -> Response:
        learning_id = self._id(request)

        def work(body: dict[str, Any]) -> dict[str, Any]:
            return archive(self.ws, learning_id)

        return await self._run(request, "{}", work, empty_ok=True)

    async def approve(self, request: Request) -> Response:
        learning_id = self._id(request)
        return await self._run(
            request, "{}", lambda _: approve(self.ws, learning_id), empty_ok=True
        )

    async def reject(self, request: Request) -> Response:
        learning_id = self._id(request)
        return await self._run(request, "{}", lambda _: reject(self.ws, learning_id), empty_ok=True)

    async def supersede(self, request: Request) -> Response:
        old_id = str(request.path_params["learning_id"]).strip()
        example = '{"by": "L-0042"}'

        def work(body: dict[str, Any]) -> dict[str, Any]:
            new_id = (string_field(body, "by") or "").strip()
            if not new_id:
                raise HTTPException(400, f"body must be JSON like {example}")
            return supersede(self.ws, old_id, new_id)

        return await self._run(request, example, work)

    async def bulk(self, request: Request) -> Response:
        example = '{"action": "archive", "ids": ["L-0001"]} or {"action": "add-tag", ...}'
        return await self._run(request, example, lambda body: bulk(self.ws, body))
