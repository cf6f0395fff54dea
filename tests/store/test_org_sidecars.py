"""An org learning's sidecars read from two folders as one: the org bundle's (votes cast
in the org repository) and the subscriber's `.orbit/org-feedback/<ID>/`. Each file folds
on its own, so folded counts add up across the two; a (model, task) counts once."""

from __future__ import annotations

import json
from pathlib import Path

from orbit_learnings.store import feedback, votes
from orbit_learnings.store.workspace import Workspace

ID = "O-0001"


def _org(tmp_path: Path) -> tuple[Workspace, Path, Path]:
    """An org tree and a subscriber, with each one's folder for O-0001's sidecars."""
    tree, project = tmp_path / "tree", tmp_path / "web"
    bundle = tree / ".orbit" / "learnings" / ID
    mine = project / ".orbit" / "org-feedback" / ID
    for folder in (bundle, mine):
        folder.mkdir(parents=True)
    return Workspace(tree, level="org", home=str(project)), bundle, mine


def _lines(*rows: dict[str, object]) -> str:
    return "".join(json.dumps({"learning_id": ID, **row}) + "\n" for row in rows)


def _vote(model: str, task: str, at: str) -> dict[str, object]:
    return {"voter_model": model, "task_id": task, "voted_at": at}


def test_folded_days_add_up_and_a_vote_in_both_files_counts_once(tmp_path: Path) -> None:
    ws, bundle, mine = _org(tmp_path)
    fold: dict[str, object] = {"folded": {"2026-05-01": 3}, "through": "2026-05-01T23:00:00Z"}
    (bundle / "votes.jsonl").write_text(_lines(fold, _vote("codex", "T-1", "2026-05-02T00:00:00Z")))
    (mine / "votes.jsonl").write_text(
        _lines(
            {"folded": {"2026-05-01": 2}, "through": "2026-05-01T22:00:00Z"},
            _vote("codex", "T-1", "2026-05-03T00:00:00Z"),  # the same voter and task
            _vote("claude", "T-2", "2026-05-04T00:00:00Z"),
        )
    )
    found, problems = votes.read_learning_votes(ws, ID)
    assert problems == []
    assert sum(v.weight for v in found) == 3 + 2 + 1 + 1
    assert [(v.voter_model, v.voted_at) for v in found if v.weight == 1] == [
        ("codex", "2026-05-02T00:00:00Z"),
        ("claude", "2026-05-04T00:00:00Z"),
    ]


def test_a_bad_row_is_located_in_the_file_it_is_in(tmp_path: Path) -> None:
    ws, _, mine = _org(tmp_path)
    (mine / "votes.jsonl").write_text("{nope\n")
    _, problems = votes.read_learning_votes(ws, ID)
    assert [(p.file, p.line) for p in problems] == [(f".orbit/org-feedback/{ID}/votes.jsonl", 1)]


def test_feedback_counts_add_up_each_file_past_its_own_fold(tmp_path: Path) -> None:
    ws, bundle, mine = _org(tmp_path)
    (bundle / "feedback.jsonl").write_text(
        _lines(
            {"folded": {"helpful": 4, "not_helpful": 1}, "through": "2026-05-02T00:00:00Z"},
            {"task_id": "A", "model": "x", "helpful": True, "at": "2026-05-01T00:00:00Z"},
            {"task_id": "B", "model": "x", "helpful": False, "at": "2026-05-03T00:00:00Z"},
        )
    )
    (mine / "feedback.jsonl").write_text(
        _lines(
            {"task_id": "A", "model": "x", "helpful": True, "at": "2026-05-01T12:00:00Z"},
            {"task_id": "C", "model": "y", "helpful": True, "at": "2026-05-04T00:00:00Z"},
        )
    )
    found = feedback.summarise(ws, ID)
    # the bundle: 4 + 1 folded (its row A is in the fold) and B; here: A and C, both stand
    assert (found.times_helpful, found.times_not_helpful) == (4 + 2, 1 + 1)
    assert feedback.last_helpful(ws, ID) == "2026-05-04T00:00:00Z"


def test_writes_go_to_the_subscriber_and_fold_there(tmp_path: Path) -> None:
    ws, bundle, mine = _org(tmp_path)
    (bundle / "learning.yaml").write_text("")
    summary = votes.record_vote(ws, ID, "claude", "T-1", learning=lambda: None)
    assert summary.vote_count == 1 and summary.added
    assert (mine / "votes.jsonl").is_file() and not (bundle / "votes.jsonl").exists()
    busy = _lines(*(_vote("m", f"T-{n:06}", "2026-05-01T00:00:00Z") for n in range(9000)))
    (mine / "votes.jsonl").write_text(busy)
    assert len(busy) > votes.FOLD_AT
    summary = votes.record_vote(ws, ID, "claude", "T-2", learning=lambda: None)
    assert summary.vote_count == 9001
    assert len((mine / "votes.jsonl").read_text()) < votes.FOLD_AT
    assert (tmp_path / "web" / ".orbit" / "state" / "org" / "locks" / f"{ID}.lock").exists()
