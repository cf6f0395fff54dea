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
from dataclasses import dataclass, field
from typing import Any

from orbit_learnings.core.anchors.record import Anchor
from orbit_learnings.core.errors import NotFound, OrbitError
from orbit_learnings.core.scope import Scope
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.curation.adding import add_learning
from orbit_learnings.curation.capture.drafting import Draft
from orbit_learnings.curation.capture.extract import extract_sessions, recurs, same_lesson
from orbit_learnings.store import bundles as store
from orbit_learnings.store.fileops import LockBusy, atomic_write_text, posix_lock
from orbit_learnings.store.layout import DRAFTS_DIR, DRAFTS_LOCK_FILE, ORBIT_DIR
from orbit_learnings.store.workspace import Workspace

LOCK_FILE = DRAFTS_LOCK_FILE
LOCK_SECONDS = 10.0


def drafts_dir(ws: Workspace) -> str:
    return os.path.join(ws.state_dir_str, DRAFTS_DIR)


def _draft_id(draft: Draft) -> str:
    digest = hashlib.sha1(f"{draft.detector}|{draft.summary}".encode(), usedforsecurity=False)
    return "D-" + digest.hexdigest()[:8]


@dataclass
class Extracted:
    created: list[dict[str, object]]
    skipped: int
    files: list[dict[str, object]]
    recurred: list[str]  # waiting drafts that met their lesson again (evidence added)
    undrafted: list[dict[str, object]] = field(default_factory=list)  # moments, no rule stated


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

    orbit_dir = os.path.join(ws.root_str, ORBIT_DIR)
    found = extract_sessions(
        transcripts, ws.root_str, model_command=model_command, orbit_dir=orbit_dir
    )
    for review in reviews:
        drafted = drafts_from_review(review)
        found.drafts.extend(drafted)
        found.files.append({"file": review, "agent": "review", "lines": 0, "skipped": 0,
                            "moments": len(drafted)})  # fmt: skip
    os.makedirs(drafts_dir(ws), exist_ok=True)
    try:
        with posix_lock(os.path.join(drafts_dir(ws), LOCK_FILE), deadline=LOCK_SECONDS):
            extracted = _file_drafts(ws, found.drafts, found.files)
    except LockBusy:
        raise OrbitError("another `orbit learning extract` is writing drafts; try again") from None
    extracted.undrafted = found.undrafted
    return extracted


def _file_drafts(
    ws: Workspace, drafts: Sequence[Draft], files: list[dict[str, object]]
) -> Extracted:
    """Write each new draft, or add it as evidence to the waiting draft of the same lesson (a
    lesson met in session after session ranks first); an identical one is not written twice."""
    waiting = list_drafts(ws)
    result = Extracted([], 0, files, [])
    for draft in drafts:
        draft_id = _draft_id(draft)
        if os.path.exists(_draft_file(ws, draft_id)):
            result.skipped += 1
            continue
        same = same_lesson(draft.summary, [str(w["summary"]) for w in waiting])
        if same is not None:
            result.recurred.append(_met_again(ws, waiting[same], draft))
            continue
        record = {"id": draft_id, "created_at": now_iso(), **draft.to_dict()}
        _write(ws, record)
        result.created.append(record)
        waiting.append(record)
    return result


def _met_again(ws: Workspace, record: dict[str, object], draft: Draft) -> str:
    kept = Draft(
        str(record["detector"]), str(record["summary"]), str(record["body"]),
        _strings(record["paths"]), _strings(record["tags"]),
        float(record["confidence"]) if isinstance(record["confidence"], int | float) else 0.0,
        record["source"] if isinstance(record["source"], dict) else {},
    )  # fmt: skip
    recurs(kept, draft)
    record.update(kept.to_dict())
    _write(ws, record)
    return str(record["id"])


def _draft_file(ws: Workspace, draft_id: str) -> str:
    return os.path.join(drafts_dir(ws), f"{draft_id}.json")


def _write(ws: Workspace, record: dict[str, object]) -> None:
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(_draft_file(ws, str(record["id"])), text)


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


def _review_order(record: dict[str, object]) -> tuple[int, str, float, str]:
    """The lesson met in the most sessions first; then the oldest extraction first, and
    within one, the strongest moment first."""
    confidence = record.get("confidence")
    strength = float(confidence) if isinstance(confidence, int | float) else 0.0
    source = record.get("source")
    again = source.get("also") if isinstance(source, dict) else None
    met = len(again) if isinstance(again, list) else 0
    return (-met, str(record.get("created_at")), -strength, str(record.get("id")))


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
    where = f" from {source['file']}" if "file" in source else ""  # a model may name no moment
    origin = f"({draft['detector']}){where}"
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
