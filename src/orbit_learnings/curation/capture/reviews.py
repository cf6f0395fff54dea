"""Pull-request review comments as a source of lessons.

Reads what the forges' APIs return, saved to a file:

- GitHub: `gh api repos/{owner}/{repo}/pulls/{n}/comments` — a JSON array of review
  comments (`path`, `line` / `start_line` or `original_line`, `body`, `in_reply_to_id`);
- GitLab: `GET /projects/:id/merge_requests/:iid/discussions` — discussions whose `notes`
  are `DiffNote`s with a `position` (`new_path`, `new_line`, `line_range`).

A comment that states a rule ("we never use floats for money here", "pin actions to a
SHA") becomes a draft scoped to the commented file and carrying the commented lines as an
anchor to cite; a comment about this diff only ("typo", "nit: rename", "LGTM", a question)
is dropped. Replies stay with the comment they answer, so a thread is one candidate.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.curation.capture.drafting import Draft, rule_sentence
from orbit_learnings.curation.capture.moments import rule_cue

MAX_REVIEW_BYTES = 32 << 20
_DIFF_ONLY = re.compile(
    r"^\W*(nit|typo|lgtm|\+1|nice|thanks|rename|done|fixed|ok|same here|same|ditto|ptal)\b",
    re.I,
)
_SUGGESTION = re.compile(r"```suggestion.*?```", re.S)


@dataclass
class Comment:
    path: str
    start: int | None
    end: int | None
    body: str
    url: str = ""


def read_review(path: str) -> list[Comment]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_REVIEW_BYTES + 1)
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except FileNotFoundError:
        raise OrbitError(f"no review file at {path}") from None
    except (OSError, ValueError) as exc:
        raise OrbitError(f"{path} is not the JSON a forge's API returns: {exc}") from None
    if len(raw) > MAX_REVIEW_BYTES or not isinstance(data, list):
        raise OrbitError(f"{path}: expected a JSON array of review comments or discussions")
    comments = [c for item in data if isinstance(item, dict) for c in _from_item(item)]
    return comments


def _from_item(item: dict[str, object]) -> list[Comment]:
    listed = item.get("notes")
    if isinstance(listed, list):  # a GitLab discussion: its first note is the point
        notes = [n for n in listed if isinstance(n, dict) and not n.get("system")]
        return [_gitlab(notes[0])] if notes and isinstance(notes[0].get("position"), dict) else []
    if item.get("in_reply_to_id") or not isinstance(item.get("path"), str):
        return []  # a reply belongs to its thread
    end = item.get("line") or item.get("original_line")
    start = item.get("start_line") or item.get("original_start_line") or end
    return [
        Comment(
            str(item["path"]),
            start if isinstance(start, int) else None,
            end if isinstance(end, int) else None,
            str(item.get("body", "")),
            str(item.get("html_url", "")),
        )
    ]


def _gitlab(note: dict[str, object]) -> Comment:
    position = note["position"]
    assert isinstance(position, dict)
    line = position.get("new_line") or position.get("old_line")
    end = line
    line_range = position.get("line_range")
    if isinstance(line_range, dict) and isinstance(line_range.get("end"), dict):
        end = line_range["end"].get("new_line") or line
    path = position.get("new_path") or position.get("old_path")
    return Comment(
        str(path),
        line if isinstance(line, int) else None,
        end if isinstance(end, int) else None,
        str(note.get("body", "")),
    )


def states_a_rule(body: str) -> bool:
    """A comment worth a learning: a rule cue, some length, not a diff-only remark."""
    text = _SUGGESTION.sub("", body).strip()
    if _DIFF_ONLY.match(text) or len(text.split()) < 5:
        return False
    if text.rstrip().endswith(("?", "？")) and not rule_cue(text):
        return False
    return rule_cue(text)


def drafts_from_review(path: str) -> list[Draft]:
    drafts = []
    for comment in read_review(path):
        if not states_a_rule(comment.body):
            continue
        text = _SUGGESTION.sub("", comment.body).strip()
        source: dict[str, object] = {"file": path, "moment": "review", "quote": text[:500]}
        if comment.start and comment.end:
            source["anchor"] = f"{comment.path}:{comment.start}-{comment.end}"
        if comment.url:
            source["url"] = comment.url
        drafts.append(
            Draft(
                "review",
                rule_sentence(text),
                f"From code review of {comment.path}:\n\n> {text[:600]}",
                [comment.path],
                [],
                0.7,
                source,
            )
        )
    return drafts
