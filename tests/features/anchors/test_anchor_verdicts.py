"""Cached anchor verdicts are tied to the file they were judged on: a file renamed and then
deleted is broken in a warm run as in a cold one, `anchors --fix` checks again before it
writes, and a run reads and parses each cited file once, however many anchors cite it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orbit_learnings.core.anchors import fingerprint
from orbit_learnings.core.anchors import locate as locate_module
from orbit_learnings.core.anchors.locate import MOVED, Location
from orbit_learnings.curation.anchors.fixing import apply_moves
from orbit_learnings.curation.anchors.report import anchor_report
from orbit_learnings.retrieval.anchors import AnchorState
from orbit_learnings.store.workspace import Workspace
from tests.testing import git, isolate, run_orbit

FUNCTIONS = 12


def code() -> str:
    return "".join(
        f"def handle_{n}(request):\n    payload = request.json()\n    return save(payload, {n})\n\n\n"
        for n in range(FUNCTIONS)
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repo with one file of twelve functions and a learning citing each of them."""
    isolate(monkeypatch, tmp_path / "home")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src/handlers.py").write_text(code(), encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    assert run_orbit("init", cwd=root).code == 0
    specs = [a for n in range(FUNCTIONS) for a in ("--anchor", f"src/handlers.py::handle_{n}")]
    added = run_orbit("learning", "add", "-s", "handlers save once", *specs, cwd=root)
    assert added.code == 0, added.err
    commit(root, "handlers and the lesson on them")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def states(root: Path) -> list[dict[str, object]]:
    out = run_orbit("learning", "anchors", "--json", cwd=root)
    assert out.code == 0, out.err
    found: list[dict[str, object]] = json.loads(out.out)["anchors"]
    return found


def learning_text(root: Path) -> str:
    return (root / ".orbit/learnings/L-0001/learning.yaml").read_text(encoding="utf-8")


def test_a_file_renamed_then_deleted_is_broken_in_a_warm_run_and_fix_writes_nothing(
    repo: Path,
) -> None:
    git(repo, "mv", "src/handlers.py", "src/api.py")
    commit(repo, "rename")
    assert {s["state"] for s in states(repo)} == {"moved"}  # the verdict is cached now
    git(repo, "rm", "-q", "src/api.py")
    commit(repo, "delete")
    assert {s["state"] for s in states(repo)} == {"broken"}
    before = learning_text(repo)
    fixed = run_orbit("learning", "anchors", "--fix", "--yes", "--json", cwd=repo)
    assert fixed.code == 0, fixed.err
    assert json.loads(fixed.out)["fixes"] == []
    assert learning_text(repo) == before
    stale = run_orbit("learning", "check", "--stale", cwd=repo)
    assert "anchors --fix" not in stale.out + stale.err


def test_fix_checks_the_place_again_before_it_writes(repo: Path) -> None:
    """A verdict that says moved to a file that is not there (a stale cache, a file
    deleted since) is not written."""
    ws = Workspace(str(repo))
    [first, *_] = anchor_report(ws)
    gone = Location(MOVED, "src/nowhere.py", first.anchor.start, first.anchor.end, 1.0)
    elsewhere = Location(MOVED, "src/handlers.py", 200, 202, 1.0)  # not where the lines are
    before = learning_text(repo)
    for location in (gone, elsewhere):
        state = AnchorState(first.learning_id, first.position, first.anchor, location)
        assert apply_moves(ws, [state]) == []
    assert learning_text(repo) == before


def test_a_renamed_file_is_read_and_parsed_once_for_all_its_anchors(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "mv", "src/handlers.py", "src/api.py")
    commit(repo, "rename")
    normalised: list[str] = []
    real = fingerprint.normalise

    def counting(path: str, text: str) -> object:
        normalised.append(path)
        return real(path, text)

    monkeypatch.setattr(locate_module, "normalise", counting)
    found = anchor_report(Workspace(str(repo)))
    assert {s.state for s in found} == {MOVED} and len(found) == FUNCTIONS
    assert normalised.count("src/api.py") == 1
