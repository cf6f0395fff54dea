"""Names under `.orbit/`, and spotting files of the pre-bundle flat layout."""

from __future__ import annotations

from pathlib import Path

from orbit_learnings.store import layout


def test_bundle_display_is_repo_relative_posix() -> None:
    assert layout.bundle_display("L-0001") == ".orbit/learnings/L-0001/learning.yaml"
    assert (
        layout.bundle_display("L-0001", layout.VOTES_FILE) == ".orbit/learnings/L-0001/votes.jsonl"
    )


def test_sidecars_are_the_append_only_files() -> None:
    assert layout.SIDECARS == ("votes.jsonl", "feedback.jsonl")


def test_legacy_files_are_flat_yaml_but_not_the_tag_list(tmp_path: Path) -> None:
    others = ["L-0002.yaml", "L-0001.yml", "tags.yaml", "notes.txt", ".gitkeep"]
    assert layout.legacy_files(str(tmp_path), others) == ["L-0001.yml", "L-0002.yaml"]


def test_legacy_files_include_the_superseded_folder(tmp_path: Path) -> None:
    folder = tmp_path / "superseded"
    folder.mkdir()
    for name in ("L-0003.yaml", "L-0004.yml", "README.md"):
        (folder / name).write_text("x")
    assert layout.legacy_files(str(tmp_path), ["superseded", "L-0009.yaml"]) == [
        "L-0009.yaml",
        "superseded/L-0003.yaml",
        "superseded/L-0004.yml",
    ]


def test_a_superseded_folder_not_listed_among_others_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "superseded").mkdir()
    (tmp_path / "superseded" / "L-0003.yaml").write_text("x")
    assert layout.legacy_files(str(tmp_path), []) == []
