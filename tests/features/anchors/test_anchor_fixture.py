"""The anchor evaluation set checks out on its own: files, git history, and labels agree.

Everything here runs without the anchors feature, so that when test_anchor_history.py
fails the fault is the feature's, not the fixture's: the repository builds, every file
operation applies, renames are renames to git, and every label is consistent with the
files (an `ok`/`moved` place holds the cited code modulo whitespace and comments; a
`drifted`/`broken` anchor's code is found nowhere).
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import get_args

import pytest

from tests.fixtures.anchor_history import (
    ANCHORS,
    COMMITS,
    LEARNINGS,
    Kind,
    Label,
    Move,
    Where,
    files_per_step,
    labels_per_step,
)
from tests.fixtures.anchor_repo import Step, build, git, read
from tests.fixtures.anchor_text import code_of, excerpt, find_code, same_code, symbol_range

STEPS = labels_per_step()
TREES = [files for files, _ in files_per_step()]
TOUCHED = [touched for _, touched in files_per_step()]
BASE = TREES[0]
ORIGINAL = {key: code_of(a.path, excerpt(BASE[a.path], *a.lines)) for key, a in ANCHORS.items()}
CASES = [label for step in STEPS for label in step]
MIN_FRESH_PER_KIND = 3


def case_id(label: Label) -> str:
    return f"{label.step}-{label.anchor.key}"


def test_the_history_is_long_enough_and_covers_every_kind_several_times() -> None:
    assert len(COMMITS) >= 10
    fresh = Counter(label.expect.kind for label in CASES if label.fresh and label.step)
    kinds = set(get_args(Kind)) - {"unchanged"}
    assert {k: fresh[k] for k in sorted(kinds) if fresh[k] < MIN_FRESH_PER_KIND} == {}
    assert sum(1 for a in ANCHORS.values() if a.symbol) >= 3
    assert {Path(a.path).suffix for a in ANCHORS.values()} >= {".py", ".ts", ".sql", ".yaml"}


def test_anchors_are_unique_and_recorded_on_whole_definitions() -> None:
    keys = [a.key for learning in LEARNINGS for a in learning.anchors]
    assert len(keys) == len(set(keys))
    for anchor in ANCHORS.values():
        if anchor.symbol:
            assert symbol_range(BASE[anchor.path], anchor.symbol) == anchor.lines, anchor.key
        lines = excerpt(BASE[anchor.path], *anchor.lines)
        assert len(lines) == anchor.lines[1] - anchor.lines[0] + 1, anchor.key
        assert lines[0].strip() and lines[-1].strip(), anchor.key


@pytest.mark.parametrize("label", CASES, ids=case_id)
def test_each_label_agrees_with_the_files(label: Label) -> None:
    files, anchor = TREES[label.step], label.anchor
    original, place = ORIGINAL[anchor.key], label.place
    if label.expect.state in ("ok", "moved"):
        assert place is not None, "ok and moved labels say where the code is"
        assert same_code(place.path, files.get(place.path, ""), place.start, place.end, original)
        if anchor.symbol:
            assert symbol_range(files[place.path], anchor.symbol) == (place.start, place.end)
        _assert_spot(label, place)
    else:
        assert label.expect.now is None, "drifted and broken labels name no place"
        assert find_code(files, original) == [], "the cited code is still there unchanged"
        survivors = _surviving_lines(anchor.path, files, original_lines(label))
        if label.expect.state == "drifted":
            assert survivors, "a drifted anchor has a recognisable successor"
        else:
            assert not _surviving_first_line(files, label), "a broken anchor's code is gone"


def _assert_spot(label: Label, place: Where) -> None:
    """`ok` means the anchor as written still points at the code; `moved` means it does not."""
    if label.anchor.symbol:  # written by name: only its path can go stale
        assert (place.path == label.anchor.path) is (label.expect.state == "ok")
    else:
        assert (place == label.anchor.recorded) is (label.expect.state == "ok")


def original_lines(label: Label) -> list[str]:
    anchor = label.anchor
    return excerpt(BASE[anchor.path], *anchor.lines)


def _surviving_lines(path: str, files: dict[str, str], lines: list[str]) -> list[str]:
    everywhere = {code_of(p, [line]) for p, text in files.items() for line in text.splitlines()}
    codes = [code_of(path, [line]) for line in lines]
    return [code for code in codes if len(code) > 12 and code in everywhere]


def _surviving_first_line(files: dict[str, str], label: Label) -> bool:
    first = code_of(label.anchor.path, original_lines(label)[:1])
    return any(first == code_of(p, [line]) for p, t in files.items() for line in t.splitlines())


def test_a_commit_that_touches_a_file_labels_every_anchor_in_it() -> None:
    where = {key: a.path for key, a in ANCHORS.items()}
    gone: set[str] = set()
    for number, change in enumerate(COMMITS, 1):
        renames = {op.src: op.dst for op in change.ops if isinstance(op, Move)}
        inside = {key for key, path in where.items() if path in TOUCHED[number] and key not in gone}
        assert inside <= set(change.expect), f"step {number} leaves {inside - set(change.expect)}"
        for key, expect in change.expect.items():
            where[key] = expect.now.path if expect.now else renames.get(where[key], where[key])
            if expect.state == "broken":
                gone.add(key)


def test_a_deleted_file_or_function_is_never_labelled_anything_but_broken_afterwards() -> None:
    for before, after in itertools.pairwise(STEPS):
        for old, new in zip(before, after, strict=True):
            if old.expect.state == "broken":
                assert new.expect.state == "broken", case_id(new)


def test_the_repository_builds_and_replays_the_history(tmp_path: Path) -> None:
    seen: list[int] = []

    def check(step: Step) -> None:
        seen.append(step.number)
        tracked = git(step.root, step.env, "ls-files").split()
        assert {p: read(step.root, p) for p in tracked} == TREES[step.number]
        assert git(step.root, step.env, "status", "--porcelain") == ""
        if step.number:
            _assert_renames_seen_by_git(step)

    build(tmp_path, check, with_orbit=False)
    assert seen == list(range(len(COMMITS) + 1))


def _assert_renames_seen_by_git(step: Step) -> None:
    diff = git(step.root, step.env, "diff", "--name-status", "-M", "HEAD~1", "HEAD")
    renamed = {tuple(line.split("\t")[1:]) for line in diff.splitlines() if line.startswith("R")}
    moves = {(op.src, op.dst) for op in COMMITS[step.number - 1].ops if isinstance(op, Move)}
    assert renamed == moves
    assert all(step.labels[i].step == step.number for i in range(len(step.labels)))
