"""The bundle store: creation, round-trip edits, supersession, votes, migration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orbit_learnings.core.errors import (
    LegacyLayoutError,
    NotFound,
    OrbitError,
    UsageError,
    ValidationFailed,
)
from orbit_learnings.core.model import Evidence
from orbit_learnings.core.scope import Scope
from orbit_learnings.store import bundles as store
from orbit_learnings.store import setup
from orbit_learnings.store.allocation import refuse_legacy_layout
from orbit_learnings.store.changes import Changes, supersede, update_learning
from orbit_learnings.store.workspace import Workspace


def add(
    ws: Workspace,
    summary: str = "Lesson",
    paths: list[str] | None = None,
    tags: list[str] | None = None,
    **kw: Any,
) -> str:
    """The store writes what it is given: look-alike learnings are fine at this layer."""
    scope = Scope(["src/**"] if paths is None and tags is None else paths or [], tags or [])
    return store.create_learning(ws, store.NewLearning(summary=summary, scope=scope, **kw)).id


def test_ids_are_sequential_and_skip_past_the_highest(workspace: Path) -> None:
    ws = Workspace(workspace)
    assert add(ws) == "L-0001"
    assert add(ws) == "L-0002"
    (ws.learnings_dir / "L-0041").mkdir()  # e.g. arrived from another branch, even if broken
    (ws.learnings_dir / "L-0041/learning.yaml").write_text("id: [broken\n")
    assert add(ws) == "L-0042"


def test_new_file_has_spec_fields_and_unquoted_timestamps(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(
        ws,
        "Use cents",
        paths=["billing/**"],
        tags=["money"],
        body="Why:\nfloats",
        evidence=[Evidence("commit", "abc")],
    )
    text = store.learning_file(ws, "L-0001").read_text()
    assert "schemaVersion: 1\n" in text
    assert "\ncreated_at: 20" in text and "Z\n" in text and "'20" not in text
    assert "body: |\n  Why:\n  floats\n" in text
    assert "supersedes: null\n" in text
    learning = store.read_learning(ws, "L-0001")
    assert learning.created_by == "tester"
    assert learning.evidence == (Evidence("commit", "abc"),)


def test_add_recreates_a_missing_learnings_folder(workspace: Path) -> None:
    ws = Workspace(workspace)
    import shutil

    shutil.rmtree(ws.learnings_dir)
    assert add(ws) == "L-0001"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"summary": " ", "scope": Scope(["a"])}, "non-empty summary"),
        ({"summary": "x", "scope": Scope()}, "at least one path glob, tag or anchor"),
        ({"summary": "x", "scope": Scope(["!neg"])}, "invalid scope glob"),
    ],
)
def test_add_refuses_bad_content_and_writes_nothing(
    workspace: Path, kwargs: dict[str, Any], message: str
) -> None:
    ws = Workspace(workspace)
    with pytest.raises(OrbitError, match=message):
        store.create_learning(ws, store.NewLearning(**kwargs))
    assert store.bundle_ids(ws) == []


HAND_EDITED = """\
# Reviewed in PR #42 -- keep the comment!
id: L-0001
schemaVersion: 1
status: active
created_at: 2026-05-09T18:00:00Z
updated_at: 2026-05-09T18:00:00Z
created_by: claude
x-owner-team: platform   # an extension key: kept as written
scope:
    paths:
        - "crates/orbit-engine/**/perf*.rs"   # the hot module
    tags: [performance, benchmarking]
summary: >
    Never declare a perf win on latency alone.
body: |
    Compare outputs first.
evidence:
    - kind: commit
      ref: 3edf00ed
supersedes: null
priority: 0
"""


def test_update_keeps_hand_edited_file_byte_for_byte_outside_changed_keys(workspace: Path) -> None:
    ws = Workspace(workspace)
    path = store.learning_file(ws, "L-0001")
    path.parent.mkdir(parents=True)
    path.write_text(HAND_EDITED)
    update_learning(ws, "L-0001", Changes(priority=3))
    after = path.read_text().splitlines()
    before = HAND_EDITED.splitlines()
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert [b.split(":")[0] for b, _ in changed] == ["updated_at", "priority"]
    assert after[-1] == "priority: 3"


def test_update_replaces_lists_and_appends_evidence(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws, paths=["a/**"], tags=["x"], evidence=[Evidence("task", "T-1")])
    updated = update_learning(
        ws,
        "L-0001",
        Changes(paths=["b/**"], add_evidence=[Evidence("task", "T-1"), Evidence("commit", "ff")]),
    )
    assert updated.paths == ("b/**",)
    assert updated.tags == ("x",)
    assert [e.ref for e in updated.evidence] == ["T-1", "ff"]


def test_update_bumps_updated_at_but_not_created_at(workspace: Path) -> None:
    ws = Workspace(workspace)
    path = store.learning_file(ws, "L-0001")
    path.parent.mkdir(parents=True)
    path.write_text(HAND_EDITED)
    learning = update_learning(ws, "L-0001", Changes(summary="New words"))
    assert learning.created_at == "2026-05-09T18:00:00Z"
    assert learning.updated_at > "2026-05-09T18:00:00Z"
    assert learning.summary == "New words"


def test_update_of_unknown_or_invalid_learning_fails_cleanly(workspace: Path) -> None:
    ws = Workspace(workspace)
    with pytest.raises(NotFound):
        update_learning(ws, "L-0009", Changes(summary="x"))
    path = store.learning_file(ws, "L-0001")
    path.parent.mkdir(parents=True)
    path.write_text("id: L-0001\nstatus: [unclosed\n")
    with pytest.raises(ValidationFailed, match=r"learning.yaml:[23]: invalid YAML"):
        update_learning(ws, "L-0001", Changes(summary="x"))
    assert path.read_text() == "id: L-0001\nstatus: [unclosed\n"


def test_update_with_nothing_to_change_is_a_usage_error(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    with pytest.raises(UsageError):
        update_learning(ws, "L-0001", Changes())


def test_supersede_links_both_records(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws), add(ws)
    old, new = supersede(ws, "L-0001", "L-0002")
    assert (old.status, old.superseded_by) == ("superseded", "L-0002")
    assert new.supersedes == "L-0001"
    assert old.updated_at == new.updated_at


@pytest.mark.parametrize(
    ("setup", "old", "new", "message"),
    [
        ([], "L-0001", "L-0001", "cannot supersede itself"),
        ([], "L-0001", "L-0009", "no learning L-0009"),
        ([("L-0002", "L-0003")], "L-0001", "L-0002", "L-0002 is superseded"),
        ([("L-0001", "L-0003")], "L-0001", "L-0002", "already superseded by L-0003"),
        ([("L-0001", "L-0002")], "L-0001", "L-0002", "already superseded by L-0002"),
    ],
)
def test_supersede_refusals(
    workspace: Path, setup: list[tuple[str, str]], old: str, new: str, message: str
) -> None:
    ws = Workspace(workspace)
    add(ws), add(ws), add(ws)
    for a, b in setup:
        supersede(ws, a, b)
    snapshot = {i: store.learning_file(ws, i).read_text() for i in store.bundle_ids(ws)}
    with pytest.raises(OrbitError, match=message):
        supersede(ws, old, new)
    assert snapshot == {i: store.learning_file(ws, i).read_text() for i in store.bundle_ids(ws)}


def test_rerunning_supersede_completes_a_one_sided_link(workspace: Path) -> None:
    """A crash between the two writes leaves NEW pointing at OLD; re-running finishes it."""
    ws = Workspace(workspace)
    add(ws), add(ws)
    update_learning(ws, "L-0002", Changes(summary="New"))
    path = store.learning_file(ws, "L-0002")
    path.write_text(path.read_text().replace("supersedes: null", "supersedes: L-0001"))
    old, _ = supersede(ws, "L-0001", "L-0002")
    assert old.status == "superseded"


def test_upvote_is_idempotent_per_model_and_task(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    first = store.add_vote(ws, "L-0001", "claude", "T-1")
    again = store.add_vote(ws, "L-0001", "claude", "T-1")
    other = store.add_vote(ws, "L-0001", "codex", "T-1")
    assert (first.vote_count, again.vote_count, other.vote_count) == (1, 1, 2)
    assert again.last_voted_at == first.last_voted_at
    rows = (ws.bundle_dir("L-0001") / "votes.jsonl").read_text().splitlines()
    assert [json.loads(r)["voter_model"] for r in rows] == ["claude", "codex"]
    assert set(json.loads(rows[0])) == {"learning_id", "voter_model", "voted_at", "task_id"}


def test_upvote_does_not_touch_the_learning_file(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    before = store.learning_file(ws, "L-0001").read_text()
    store.add_vote(ws, "L-0001", "claude", "T-1")
    assert store.learning_file(ws, "L-0001").read_text() == before


def test_upvote_refusals(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    with pytest.raises(UsageError, match="needs a task"):
        store.add_vote(ws, "L-0001", "claude", " ")
    with pytest.raises(NotFound):
        store.add_vote(ws, "L-0404", "claude", "T")
    votes = ws.bundle_dir("L-0001") / "votes.jsonl"
    votes.write_text('{"learning_id": "L-0001"\n')
    with pytest.raises(ValidationFailed, match=r"votes\.jsonl:1"):
        store.add_vote(ws, "L-0001", "claude", "T")
    assert votes.read_text() == '{"learning_id": "L-0001"\n'


def test_duplicate_vote_rows_from_a_union_merge_count_once_with_earliest_time(
    workspace: Path,
) -> None:
    from orbit_learnings.store.votes import parse_votes

    row = {"learning_id": "L-0001", "voter_model": "claude", "task_id": "T"}
    text = "\n".join(
        json.dumps({**row, "voted_at": ts})
        for ts in ("2026-05-02T00:00:00Z", "2026-05-01T00:00:00Z")
    )
    votes, problems = parse_votes(text, "L-0001", "votes.jsonl")
    assert problems == []
    assert [v.voted_at for v in votes] == ["2026-05-01T00:00:00Z"]


def test_legacy_layout_is_refused_and_migrated(workspace: Path) -> None:
    ws = Workspace(workspace)
    add(ws)
    flat = store.learning_file(ws, "L-0001").read_text()
    (ws.learnings_dir / "L-0002.yaml").write_text(flat.replace("L-0001", "L-0002"))
    (ws.learnings_dir / "superseded").mkdir()
    (ws.learnings_dir / "superseded" / "L-0003.yaml").write_text(flat.replace("L-0001", "L-0003"))
    (ws.learnings_dir / "tags.yaml").write_text("performance: perf work\n")
    with pytest.raises(LegacyLayoutError, match="migrate-layout"):
        refuse_legacy_layout(ws)
    moves = setup.migrate_layout(ws)
    assert [m.destination for m in moves] == [
        ".orbit/learnings/L-0002/learning.yaml",
        ".orbit/learnings/L-0003/learning.yaml",
    ]
    assert (ws.learnings_dir / "tags.yaml").exists()
    assert not (ws.learnings_dir / "superseded").exists()
    assert setup.migrate_layout(ws) == []  # idempotent
    refuse_legacy_layout(ws)
    assert store.read_learning(ws, "L-0003").id == "L-0003"


def test_init_is_idempotent(tmp_path: Path) -> None:
    first = setup.init_store(tmp_path)
    second = setup.init_store(tmp_path)
    assert ".orbit/.gitignore" in first.created and second.created == []
    assert "state/\n" in (tmp_path / ".orbit/.gitignore").read_text()
    assert (tmp_path / ".orbit/learnings/.gitkeep").exists()


def test_atomic_write_leaves_no_temp_files_and_replaces_whole(tmp_path: Path) -> None:
    from orbit_learnings.store.fileops import atomic_write_text

    target = tmp_path / "f.yaml"
    atomic_write_text(target, "old\n")
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.yaml"]
