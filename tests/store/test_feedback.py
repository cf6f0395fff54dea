"""The feedback sidecar: latest verdict per (task, model), confidence clamped to [0.1, 1]."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orbit_learnings.core.errors import NotFound, UsageError
from orbit_learnings.store import feedback, levels
from orbit_learnings.store.feedback import Helpfulness
from orbit_learnings.store.workspace import Workspace
from tests.testing import add_learning


def row(
    task: str = "T-1", *, helpful: object = True, at: str = "2026-05-01T00:00:00Z", **extra: object
) -> str:
    return json.dumps(
        {"learning_id": "L-0001", "task_id": task, "helpful": helpful, "at": at, **extra}
    )


@pytest.mark.parametrize(
    ("helpful", "not_helpful", "expected"),
    [
        (0, 0, 0.5),
        (1, 0, 0.55),
        (0, 1, 0.4),
        (2, 1, 0.5),
        (10, 0, 1.0),
        (50, 0, 1.0),
        (4, 0, 0.7),
        (0, 4, 0.1),
        (0, 40, 0.1),
    ],
)
def test_score_starts_at_half_and_is_clamped(
    helpful: int, not_helpful: int, expected: float
) -> None:
    assert feedback.score(helpful, not_helpful) == expected


def test_the_latest_row_per_task_and_model_wins() -> None:
    text = "\n".join(
        [
            row(helpful=True, at="2026-05-02T00:00:00Z"),
            row(helpful=False, at="2026-05-01T00:00:00Z"),  # older, though later in the file
            row(helpful=False, at="2026-05-01T00:00:00Z", model="codex"),
            row("T-2", helpful=True, at="2026-05-01T00:00:00Z"),
            row("T-2", helpful=False, at="2026-05-01T00:00:00+00:00"),  # same moment: the later row
        ]
    )
    latest, problems = feedback.parse(text, "L-0001", "f.jsonl")
    assert problems == []
    assert {key: r["helpful"] for key, r in latest.items()} == {
        ("T-1", ""): True,
        ("T-1", "codex"): False,
        ("T-2", ""): False,
    }


def test_bad_rows_become_located_problems() -> None:
    lines = [
        row(),
        "not json",
        row(helpful="yes"),
        row(learning_id="L-0002"),
        '{"learning_id": "L-0001", "helpful": true}',
        row(at="soon"),
    ]
    latest, problems = feedback.parse("\n".join(lines), "L-0001", "f.jsonl")
    assert list(latest) == [("T-1", "")]
    assert [(p.line, p.kind, p.id) for p in problems] == [
        (n, "feedback", "L-0001") for n in (2, 3, 4, 5, 6)
    ]
    assert all(p.message.startswith("invalid feedback row: ") for p in problems)
    assert "'helpful' must be true or false" in problems[1].message


def test_no_feedback_file_means_the_starting_helpfulness(workspace: Path) -> None:
    assert feedback.summarise(Workspace(workspace), "L-0001") == Helpfulness(0.5, 0, 0)


def test_record_appends_a_row_and_returns_the_new_helpfulness(workspace: Path) -> None:
    ws = Workspace(workspace)
    learning_id = add_learning(workspace)
    found = feedback.record(ws, learning_id, helpful=True, task_id=" T-1 ", model=" claude ")
    assert found.to_dict() == {
        "helpfulness": 0.55,
        "confidence": 0.55,  # the 0.1.0 key, kept one version
        "times_helpful": 1,
        "times_not_helpful": 0,
    }
    (line,) = (ws.bundle_dir(learning_id) / "feedback.jsonl").read_text().splitlines()
    stored = json.loads(line)
    assert {k: stored[k] for k in ("learning_id", "task_id", "model", "helpful")} == {
        "learning_id": learning_id,
        "task_id": "T-1",
        "model": "claude",
        "helpful": True,
    }


def test_a_changed_verdict_for_the_same_task_replaces_the_old_one(workspace: Path) -> None:
    ws = Workspace(workspace)
    learning_id = add_learning(workspace)
    feedback.record(ws, learning_id, helpful=True, task_id="T-1", model=None)
    again = feedback.record(ws, learning_id, helpful=False, task_id="T-1", model="")
    assert again == Helpfulness(0.4, 0, 1)
    rows = (ws.bundle_dir(learning_id) / "feedback.jsonl").read_text().splitlines()
    assert [json.loads(r)["model"] for r in rows] == [None, None]


def test_helpfulness_for_reads_each_learning(workspace: Path) -> None:
    ws = Workspace(workspace)
    first, second = add_learning(workspace), add_learning(workspace, "Other")
    feedback.record(ws, second, helpful=False, task_id="T", model=None)
    result = feedback.helpfulness_for(ws, [first, second])
    assert {k: v.helpfulness for k, v in result.items()} == {first: 0.5, second: 0.4}


def test_record_refuses_a_blank_task_and_an_unknown_learning(workspace: Path) -> None:
    ws = Workspace(workspace)
    learning_id = add_learning(workspace)
    with pytest.raises(UsageError, match="needs a task"):
        feedback.record(ws, learning_id, helpful=True, task_id="  ", model=None)
    with pytest.raises(NotFound):
        feedback.record(ws, "L-0404", helpful=True, task_id="T", model=None)
    assert not (ws.bundle_dir(learning_id) / "feedback.jsonl").exists()
    assert not ws.bundle_dir("L-0404").exists()


def test_markers_in_agent_output_are_recorded(workspace: Path) -> None:
    ws = Workspace(workspace)
    one, two = add_learning(workspace), add_learning(workspace, "Other")
    output = (
        f"Done. LEARNING_HELPFUL: {one} saved me.\n"
        f"LEARNING_NOT_HELPFUL:{two}, and LEARNING_HELPFUL: L-0404 and learning_helpful: {two}"
    )
    report = feedback.record_from_output(ws, output, "T-9", "claude")
    assert [(r["id"], r["helpful"], r["helpfulness"]) for r in report.recorded] == [
        (one, True, 0.55),
        (two, False, 0.4),
    ]
    assert report.unknown == ["L-0404"]


def test_u_markers_go_to_the_personal_store(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(levels.USER_HOME_ENV, str(tmp_path / "me"))
    output = "LEARNING_HELPFUL: U-0001"
    assert feedback.record_from_output(Workspace(workspace), output, "T", None).unknown == [
        "U-0001"
    ]
    user = levels.user_workspace(create=True)
    assert user is not None
    assert add_learning(user.root, level="user") == "U-0001"
    report = feedback.record_from_output(Workspace(workspace), output, "T", None)
    assert [r["id"] for r in report.recorded] == ["U-0001"]
    assert (user.bundle_dir("U-0001") / "feedback.jsonl").is_file()
    assert not (workspace / ".orbit/learnings/U-0001").exists()
