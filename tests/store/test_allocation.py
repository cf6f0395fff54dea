"""Allocating IDs: sequential past the highest of this level, or random by config."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.allocation import allocate_id, next_sequential_id
from orbit_learnings.store.workspace import Workspace


def test_the_first_id_is_one(workspace: Path) -> None:
    assert next_sequential_id(Workspace(workspace)) == "L-0001"


def test_sequential_ids_skip_past_the_highest_not_into_gaps(workspace: Path) -> None:
    ws = Workspace(workspace)
    for name in ("L-0002", "L-0040", "L-7KQ2M9XD", "notes"):
        (ws.learnings_dir / name).mkdir()
    (ws.learnings_dir / "L-0041.yaml").write_text("flat layout\n")
    assert next_sequential_id(ws) == "L-0042"


def test_sequential_ids_respect_the_level_prefix(workspace: Path) -> None:
    project = Workspace(workspace)
    (project.learnings_dir / "U-0099").mkdir()
    (project.learnings_dir / "L-0003").mkdir()
    assert next_sequential_id(project) == "L-0004"
    assert next_sequential_id(Workspace(workspace, level="user")) == "U-0100"


def test_no_learnings_folder_yet(tmp_path: Path) -> None:
    assert next_sequential_id(Workspace(tmp_path)) == "L-0001"


def test_allocate_claims_the_bundle_folder(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    first, second = allocate_id(ws), allocate_id(ws)
    assert (first, second) == ("L-0001", "L-0002")
    assert ws.bundle_dir(first).is_dir() and ws.bundle_dir(second).is_dir()


def test_random_ids_from_the_config(workspace: Path) -> None:
    (workspace / ".orbit" / "config.yaml").write_text("ids: random\n")
    ws = Workspace(workspace, level="user")
    allocated = {allocate_id(ws) for _ in range(20)}
    assert len(allocated) == 20
    for learning_id in allocated:
        prefix, _, body = learning_id.partition("-")
        assert prefix == "U" and len(body) == ids.RANDOM_LENGTH
        assert set(body) <= set(ids.RANDOM_ALPHABET)
        assert ids.is_learning_id(learning_id) and not ids.SEQUENTIAL_ID.match(learning_id)
        assert ws.bundle_dir(learning_id).is_dir()


def test_a_bad_id_mode_allocates_nothing(workspace: Path) -> None:
    (workspace / ".orbit" / "config.yaml").write_text("ids: uuid\n")
    ws = Workspace(workspace)
    with pytest.raises(OrbitError, match="ids must be one of"):
        allocate_id(ws)
    assert [p.name for p in ws.learnings_dir.iterdir()] == [".gitkeep"]


def scripted_choice(monkeypatch: pytest.MonkeyPatch, bodies: list[str]) -> None:
    """Make the random draws predictable: one character per call, in order."""
    import secrets

    stream = iter("".join(bodies))
    monkeypatch.setattr(secrets, "choice", lambda _alphabet: next(stream))


def test_an_all_digit_draw_is_redrawn(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An all-digit random name would read as a sequential ID."""
    (workspace / ".orbit" / "config.yaml").write_text("ids: random\n")
    scripted_choice(monkeypatch, ["00000042", "7KQ2M9XD"])
    assert allocate_id(Workspace(workspace)) == "L-7KQ2M9XD"


def test_a_taken_random_name_is_skipped(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (workspace / ".orbit" / "config.yaml").write_text("ids: random\n")
    ws = Workspace(workspace)
    (ws.learnings_dir / "L-7KQ2M9XD").mkdir()
    (ws.learnings_dir / "L-7KQ2M9XD" / "learning.yaml").write_text("keep me\n")
    scripted_choice(monkeypatch, ["7KQ2M9XD", "ABCDEFGH"])
    assert allocate_id(ws) == "L-ABCDEFGH"
    assert (ws.learnings_dir / "L-7KQ2M9XD" / "learning.yaml").read_text() == "keep me\n"
