"""Anchors against real git history: the issue's two stories end to end, through the
installed `orbit` in real subprocesses (hooks run that way), plus renames, holding back
broken anchors, review annotations and the cached verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing import REPO, git, run_orbit, wait_until_settled

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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repo with src/orders/service.py and one learning citing the lines of
    OrderService.update."""
    root = tmp_path / "shop"
    (root / "src/orders").mkdir(parents=True)
    (root / "src/orders/service.py").write_text(SERVICE, encoding="utf-8")
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


def test_the_hot_path_trusts_its_cached_verdict_until_the_file_changes(repo: Path) -> None:
    """Same size and mtime but different bytes: the cached verdict (ok) is what a hook
    sees, proving it did not re-read the file; a real edit is seen at once."""
    target = repo / "src/orders/service.py"
    bundle = repo / ".orbit/learnings/L-0001/learning.yaml"
    past = bundle.stat().st_mtime_ns - 10**10
    for aged in (bundle, target):  # not "racy": the index keeps its rows and verdicts
        os.utime(aged, ns=(past, past))
    wait_until_settled(repo)
    assert hook_line(repo, "s-cache-1").startswith("L-0001 (scope ")
    before = target.stat()
    target.write_text(SERVICE.replace("retries=3", "retries=4"), encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert hook_line(repo, "s-cache-2").startswith("L-0001 (scope ")
    target.write_text(SERVICE.replace("retries=3", "retries=42"), encoding="utf-8")
    assert "anchor drifted" in hook_line(repo, "s-cache-3")


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


def test_a_verdict_on_a_file_written_just_now_is_judged_again(repo: Path) -> None:
    """The index's racy rule: a file younger than its timestamp granularity may be
    rewritten behind the same stat, so its verdict is stored poisoned and never reused."""
    target = repo / "src/orders/service.py"
    bundle = repo / ".orbit/learnings/L-0001/learning.yaml"
    past = bundle.stat().st_mtime_ns - 10**10
    os.utime(bundle, ns=(past, past))  # the learning is settled: the index keeps its rows
    os.utime(target)  # the cited file was written "now"
    assert hook_line(repo, "s-racy-1").startswith("L-0001 (scope ")
    before = target.stat()
    target.write_text(SERVICE.replace("retries=3", "retries=4"), encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert "anchor drifted" in hook_line(repo, "s-racy-2")


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
