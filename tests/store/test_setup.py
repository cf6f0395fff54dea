"""`init` and the one-way flat-to-bundle migration."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store import setup
from orbit_learnings.store.workspace import Workspace
from tests.testing import git

FLAT = """\
id: {id}
schemaVersion: 1
status: active
created_at: 2026-05-09T18:00:00Z
updated_at: 2026-05-09T18:00:00Z
scope:
  paths: [src/**]
summary: A lesson
"""


def test_init_creates_the_store_and_reports_what_it_made(tmp_path: Path) -> None:
    report = setup.init_store(tmp_path)
    assert report.root == tmp_path
    assert report.created == [
        ".orbit/learnings/",
        ".orbit/learnings/.gitkeep",
        ".orbit/.gitignore",
        ".orbit/.gitattributes",
    ]
    assert (tmp_path / ".orbit/.gitignore").read_text() == setup.GITIGNORE_TEXT
    assert (tmp_path / ".orbit/.gitattributes").read_text() == setup.GITATTRIBUTES_TEXT


def test_init_twice_changes_nothing_and_keeps_hand_edits(tmp_path: Path) -> None:
    setup.init_store(tmp_path)
    (tmp_path / ".orbit/.gitignore").write_text("state/\nscratch/\n*.tmp\n")
    (tmp_path / ".orbit/learnings/.gitkeep").unlink()
    assert setup.init_store(tmp_path).created == [".orbit/learnings/.gitkeep"]
    assert (tmp_path / ".orbit/.gitignore").read_text() == "state/\nscratch/\n*.tmp\n"


def test_an_older_store_learns_to_ignore_temp_files(tmp_path: Path) -> None:
    """A write killed before its rename leaves `.learning.yaml.<pid>.tmp`: never commit it."""
    git(tmp_path, "init", "-q")
    setup.init_store(tmp_path)
    (tmp_path / ".orbit/.gitignore").write_text("state/\n")  # as stores were made before
    assert setup.init_store(tmp_path).created == [".orbit/.gitignore (*.tmp)"]
    (tmp_path / ".orbit/learnings/L-0001").mkdir()
    leftover = ".orbit/learnings/L-0001/.learning.yaml.123.456.tmp"
    (tmp_path / leftover).write_text("half")
    assert git(tmp_path, "check-ignore", leftover).strip() == leftover


def test_git_ignores_state_and_gives_each_file_its_merge(tmp_path: Path) -> None:
    """What the two files are for, checked by git itself."""
    git(tmp_path, "init", "-q")
    setup.init_store(tmp_path)
    ignored = git(tmp_path, "check-ignore", ".orbit/state/index.sqlite3")
    assert ignored.strip() == ".orbit/state/index.sqlite3"
    attrs = git(
        tmp_path,
        "check-attr",
        "merge",
        ".orbit/learnings/L-0001/votes.jsonl",
        ".orbit/learnings/L-0001/feedback.jsonl",
        ".orbit/learnings/L-0001/learning.yaml",
    )
    assert attrs.splitlines() == [
        ".orbit/learnings/L-0001/votes.jsonl: merge: union",
        ".orbit/learnings/L-0001/feedback.jsonl: merge: union",
        ".orbit/learnings/L-0001/learning.yaml: merge: orbit-learning",
    ]


def test_migrate_moves_flat_files_into_bundles(workspace: Path) -> None:
    ws = Workspace(workspace)
    (ws.learnings_dir / "L-0001.yaml").write_text(FLAT.format(id="L-0001"))
    (ws.learnings_dir / "L-0002.yml").write_text(FLAT.format(id="L-0002"))
    (ws.learnings_dir / "superseded").mkdir()
    (ws.learnings_dir / "superseded" / "L-0003.yaml").write_text(FLAT.format(id="L-0003"))
    (ws.learnings_dir / "tags.yaml").write_text("db: databases\n")
    moves = setup.migrate_layout(ws)
    assert [(m.source, m.destination) for m in moves] == [
        (".orbit/learnings/L-0001.yaml", ".orbit/learnings/L-0001/learning.yaml"),
        (".orbit/learnings/L-0002.yml", ".orbit/learnings/L-0002/learning.yaml"),
        (".orbit/learnings/superseded/L-0003.yaml", ".orbit/learnings/L-0003/learning.yaml"),
    ]
    assert (ws.learnings_dir / "L-0002" / "learning.yaml").read_text() == FLAT.format(id="L-0002")
    assert not (ws.learnings_dir / "superseded").exists()
    assert (ws.learnings_dir / "tags.yaml").read_text() == "db: databases\n"
    assert setup.migrate_layout(ws) == []


def test_migrate_refuses_to_overwrite_a_bundle(workspace: Path) -> None:
    ws = Workspace(workspace)
    (ws.learnings_dir / "L-0001").mkdir()
    (ws.learnings_dir / "L-0001" / "learning.yaml").write_text("the bundle\n")
    (ws.learnings_dir / "L-0001.yaml").write_text("the flat file\n")
    with pytest.raises(OrbitError, match=r"L-0001/learning\.yaml already exists"):
        setup.migrate_layout(ws)
    assert (ws.learnings_dir / "L-0001" / "learning.yaml").read_text() == "the bundle\n"
    assert (ws.learnings_dir / "L-0001.yaml").read_text() == "the flat file\n"


def test_migrate_refuses_a_file_not_named_by_an_id(workspace: Path) -> None:
    ws = Workspace(workspace)
    (ws.learnings_dir / "notes.yaml").write_text("x: 1\n")
    with pytest.raises(OrbitError, match=r"notes\.yaml: file name is not a learning id"):
        setup.migrate_layout(ws)
    assert (ws.learnings_dir / "notes.yaml").exists()


def test_migrate_keeps_a_superseded_folder_that_still_holds_other_files(workspace: Path) -> None:
    ws = Workspace(workspace)
    (ws.learnings_dir / "superseded").mkdir()
    (ws.learnings_dir / "superseded" / "L-0003.yaml").write_text(FLAT.format(id="L-0003"))
    (ws.learnings_dir / "superseded" / "README.md").write_text("why\n")
    setup.migrate_layout(ws)
    assert [p.name for p in (ws.learnings_dir / "superseded").iterdir()] == ["README.md"]
