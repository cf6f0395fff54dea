"""`orbit learning extract`: session files in, reviewable drafts out, every file accounted for.

Each file is read by its own format (`sessions.read_session`), its moments found
(`moments.find_moments`) and drafted (`drafting.draft_for`). A lesson that recurs across the
sessions ranks higher: drafts that say the same thing (`retrieval.similar.likeness`, the
near-duplicate measure) merge, their evidence kept side by side; `drafts.run_extract` does the
same against the drafts earlier runs left waiting. With a team model command (`--with`),
the moments go to it and its drafts replace the deterministic ones; without one, nothing
leaves the machine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.curation.capture.drafting import Draft, draft_or_reason
from orbit_learnings.curation.capture.drafting.scope import collapsed
from orbit_learnings.curation.capture.moments import Moment, find_moments
from orbit_learnings.curation.capture.moments.base import one_line, words_of
from orbit_learnings.curation.capture.readers import read_session
from orbit_learnings.curation.capture.sessions import Session

MAX_SESSION_BYTES = 256 << 20  # real sessions reach tens of MB; beyond this, refuse the file


@dataclass
class Extraction:
    drafts: list[Draft] = field(default_factory=list)
    files: list[dict[str, object]] = field(default_factory=list)  # per file: lines, skipped, …
    moments: list[tuple[Session, Moment]] = field(default_factory=list)
    # Moments no deterministic draft could state a rule for: shown for review, never lost.
    undrafted: list[dict[str, object]] = field(default_factory=list)


def extract_sessions(
    paths: Sequence[str],
    root: str | None,
    *,
    model_command: str | None = None,
    orbit_dir: str | None = None,
) -> Extraction:
    result = Extraction()
    for path in paths:
        session = _read(path)
        found = find_moments(session)
        report = session.report()
        report["moments"] = len(found)
        result.files.append(report)
        result.moments.extend((session, m) for m in found)
    if model_command:
        from orbit_learnings.curation.capture.model import drafts_from_model

        result.drafts = drafts_from_model(model_command, result.moments, root, orbit_dir=orbit_dir)
    else:
        result.drafts, result.undrafted = _deterministic(result.moments, root)
    return result


def _read(path: str) -> Session:
    try:
        session = read_session(path, max_bytes=MAX_SESSION_BYTES)
    except FileNotFoundError:
        raise OrbitError(f"no session file at {path}") from None
    except IsADirectoryError:
        raise OrbitError(f"{path} is a folder; pass the session files in it") from None
    except (OSError, ValueError) as exc:
        raise OrbitError(f"cannot read {path}: {exc}") from None
    if session.lines and session.skipped == session.lines:
        raise OrbitError(f"{path}: none of its {session.lines} lines is a session record")
    return session


def _deterministic(
    moments: list[tuple[Session, Moment]], root: str | None
) -> tuple[list[Draft], list[dict[str, object]]]:
    merged: list[Draft] = []
    undrafted: list[dict[str, object]] = []
    for session, moment in moments:
        where = session.cwd or root
        draft = draft_or_reason(moment, path=session.path, root=where, turns=session.turns)
        if isinstance(draft, str):  # no rule to state with confidence: a moment for review
            undrafted.append(_moment_record(session, moment, draft))
            continue
        same = same_lesson(draft.summary, [d.summary for d in merged])
        if same is None:
            merged.append(draft)
        else:
            recurs(merged[same], draft)
    return merged, undrafted


def _moment_record(session: Session, moment: Moment, why: str) -> dict[str, object]:
    """A moment without a draft as `extract` shows it: where, what kind, why no draft, and
    its words (the person's, the agent's, or the failing command)."""
    return {"file": session.path, "lines": moment.lines, "moment": moment.kind, "why": why,
            "quote": one_line(words_of(moment), 100)}  # fmt: skip


def same_lesson(summary: str, summaries: Sequence[str]) -> int | None:
    """The position of the summary that says the same thing, if one does: word for word, or
    by the measure `add` uses for near-duplicates."""
    from orbit_learnings.retrieval.similar import SIMILARITY, likeness

    key = _key(summary)
    for position, other in enumerate(summaries):
        if _key(other) == key or likeness(summary, other) >= SIMILARITY:
            return position
    return None


def _key(summary: str) -> str:
    return re.sub(r"\W+", " ", summary.lower()).strip()


def recurs(kept: Draft, again: Draft) -> None:
    """The same lesson in another moment: more confidence, both pieces of evidence kept."""
    seen = kept.source.setdefault("also", [])
    if isinstance(seen, list) and "file" in again.source:  # a model's draft may name no moment
        seen.append({"file": again.source["file"], "lines": again.source.get("lines", [])})
    kept.confidence = min(1.0, kept.confidence + 0.1)
    kept.paths = collapsed([*kept.paths, *again.paths])
