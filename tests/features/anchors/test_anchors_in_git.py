"""Anchors against real git history: the issue's two stories end to end, through the
installed `orbit` in real subprocesses (hooks run that way), plus renames, holding back
broken anchors, review annotations and the cached verdict. The two tests about the cached
verdict run the hook in-process with the index's clock pinned: what they check is which
verdicts were judged again, which must not depend on how loaded the machine is."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.testing import REPO, copy_of, git, isolate, run_orbit

SERVICE = '''"""Orders."""


class OrderService:
    def create(self, order):
        return self.repo.insert(order)

    def update(self, order):
        if order.version != self.current_version(order.id):
            raise Conflict(order.id)
        self.repo.save(order, retries=3)
        return order
'''
HOOK_PAYLOAD = REPO / "tests/fixtures/agents/claude-code.PostToolUse.Read.json"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repo with src/orders/service.py and one learning citing the lines of
    OrderService.update, built once: each test gets a copy (`repo`)."""
    root = tmp_path_factory.mktemp("template") / "shop"
    (root / "src/orders").mkdir(parents=True)
    (root / "src/orders/service.py").write_text(SERVICE, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("home"))
        git(root, "init", "-q", "-b", "main")
        assert run_orbit("init", cwd=root).code == 0
        added = run_orbit(
            "learning", "add", "-s", "update must compare versions before saving", "--json",
            "--anchor", "src/orders/service.py:8-12", cwd=root,
        )  # fmt: skip
        assert added.code == 0, added.err
        assert json.loads(added.out)["id"] == "L-0001"
        commit(root, "orders and the lesson on them")
    return root


@pytest.fixture
def repo(shop: Path, tmp_path: Path) -> Path:
    return copy_of(shop, tmp_path / "shop")


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def edit(root: Path, old: str, new: str, path: str = "src/orders/service.py") -> None:
    target = root / path
    target.write_text(target.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def anchors(root: Path) -> list[dict[str, object]]:
    out = run_orbit("learning", "anchors", "--json", cwd=root)
    assert out.code == 0, out.err
    result: list[dict[str, object]] = json.loads(out.out)["anchors"]
    return result


def hook_line(root: Path, session: str) -> str:
    payload = HOOK_PAYLOAD.read_text(encoding="utf-8").replace("{root}", str(root))
    payload = payload.replace("{session}", session).replace(
        "billing/invoice.py", "src/orders/service.py"
    )
    out = run_orbit("hook", "claude-code", cwd=root, stdin=payload)
    assert out.code == 0 and out.err == ""
    if not out.out:
        return ""
    context: str = json.loads(out.out)["hookSpecificOutput"]["additionalContext"]
    return next((line for line in context.splitlines() if line.startswith("L-0001")), "")


def test_a_function_moved_within_its_file_is_moved_fixed_and_still_pushed(repo: Path) -> None:
    moved = SERVICE.replace('"""Orders."""\n', '"""Orders."""\n\nimport logging\n\nLOG = 1\n')
    (repo / "src/orders/service.py").write_text(moved, encoding="utf-8")
    commit(repo, "imports above")

    [state] = anchors(repo)
    assert state["state"] == "moved"
    assert state["now"] == {"path": "src/orders/service.py", "lines": "12-16"}
    assert hook_line(repo, "s-moved").startswith("L-0001 (scope src/orders/service.py")

    fixed = run_orbit("learning", "anchors", "--fix", "--yes", cwd=repo)
    assert fixed.code == 0, fixed.err
    assert "src/orders/service.py:8-12 -> src/orders/service.py:12-16" in fixed.out
    text = (repo / ".orbit/learnings/L-0001/learning.yaml").read_text(encoding="utf-8")
    assert "lines: 12-16" in text
    assert anchors(repo)[0]["state"] == "ok"
    listed = run_orbit("learning", "list", "--path", "src/orders/service.py", "--json", cwd=repo)
    assert [h["id"] for h in json.loads(listed.out)["results"]] == ["L-0001"]


def test_rewritten_lines_drift_in_the_hook_in_ci_and_in_show(repo: Path) -> None:
    edit(repo, "self.repo.save(order, retries=3)", "self.repo.upsert(order)")
    commit(repo, "upsert instead of save")

    line = hook_line(repo, "s-drift")
    assert line.startswith("L-0001 (anchor drifted: src/orders/service.py:8-12 changed since ")

    check = run_orbit("learning", "check", "--stale", "--format", "github", cwd=repo)
    assert check.code == 1
    annotation = next(a for a in check.out.splitlines() if "title=orbit anchor" in a)
    assert annotation.startswith("::error file=src/orders/service.py,line=8,endLine=12,")

    shown = run_orbit("learning", "show", "L-0001", cwd=repo)
    assert shown.code == 0, shown.err
    side_by_side = [row for row in shown.out.splitlines() if " │ " in row]
    assert any("retries=3" in row and "upsert" in row for row in side_by_side)
    shown_json = json.loads(run_orbit("learning", "show", "L-0001", "--json", cwd=repo).out)
    [state] = shown_json["anchor_states"]
    assert any("retries=3" in line for line in state["recorded_text"])
    assert any("upsert" in line for line in state["now_text"])


def test_a_deleted_function_is_held_back_unless_asked_for(repo: Path) -> None:
    edit(repo, SERVICE[SERVICE.index("    def update") :], "")
    commit(repo, "no more update")
    assert anchors(repo)[0]["state"] == "broken"
    assert hook_line(repo, "s-broken") == ""
    quiet = run_orbit("learning", "inject", "--path", "src/orders/service.py", cwd=repo)
    assert "L-0001" not in quiet.out
    loud = run_orbit(
        "learning", "inject", "--path", "src/orders/service.py", "--include-stale", cwd=repo
    )
    assert "(anchor broken: src/orders/service.py:8-12 is gone)" in loud.out


def test_a_renamed_file_is_followed_and_fix_moves_the_scope(repo: Path) -> None:
    git(repo, "mv", "src/orders/service.py", "src/orders/orders_service.py")
    commit(repo, "rename")
    [state] = anchors(repo)
    assert state["state"] == "moved"
    assert state["now"] == {"path": "src/orders/orders_service.py", "lines": "8-12"}
    # The curation run cached git's answer: the hook now pushes it for the file it names.
    run_orbit("learning", "anchors", "--fix", "--yes", cwd=repo)
    listed = run_orbit(
        "learning", "list", "--path", "src/orders/orders_service.py", "--json", cwd=repo
    )
    assert [h["id"] for h in json.loads(listed.out)["results"]] == ["L-0001"]


def test_check_base_names_the_anchors_a_branch_changed(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo, "raise Conflict(order.id)", "return None")
    commit(repo, "lenient update")
    out = run_orbit("learning", "check", "--base", "main", "--json", cwd=repo)
    assert out.code == 1
    touched = [p for p in json.loads(out.out)["problems"] if p["kind"] == "anchor-touched"]
    assert [(p["file"], p["line"], p["id"]) for p in touched] == [
        ("src/orders/service.py", 10, "L-0001")
    ]
    # Re-recording the anchor on the branch answers it.
    update = run_orbit(
        "learning", "update", "L-0001", "--anchor", "src/orders/service.py::OrderService.update",
        cwd=repo,
    )  # fmt: skip
    assert update.code == 0, update.err
    again = run_orbit("learning", "check", "--base", "main", "--json", cwd=repo)
    assert again.code == 0, again.out


@pytest.fixture
def judged(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The anchors whose verdict was computed (not taken from the index), in order, and
    the current folder at `repo`: these tests run the hook in-process to watch that."""
    from orbit_learnings.core.anchors.locate import locate as real  # what retrieval.anchors calls
    from orbit_learnings.retrieval import anchors as retrieval_anchors

    calls: list[str] = []

    def counting(anchor: Any, code: Any) -> Any:
        calls.append(anchor.cited)
        return real(anchor, code)

    monkeypatch.setattr(retrieval_anchors, "locate", counting)
    monkeypatch.chdir(repo)
    return calls


def pin_clock(monkeypatch: pytest.MonkeyPatch, now_ns: int) -> None:
    """The moment the index's racy rule compares change times with."""
    from orbit_learnings.index import freshness

    monkeypatch.setattr(freshness, "clock_ns", lambda: now_ns)


def hook_in_process(
    root: Path, session: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """`hook_line`, through `orbit_learnings.entry.main` in this process."""
    from orbit_learnings.entry import main

    payload = HOOK_PAYLOAD.read_text(encoding="utf-8").replace("{root}", str(root))
    payload = payload.replace("{session}", session).replace(
        "billing/invoice.py", "src/orders/service.py"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(payload))
    capsys.readouterr()
    assert main(["hook", "claude-code"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    if not out:
        return ""
    context: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return next((line for line in context.splitlines() if line.startswith("L-0001")), "")


def test_the_hot_path_trusts_its_cached_verdict_until_the_file_changes(
    repo: Path,
    judged: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A settled verdict is taken from the index; an edit that restores the file's size
    and modification time (`cp -p`, `touch -r`) still changes its change time, so the
    next hook judges the file again and sees the drift."""
    pin_clock(monkeypatch, time.time_ns() + 60 * 10**9)  # a minute on: nothing is racy
    assert hook_in_process(repo, "s-cache-1", monkeypatch, capsys).startswith("L-0001 (scope ")
    assert judged == ["src/orders/service.py:8-12"]
    assert hook_in_process(repo, "s-cache-2", monkeypatch, capsys).startswith("L-0001 (scope ")
    assert judged == ["src/orders/service.py:8-12"]  # the cached verdict, not a second look
    target = repo / "src/orders/service.py"
    before = target.stat()
    target.write_text(SERVICE.replace("retries=3", "retries=4"), encoding="utf-8")  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    assert "anchor drifted" in hook_in_process(repo, "s-cache-3", monkeypatch, capsys)
    assert len(judged) == 2


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("src/orders/missing.py:1-3", "no file src/orders/missing.py"),
        ("../elsewhere.py:1", "outside the workspace"),
        ("src/orders/service.py:4-400", "at most 300 lines"),
        ("src/orders/service.py:40-41", "has 12 lines"),
        ("src/orders/service.py::OrderService.delete", "no definition"),
        ("src/orders/service.py", "PATH:START-END"),
    ],
)
def test_an_anchor_that_cannot_be_cited_is_refused_and_nothing_is_written(
    repo: Path, spec: str, message: str
) -> None:
    out = run_orbit("learning", "add", "-s", "another lesson", "--anchor", spec, cwd=repo)
    assert out.code != 0
    assert message in out.err and "Traceback" not in out.err
    assert len(out.err.strip().splitlines()) == 1
    assert not (repo / ".orbit/learnings/L-0002").exists()


def test_anchors_refuses_what_it_cannot_do_and_writes_nothing(repo: Path) -> None:
    before = (repo / ".orbit/learnings/L-0001/learning.yaml").read_text(encoding="utf-8")
    unknown = run_orbit("learning", "anchors", "L-0010", cwd=repo)
    assert unknown.code == 1 and "no learning L-0010" in unknown.err
    lonely = run_orbit("learning", "anchors", "--yes", cwd=repo)
    assert lonely.code == 2 and "--fix" in lonely.err
    moved = SERVICE.replace('"""Orders."""\n', '"""Orders."""\n\nimport logging\n')
    (repo / "src/orders/service.py").write_text(moved, encoding="utf-8")
    piped = run_orbit("learning", "anchors", "--fix", cwd=repo, stdin="")
    assert piped.code == 2 and "pass --yes to apply" in piped.err
    preview = run_orbit("learning", "anchors", "--fix", "--dry-run", "--json", cwd=repo)
    assert json.loads(preview.out)["fixes"] == [
        {"id": "L-0001", "from": "src/orders/service.py:8-12", "to": "src/orders/service.py:10-14"}
    ]
    after = (repo / ".orbit/learnings/L-0001/learning.yaml").read_text(encoding="utf-8")
    assert after == before


def test_a_hand_broken_anchor_is_named_with_its_line(repo: Path) -> None:
    path = repo / ".orbit/learnings/L-0001/learning.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("fingerprint: ", "fingerprint: x"), encoding="utf-8")
    out = run_orbit("learning", "check", cwd=repo)
    assert out.code == 1
    assert out.out.strip().splitlines() == [
        f".orbit/learnings/L-0001/learning.yaml:{_line_of(text, 'fingerprint:')}: "
        "anchors[0].fingerprint must be 16 hex digits"
    ]


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_verdict_on_a_file_written_just_now_is_judged_again(
    repo: Path,
    judged: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The index's racy rule: a file younger than its timestamp granularity may be
    rewritten behind the same stat, so its verdict is stored poisoned and never reused.
    The clock is pinned, so "just now" does not depend on how fast this machine is; the
    verdicts are judged by `states_for` itself, so no re-read learning muddies the count."""
    from orbit_learnings.index.schema import open_usable
    from orbit_learnings.retrieval.anchors import states_for
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(repo)
    pin_clock(monkeypatch, time.time_ns() + 60 * 10**9)
    assert hook_in_process(repo, "s-racy-1", monkeypatch, capsys).startswith("L-0001 (scope ")
    target = repo / "src/orders/service.py"
    os.utime(target)  # the cited file was written "now"
    judged.clear()

    def judge(now_ns: int) -> None:
        pin_clock(monkeypatch, now_ns)
        conn = open_usable(ws)
        try:
            [state] = states_for(ws, conn)
        finally:
            conn.close()
        assert state.state == "ok"

    written = target.stat().st_ctime_ns
    judge(written + 50_000_000)  # 50 ms after the write: within the racy window
    judge(written + 60 * 10**9)  # its verdict was stored poisoned: judged once more
    judge(written + 61 * 10**9)  # now settled, and trusted
    assert judged == ["src/orders/service.py:8-12"] * 2


_MODULES_AFTER_HOOK = (
    "import io, sys; sys.stdin = io.StringIO(sys.argv[1]); "
    "from orbit_learnings.entry import main; main(['hook', 'claude-code']); "
    "sys.stderr.write('\\nMODULES ' + ' '.join(sys.modules))"
)


def hook_modules(root: Path, session: str) -> set[str]:
    payload = HOOK_PAYLOAD.read_text(encoding="utf-8").replace("{root}", str(root))
    payload = payload.replace("{session}", session).replace(
        "billing/invoice.py", "src/orders/service.py"
    )
    proc = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER_HOOK, payload],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"L-0001' in proc.stdout or "L-0001 (" in proc.stdout  # the learning was pushed
    return set(proc.stderr.rsplit("MODULES ", 1)[1].split())


def test_only_a_push_with_an_anchored_learning_loads_the_anchors_code(repo: Path) -> None:
    assert "orbit_learnings.core.anchors.locate" in hook_modules(repo, "s-modules-1")
    update = run_orbit(
        "learning", "update", "L-0001", "--no-anchor", "--path", "src/orders/**", cwd=repo
    )
    assert update.code == 0, update.err
    assert "orbit_learnings.core.anchors.locate" not in hook_modules(repo, "s-modules-2")
