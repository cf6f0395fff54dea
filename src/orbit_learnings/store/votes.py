"""The `votes.jsonl` sidecar: append-only re-validation votes, one JSON object a line.

Stdlib only (the index refresh parses these on the read path). Duplicates are
expected — git's union merge can leave them — and count once, keeping the
earliest timestamp for each (learning, model, task).
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.errors import OrbitError, Problem
from orbit_learnings.core.timestamps import normalise_ts
from orbit_learnings.store.fileops import read_regular_text
from orbit_learnings.store.layout import VOTES_FILE


class Vote:
    """One re-validation vote. A plain class: this module is read on the hot path."""

    __slots__ = ("learning_id", "task_id", "voted_at", "voter_model")

    def __init__(self, learning_id: str, voter_model: str, task_id: str, voted_at: str) -> None:
        self.learning_id = learning_id
        self.voter_model = voter_model
        self.task_id = task_id
        self.voted_at = voted_at

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vote) and (self.key, self.voted_at) == (other.key, other.voted_at)

    def __hash__(self) -> int:
        return hash((self.key, self.voted_at))

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.learning_id, self.voter_model, self.task_id)

    def to_json(self) -> str:
        return json.dumps(
            {
                "learning_id": self.learning_id,
                "voter_model": self.voter_model,
                "voted_at": self.voted_at,
                "task_id": self.task_id,
            },
            ensure_ascii=False,
        )


def parse_votes(text: str, learning_id: str, display_path: str) -> tuple[list[Vote], list[Problem]]:
    """Parse every row; return deduplicated votes and a Problem per bad row."""
    earliest: dict[tuple[str, str, str], Vote] = {}
    problems: list[Problem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            vote = _parse_row(raw, learning_id)
        except ValueError as exc:
            problems.append(Problem(display_path, number, str(exc), learning_id, "votes"))
            continue
        known = earliest.get(vote.key)
        if known is None or vote.voted_at < known.voted_at:
            earliest[vote.key] = vote
    return sorted(earliest.values(), key=lambda v: (v.voted_at, v.voter_model)), problems


def _parse_row(raw: str, learning_id: str) -> Vote:
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON in vote row: {exc.msg}") from None
    if not isinstance(row, dict):
        raise ValueError("vote row must be a JSON object")
    for key in ("learning_id", "voter_model", "voted_at", "task_id"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise ValueError(f"vote row needs a non-empty string {key!r}")
    if row["learning_id"] != learning_id:
        raise ValueError(
            f"vote row names {row['learning_id']}, but the file belongs to {learning_id}"
        )
    try:
        voted_at = normalise_ts(row["voted_at"])
    except ValueError:
        raise ValueError("vote row has an invalid voted_at timestamp") from None
    return Vote(learning_id, row["voter_model"].strip(), row["task_id"].strip(), voted_at)


def read_votes(
    bundle_dir: str | os.PathLike[str], learning_id: str, display_path: str
) -> tuple[list[Vote], list[Problem]]:
    try:
        text = read_regular_text(os.path.join(bundle_dir, VOTES_FILE))
    except FileNotFoundError:
        return [], []
    except OrbitError as exc:  # a link, a device, an oversized file
        return [], [Problem(display_path, 1, exc.message, learning_id, "votes")]
    except UnicodeDecodeError:
        return [], [Problem(display_path, 1, "votes file is not UTF-8 text", learning_id, "votes")]
    return parse_votes(text, learning_id, display_path)


class VoteSummary:
    __slots__ = ("added", "last_voted_at", "learning_id", "vote_count")

    def __init__(self, learning_id: str, vote_count: int, last_voted_at: str | None) -> None:
        self.learning_id = learning_id
        self.vote_count = vote_count
        self.last_voted_at = last_voted_at
        self.added: bool | None = None  # for an upvote: False when it was already counted

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "learning_id": self.learning_id,
            "vote_count": self.vote_count,
            "last_voted_at": self.last_voted_at,
        }
        if self.added is not None:
            data["added"] = self.added
        return data


def summarise(learning_id: str, votes: list[Vote]) -> VoteSummary:
    last = max((v.voted_at for v in votes), default=None)
    return VoteSummary(learning_id, len(votes), last)
