"""Real processes: concurrent writers, the installed console script, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from orbit_learnings import store
from orbit_learnings.workspace import Workspace
from tests.conftest import ORBIT_BIN, run_orbit


def test_eight_concurrent_adds_get_distinct_ids_and_valid_bundles(workspace: Path) -> None:
    def add(n: int) -> str:
        outcome = run_orbit(
            "learning", "add", "--summary", f"lesson {n}", "--tag", "t", "--json", cwd=workspace
        )
        assert outcome.code == 0, outcome.err
        return str(json.loads(outcome.out)["id"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = list(pool.map(add, range(8)))
    assert sorted(ids) == [f"L-{n:04d}" for n in range(1, 9)]
    ws = Workspace(workspace)
    summaries = {store.read_learning(ws, i).summary for i in ids}
    assert summaries == {f"lesson {n}" for n in range(8)}
    listed = run_orbit("learning", "list", "--json", cwd=workspace)
    assert len(json.loads(listed.out)["results"]) == 8


def test_concurrent_upvotes_are_all_kept(workspace: Path) -> None:
    run_orbit("learning", "add", "--summary", "s", "--tag", "t", cwd=workspace)

    def vote(n: int) -> int:
        return run_orbit(
            "learning",
            "upvote",
            "--id",
            "L-0001",
            "--model",
            "m",
            "--task",
            f"T-{n}",
            cwd=workspace,
        ).code

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(vote, range(6))) == [0] * 6
    rows = (workspace / ".orbit/learnings/L-0001/votes.jsonl").read_text().splitlines()
    assert sorted(json.loads(r)["task_id"] for r in rows) == [f"T-{n}" for n in range(6)]


def test_errors_in_a_real_process_are_one_line_without_traceback(workspace: Path) -> None:
    outcome = run_orbit("learning", "show", "L-0404", cwd=workspace)
    assert outcome.code == 1
    assert outcome.err.strip().count("\n") == 0 and "Traceback" not in outcome.err
    assert outcome.out == ""


def test_debug_shows_the_traceback(workspace: Path) -> None:
    outcome = run_orbit("--debug", "learning", "show", "L-0404", cwd=workspace)
    assert outcome.code != 0 and "Traceback" in outcome.err


def test_python_dash_m_works(workspace: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "orbit_learnings", "--version"],
        capture_output=True,
        text=True,
        cwd=workspace,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("orbit ")


def test_console_script_is_installed() -> None:
    assert ORBIT_BIN.exists()


def test_body_from_stdin(workspace: Path) -> None:
    outcome = run_orbit(
        "learning",
        "add",
        "--summary",
        "s",
        "--tag",
        "t",
        "--body-file",
        "-",
        cwd=workspace,
        stdin="from stdin\n",
    )
    assert outcome.code == 0
    shown = json.loads(run_orbit("learning", "show", "L-0001", "--json", cwd=workspace).out)
    assert shown["body"] == "from stdin\n"
