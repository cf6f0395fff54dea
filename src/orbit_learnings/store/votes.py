"""The `votes.jsonl` sidecar: append-only re-validation votes, one JSON object a line.

Stdlib only (the index refresh parses these on the read path). Duplicates are
expected — git's union merge can leave them — and count once, keeping the
earliest timestamp for each (learning, model, task).

A busy file is compacted, never capped: when an upvote finds it past half the readers'
bound, the older votes fold into one summary row, `{"learning_id": ..., "folded":
{"2026-05-17": 12, ...}, "through": STAMP}` (votes per day, and the newest stamp folded),
and the newest rows stay as they were; the history stays in git. A folded day counts as
that many votes cast at the day's start. Two folded rows (two branches that both
compacted, joined by git's union merge) take the larger count of each day, and a row
stamped at or before a fold's `through` is already in it: neither counts twice.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.errors import OrbitError, Problem
from orbit_learnings.core.ids import MAX_MODEL_CHARS, MAX_TASK_ID_CHARS
from orbit_learnings.core.timestamps import normalise_ts
from orbit_learnings.store.fileops import MAX_FILE_BYTES, read_text_prefix
from orbit_learnings.store.layout import VOTES_FILE

TYPE_CHECKING = False  # `typing` costs the read path: only the type checker imports it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from orbit_learnings.store.workspace import Workspace

    Reader = Callable[[str, str, str], tuple[list["Vote"], list[Problem]]]

FOLD_AT = MAX_FILE_BYTES // 2  # an upvote that finds the file this big folds it first
KEEP_UNFOLDED = 100  # the newest rows stay as written: a repeated vote still counts once
FOLDED_MODEL = "(folded)"  # the voter of a folded day's votes; no agent is called that
MAX_VOTES_A_DAY = 10**9  # a folded day's count, sane for any arithmetic


class Vote:
    """One re-validation vote. A plain class: this module is read on the hot path."""

    __slots__ = ("learning_id", "task_id", "voted_at", "voter_model", "weight")

    def __init__(
        self, learning_id: str, voter_model: str, task_id: str, voted_at: str, weight: int = 1
    ) -> None:
        self.learning_id = learning_id
        self.voter_model = voter_model
        self.task_id = task_id
        self.voted_at = voted_at
        self.weight = weight  # a folded day stands for this many votes

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
    """Parse every row; return deduplicated votes (a folded day as one weighted vote)
    and a Problem per bad row."""
    tally = Tally(learning_id)
    problems: list[Problem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            try:
                tally.add(raw)
            except ValueError as exc:
                problems.append(Problem(display_path, number, str(exc), learning_id, "votes"))
    return tally.votes(), problems


class Tally:
    """Votes as rows are read: the earliest of each (model, task), folded days by their
    larger count, and the latest `through` of any fold."""

    __slots__ = ("days", "earliest", "learning_id", "through")

    def __init__(self, learning_id: str) -> None:
        self.learning_id = learning_id
        self.earliest: dict[tuple[str, str, str], Vote] = {}
        self.days: dict[str, int] = {}
        self.through = ""

    def add(self, raw: str) -> None:
        row = _json_row(raw, self.learning_id)
        if "folded" in row:
            days, through = _parse_fold(row)
            for day, count in days.items():
                self.days[day] = max(self.days.get(day, 0), count)
            self.through = max(self.through, through)
            return
        vote = _parse_row(row, self.learning_id)
        known = self.earliest.get(vote.key)
        if known is None or vote.voted_at < known.voted_at:
            self.earliest[vote.key] = vote

    def votes(self) -> list[Vote]:
        rows = [v for v in self.earliest.values() if v.voted_at > self.through]
        folded = [
            Vote(self.learning_id, FOLDED_MODEL, day, f"{day}T00:00:00Z", count)
            for day, count in self.days.items()
        ]
        return sorted([*folded, *rows], key=lambda v: (v.voted_at, v.voter_model))

    def folded_text(self) -> str:
        """The file's new text: every vote but the newest `KEEP_UNFOLDED` in one folded
        row, then those rows. The cut falls between two stamps, so a kept row is always
        later than `through`."""
        rows = sorted(
            (v for v in self.earliest.values() if v.voted_at > self.through),
            key=lambda v: v.voted_at,
        )
        cut = len(rows) - KEEP_UNFOLDED
        while 0 < cut < len(rows) and rows[cut].voted_at == rows[cut - 1].voted_at:
            cut += 1
        days = dict(self.days)
        for vote in rows[: max(cut, 0)]:
            day = vote.voted_at[:10]
            days[day] = days.get(day, 0) + 1
        through = max([self.through, *(v.voted_at for v in rows[: max(cut, 0)])])
        fold = {"learning_id": self.learning_id, "folded": dict(sorted(days.items()))}
        lines = [json.dumps({**fold, "through": through})] if days else []
        lines += [v.to_json() for v in rows[max(cut, 0) :]]
        return "".join(line + "\n" for line in lines)


def _json_row(raw: str, learning_id: str) -> dict[str, object]:
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON in vote row: {exc.msg}") from None
    if not isinstance(row, dict):
        raise ValueError("vote row must be a JSON object")
    if row.get("learning_id") != learning_id:
        named = row.get("learning_id")
        raise ValueError(f"vote row names {named}, but the file belongs to {learning_id}")
    return row


def _parse_fold(row: dict[str, object]) -> tuple[dict[str, int], str]:
    days, through = row.get("folded"), row.get("through")
    if not isinstance(days, dict) or not isinstance(through, str):
        raise ValueError("a folded row needs 'folded' (votes per day) and 'through'")
    try:
        through = normalise_ts(through)
    except ValueError:
        raise ValueError("a folded row has an invalid 'through' timestamp") from None
    good: dict[str, int] = {}
    for day, count in days.items():
        valid = isinstance(count, int) and not isinstance(count, bool)
        if not (valid and 0 < count <= MAX_VOTES_A_DAY and _is_day(day)):
            raise ValueError(f"a folded row's day {str(day)[:20]!r} needs a count of votes")
        good[day] = count
    return good, through


def _is_day(text: str) -> bool:
    try:
        return normalise_ts(f"{text}T00:00:00Z")[:10] == text
    except ValueError:
        return False


def _parse_row(row: dict[str, Any], learning_id: str) -> Vote:
    for key in ("learning_id", "voter_model", "voted_at", "task_id"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise ValueError(f"vote row needs a non-empty string {key!r}")
    refuse_long(row["task_id"], row["voter_model"])
    if row["voter_model"].strip() == FOLDED_MODEL:
        raise ValueError(f"vote row's voter_model {FOLDED_MODEL!r} is kept for folded votes")
    try:
        voted_at = normalise_ts(row["voted_at"])
    except ValueError:
        raise ValueError("vote row has an invalid voted_at timestamp") from None
    return Vote(learning_id, row["voter_model"].strip(), row["task_id"].strip(), voted_at)


def read_votes(
    bundle_dir: str | os.PathLike[str], learning_id: str, display_path: str
) -> tuple[list[Vote], list[Problem]]:
    """A file past the bound (a union merge of two busy branches, a hand edit) is
    counted as far as the bound and reported: a count is never turned into 0."""
    try:
        text, size = read_text_prefix(os.path.join(bundle_dir, VOTES_FILE))
    except FileNotFoundError:
        return [], []
    except OrbitError as exc:  # a link, a device
        return [], [Problem(display_path, 1, exc.message, learning_id, "votes")]
    except UnicodeDecodeError:
        return [], [Problem(display_path, 1, "votes file is not UTF-8 text", learning_id, "votes")]
    votes, problems = parse_votes(text, learning_id, display_path)
    if size > MAX_FILE_BYTES:
        message = (
            f"votes file is {size} bytes, past its bound of {MAX_FILE_BYTES}: only the votes"
            " in its first part count until the next upvote folds it"
        )
        problems.insert(0, Problem(display_path, 1, message, learning_id, "votes"))
    return votes, problems


_writers_read = read_votes


def read_learning_votes(
    ws: Workspace, learning_id: str, read: Reader | None = None
) -> tuple[list[Vote], list[Problem]]:
    """Every vote that counts for a learning, from each of its sidecar folders (an org
    learning's bundle, and the subscriber's `org-feedback/<ID>/`), and their problems.
    `read` is looked up now, not at import: the index's refresh is watched through it."""
    reader = read or read_votes
    parts = [
        reader(folder, learning_id, ws.relative(os.path.join(folder, VOTES_FILE)))
        for folder in ws.sidecar_dirs_str(learning_id)
    ]
    if len(parts) == 1:
        return parts[0]
    merged = merge_votes(learning_id, [votes for votes, _ in parts])
    return merged, [problem for _, problems in parts for problem in problems]


def merge_votes(learning_id: str, groups: list[list[Vote]]) -> list[Vote]:
    """Votes read from several files as one list: each file folded its own votes, so a
    folded day's counts add up; a (model, task) that voted in two files counts once."""
    days: dict[str, int] = {}
    earliest: dict[tuple[str, str, str], Vote] = {}
    for vote in (vote for group in groups for vote in group):
        if vote.voter_model == FOLDED_MODEL:
            days[vote.task_id] = days.get(vote.task_id, 0) + vote.weight
        elif vote.key not in earliest or vote.voted_at < earliest[vote.key].voted_at:
            earliest[vote.key] = vote
    folded = [
        Vote(learning_id, FOLDED_MODEL, day, f"{day}T00:00:00Z", count)
        for day, count in days.items()
    ]
    return sorted([*folded, *earliest.values()], key=lambda v: (v.voted_at, v.voter_model))


def refuse_long(task_id: str, model: str) -> None:
    """Task IDs and model names are short: a 600 KB one is refused where it comes in and
    where it is read, so it never takes the file past the bound."""
    if len(task_id) > MAX_TASK_ID_CHARS:
        raise ValueError(f"a task ID is at most {MAX_TASK_ID_CHARS} characters")
    if len(model) > MAX_MODEL_CHARS:
        raise ValueError(f"a model name is at most {MAX_MODEL_CHARS} characters")


def fold_file(path: str, learning_id: str) -> None:
    """Rewrite a busy votes file as one folded row plus its newest rows (callers hold
    the learning's lock). The whole file is read line by line, however large; a bad
    row is dropped from the new file (git keeps it)."""
    from orbit_learnings.store.fileops import atomic_write_text, open_regular

    tally = Tally(learning_id)
    with open_regular(path) as handle:
        for raw in handle:
            if raw.strip():
                try:
                    tally.add(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    continue
    atomic_write_text(path, tally.folded_text())


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
    return VoteSummary(learning_id, sum(v.weight for v in votes), last)


def read_bundle_votes(ws: Workspace, learning_id: str) -> tuple[list[Vote], list[Problem]]:
    """A writer's read (an upvote's): bound at import, apart from `read_votes`, which the
    index's lazy refresh looks up when it runs."""
    return read_learning_votes(ws, learning_id, _writers_read)


def record_vote(
    ws: Workspace, learning_id: str, model: str, task_id: str, *, learning: Callable[[], object]
) -> VoteSummary:
    """Append a vote unless this (learning, model, task) already voted, under the
    learning's lock; `learning()` raises when there is no such learning.

    A file past `FOLD_AT` is folded first (`fold_file`), so the file stays within the
    readers' bound however many votes it counts; folding drops a row no reader counts
    (a 600 KB task ID from before the bound), which git keeps."""
    from orbit_learnings.core.errors import UsageError, ValidationFailed
    from orbit_learnings.core.timestamps import now_iso
    from orbit_learnings.store.fileops import append_line, file_lock, make_folder, regular_size

    model, task_id = model.strip(), task_id.strip()
    if not model:
        raise UsageError("a vote needs a model: the voting agent family, e.g. claude")
    if not task_id:
        raise UsageError("a vote needs a task: votes are anchored to a concrete task")
    try:
        refuse_long(task_id, model)
    except ValueError as exc:
        raise UsageError(f"{exc}: the task names the task, the model the agent family") from None
    if model == FOLDED_MODEL:
        raise UsageError(f"the model {FOLDED_MODEL!r} is kept for folded votes")
    learning()
    home = ws.sidecar_home_str(learning_id)  # for an org learning: the subscriber's folder
    path = os.path.join(home, VOTES_FILE)
    with file_lock(ws.locks_dir / f"{learning_id}.lock"):
        if regular_size(path) > FOLD_AT:
            fold_file(path, learning_id)
        votes, problems = read_bundle_votes(ws, learning_id)
        mine = [p for p in problems if p.file == ws.relative(path)]  # not an org file's
        if mine:  # a damaged row is the author's to look at before more are added
            raise ValidationFailed(mine)
        make_folder(home)
        vote = Vote(learning_id, model, task_id, now_iso())
        added = all(v.key != vote.key for v in votes)
        if added:
            append_line(path, vote.to_json())
            votes.append(vote)
    summary = summarise(learning_id, votes)
    summary.added = added
    return summary
