"""Drafts awaiting triage in `.orbit/state/drafts/` (never tracked by git).

`accept` turns one into a proposal in the store (status `proposed`) after the near-duplicate
check: a file the pull request shows, which reviewers approve where they already work;
`reject` discards the draft.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.errors import NotFound, OrbitError
from orbit_learnings.core.scope import Scope
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.curation.adding import add_learning
from orbit_learnings.curation.capture.drafting import Draft
from orbit_learnings.curation.capture.extract import extract_sessions
from orbit_learnings.store import bundles as store
from orbit_learnings.store.fileops import atomic_write_text
from orbit_learnings.store.layout import DRAFTS_DIR, ORBIT_DIR
from orbit_learnings.store.workspace import Workspace


def drafts_dir(ws: Workspace) -> str:
    return os.path.join(ws.state_path, DRAFTS_DIR)


def _draft_id(draft: Draft) -> str:
    digest = hashlib.sha1(f"{draft.detector}|{draft.summary}".encode(), usedforsecurity=False)
    return "D-" + digest.hexdigest()[:8]


@dataclass
class Extracted:
    created: list[dict[str, object]]
    skipped: int
    files: list[dict[str, object]]


def run_extract(
    ws: Workspace,
    transcripts: Sequence[str],
    *,
    model_command: str | None = None,
    reviews: Sequence[str] = (),
) -> Extracted:
    """Draft from every session file and review export; a draft already waiting (same ID)
    is not written twice."""
    from orbit_learnings.curation.capture.reviews import drafts_from_review

    orbit_dir = os.path.join(ws.root_dir, ORBIT_DIR)
    found = extract_sessions(
        transcripts, ws.root_dir, model_command=model_command, orbit_dir=orbit_dir
    )
    for review in reviews:
        drafted = drafts_from_review(review)
        found.drafts.extend(drafted)
        found.files.append({"file": review, "agent": "review", "lines": 0, "skipped": 0,
                            "moments": len(drafted)})  # fmt: skip
    created: list[dict[str, object]] = []
    skipped = 0
    for draft in found.drafts:
        draft_id = _draft_id(draft)
        target = os.path.join(drafts_dir(ws), f"{draft_id}.json")
        if os.path.exists(target):
            skipped += 1
            continue
        record = {"id": draft_id, "created_at": now_iso(), **draft.to_dict()}
        atomic_write_text(target, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        created.append(record)
    return Extracted(created, skipped, found.files)


def list_drafts(ws: Workspace) -> list[dict[str, object]]:
    folder = drafts_dir(ws)
    if not os.path.isdir(folder):
        return []
    records = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                records.append(json.load(handle))
    return sorted(records, key=_review_order)


def _review_order(record: dict[str, object]) -> tuple[str, float, str]:
    """Oldest extraction first; within one, the strongest moment first."""
    confidence = record.get("confidence")
    strength = float(confidence) if isinstance(confidence, int | float) else 0.0
    return (str(record.get("created_at")), -strength, str(record.get("id")))


def get_draft(ws: Workspace, draft_id: str) -> dict[str, Any]:
    """A draft as `extract` wrote it (JSON this module owns, so its shape is known)."""
    path = os.path.join(drafts_dir(ws), f"{os.path.basename(draft_id)}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            draft: dict[str, Any] = json.load(handle)
            return draft
    except FileNotFoundError:
        raise NotFound(f"no draft {draft_id}; `orbit learning drafts list` shows them") from None


def accept(
    ws: Workspace,
    draft_id: str,
    *,
    summary: str | None = None,
    paths: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    force: bool = False,
) -> str:
    draft = get_draft(ws, draft_id)
    source = draft["source"]
    origin = f"({draft['detector']}) from {source['file']}"
    body = f"{draft['body']}\n\nDrafted by `orbit learning extract` {origin}."
    scope = Scope(
        paths if paths is not None else _strings(draft["paths"]),
        tags if tags is not None else _strings(draft["tags"]),
    )
    new = store.NewLearning(
        summary=summary or str(draft["summary"]),
        scope=scope,
        body=body,
        created_by="orbit-extract",
        status="proposed",
        anchors=_anchors(ws, source.get("anchor")),
    )
    learning = add_learning(ws, new, force=force).learning
    os.unlink(os.path.join(drafts_dir(ws), f"{draft['id']}.json"))
    return learning.id


def reject(ws: Workspace, draft_id: str) -> None:
    draft = get_draft(ws, draft_id)
    os.unlink(os.path.join(drafts_dir(ws), f"{draft['id']}.json"))


def _strings(value: object) -> list[str]:
    """A draft's list field; drafts are JSON this module wrote, so anything else is empty."""
    return [str(v) for v in value] if isinstance(value, list) else []


def _anchors(ws: Workspace, citation: object) -> list[Anchor]:
    """The commented lines of a review draft, cited when the file still has them."""
    from orbit_learnings.curation.anchors.citing import cite

    if not isinstance(citation, str):
        return []
    try:
        return cite(ws, [citation])
    except OrbitError:
        return []  # the file moved on since the review: the path scope still holds
