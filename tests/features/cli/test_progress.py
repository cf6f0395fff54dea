"""Progress for long work: reported by the layers, shown on a terminal after a second."""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from orbit_learnings.cli import progress as terminal
from orbit_learnings.core import progress
from orbit_learnings.core.scope import Scope
from orbit_learnings.curation.check import check_store
from orbit_learnings.curation.staleness import find_stale
from orbit_learnings.index import build
from orbit_learnings.store import bundles
from orbit_learnings.store.workspace import Workspace


@pytest.fixture
def heard() -> Iterator[list[tuple[str, int, int]]]:
    calls: list[tuple[str, int, int]] = []
    progress.set_reporter(lambda label, done, total: calls.append((label, done, total)))
    yield calls
    progress.set_reporter(None)


def test_a_first_index_and_a_stale_check_report_how_far_they_are(
    workspace: Path, heard: list[tuple[str, int, int]]
) -> None:
    ws = Workspace(workspace)
    for n in range(120):
        bundles.create_learning(ws, bundles.NewLearning(f"lesson {n}", Scope([f"gone{n}/**"])))
    build.sync(ws)
    indexing = [c for c in heard if c[0] == "indexing learnings"]
    assert indexing[-1] == ("indexing learnings", 120, 120) and len(indexing) >= 3
    find_stale(ws)
    assert ("checking for stale learnings", 120, 120) in heard


def test_check_reports_its_validation_and_its_stale_check(
    workspace: Path, heard: list[tuple[str, int, int]]
) -> None:
    ws = Workspace(workspace)
    for n in range(30):
        bundles.create_learning(ws, bundles.NewLearning(f"lesson {n}", Scope([f"gone{n}/**"])))
    assert len(check_store(ws, stale=True)) == 30
    assert ("validating learnings", 30, 30) in heard
    assert ("checking for stale learnings", 30, 30) in heard


def test_the_terminal_line_waits_a_second_then_rewrites_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = iter([0.0, 0.5, 1.5, 1.6, 2.0, 2.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    show = terminal.TerminalProgress()
    show("indexing learnings", 1, 10)  # t=0: starts the clock
    show("indexing learnings", 2, 10)  # t=0.5: too soon to say anything
    assert err.getvalue() == ""
    show("indexing learnings", 5, 10)  # t=1.5
    show("indexing learnings", 6, 10)  # t=1.6: within 0.2 s of the last line
    show("indexing learnings", 10, 10)  # t=2.0: done
    assert err.getvalue() == "\rorbit: indexing learnings 5/10\rorbit: indexing learnings 10/10\n"


def test_quick_work_and_pipes_stay_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 0.3])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    show = terminal.TerminalProgress()
    show("checking", 1, 2)
    show("checking", 2, 2)
    assert err.getvalue() == ""
    terminal.install_if_terminal()  # stderr is not a terminal here
    assert progress._reporters == []
