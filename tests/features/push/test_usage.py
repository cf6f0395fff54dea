"""What nobody uses: `push.usage` and `orbit learning check --unused DAYS`.

Real stores in tmp_path: learnings with a back-dated `created_at`, the injection log, vote
and feedback sidecars written as orbit writes them, and the CLI, in-process (the `orbit` fixture): what `check` says, not how a process exits.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orbit_learnings.core.timestamps import format_ts
from orbit_learnings.push import usage
from orbit_learnings.store.changes import archive_learning, supersede
from orbit_learnings.store.workspace import Workspace
from tests.testing import CliRunner, add_learning, git

NOW = datetime.now(UTC)


def ago(days: float) -> str:
    return format_ts(NOW - timedelta(days=days))


def learning(root: Path, summary: str, age_days: float) -> str:
    """A new learning whose `created_at` is `age_days` ago."""
    learning_id = add_learning(root, summary)
    path = root / f".orbit/learnings/{learning_id}/learning.yaml"
    text = re.sub(r"(?m)^created_at: .*$", f"created_at: {ago(age_days)}", path.read_text())
    path.write_text(text)
    return learning_id


def inject(root: Path, learning_id: str, days_ago: float) -> None:
    state = root / ".orbit/state"
    state.mkdir(exist_ok=True)
    row = {"at": ago(days_ago), "layer": "hook", "session": None, "ids": [learning_id]}
    with (state / "injections.jsonl").open("a") as handle:
        handle.write(json.dumps(row) + "\n")


def vote(root: Path, learning_id: str, days_ago: float) -> None:
    row = {"learning_id": learning_id, "voter_model": "m", "voted_at": ago(days_ago)}
    with (root / f".orbit/learnings/{learning_id}/votes.jsonl").open("a") as handle:
        handle.write(json.dumps({**row, "task_id": f"T-{days_ago}"}) + "\n")


def mark(root: Path, learning_id: str, days_ago: float, *, helpful: bool, task: str = "T") -> None:
    row = {"learning_id": learning_id, "task_id": task, "model": "m", "helpful": helpful}
    with (root / f".orbit/learnings/{learning_id}/feedback.jsonl").open("a") as handle:
        handle.write(json.dumps({**row, "at": ago(days_ago)}) + "\n")


@pytest.fixture
def store(workspace: Path) -> dict[str, str]:
    """One learning per case, by name; all but `young` and `fresh_*` are 200 days old."""
    ids = {name: learning(workspace, f"lesson {name}", 200) for name in (
        "silent", "injected_lately", "injected_long_ago", "voted_lately", "helpful_lately",
        "unhelpful_lately", "helpful_taken_back", "archived", "superseded", "replacement",
    )}  # fmt: skip
    ids["young"] = learning(workspace, "lesson young", 10)
    inject(workspace, ids["injected_lately"], 5)
    inject(workspace, ids["injected_long_ago"], 120)
    inject(workspace, ids["injected_long_ago"], 150)
    vote(workspace, ids["voted_lately"], 3)
    mark(workspace, ids["helpful_lately"], 7, helpful=True)
    mark(workspace, ids["unhelpful_lately"], 7, helpful=False)
    mark(workspace, ids["helpful_taken_back"], 20, helpful=True)
    mark(workspace, ids["helpful_taken_back"], 10, helpful=False)  # same task and model
    ws = Workspace(workspace)
    archive_learning(ws, ids["archived"])
    supersede(ws, ids["superseded"], ids["replacement"])
    inject(workspace, ids["replacement"], 1)
    return ids


def test_each_trace_keeps_a_learning_in_use(workspace: Path, store: dict[str, str]) -> None:
    found = {u.id: u for u in usage.find_unused(Workspace(workspace), 90)}
    names = {name for name, learning_id in store.items() if learning_id in found}
    assert names == {"silent", "injected_long_ago", "unhelpful_lately", "helpful_taken_back"}
    assert found[store["silent"]].last_used is None
    long_ago = found[store["injected_long_ago"]]
    assert long_ago.last_used == long_ago.last_injected == ago(120)
    assert long_ago.last_use == "injected"
    assert found[store["helpful_taken_back"]].last_helpful is None  # the latest answer stands


def test_the_window_is_the_learnings_age_too(workspace: Path, store: dict[str, str]) -> None:
    """A learning younger than the window is never unused; a wider window reaches back."""
    ws = Workspace(workspace)
    assert store["young"] in {u.id for u in usage.find_unused(ws, 5)}
    assert store["young"] not in {u.id for u in usage.find_unused(ws, 11)}
    assert store["injected_long_ago"] in {u.id for u in usage.find_unused(ws, 100)}
    assert store["injected_long_ago"] not in {u.id for u in usage.find_unused(ws, 130)}
    everything = {u.id: u for u in usage.collect(ws)}
    assert everything[store["helpful_lately"]].last_use == "marked helpful"
    assert everything[store["voted_lately"]].last_used == ago(3)
    assert store["archived"] not in everything and store["superseded"] not in everything


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((root / ".orbit/learnings").rglob("*"))
        if p.is_file()
    }


def test_check_unused_lists_them_and_exits_1(
    workspace: Path, store: dict[str, str], orbit: CliRunner
) -> None:
    before = tree(workspace)
    outcome = orbit("learning", "check", "--unused", "90")
    assert outcome.code == 1, outcome.err
    lines = outcome.out.splitlines()
    assert len(lines) == 4
    silent = store["silent"]
    assert f".orbit/learnings/{silent}/learning.yaml:1: {silent} unused in the last 90 days" in (
        outcome.out
    )
    assert f"{silent} unused in the last 90 days (last used: never; created {ago(200)[:10]})" in (
        outcome.out
    )
    long_ago = store["injected_long_ago"]
    assert f"{long_ago} unused in the last 90 days (last used: {ago(120)[:10]}, injected;" in (
        outcome.out
    )
    assert "teammate's machine looks unused here" in outcome.err
    assert tree(workspace) == before  # nothing archived, deleted or rewritten


def test_check_unused_json_and_github(
    workspace: Path, store: dict[str, str], orbit: CliRunner
) -> None:
    outcome = orbit("learning", "check", "--unused", "90", "--json")
    assert outcome.code == 1
    report = json.loads(outcome.out)
    assert {p["kind"] for p in report["problems"]} == {"unused"}
    assert report["unused_days"] == 90
    by_id = {u["id"]: u for u in report["unused"]}
    assert set(by_id) == {p["id"] for p in report["problems"]}
    assert by_id[store["injected_long_ago"]]["last_used"] == ago(120)
    assert by_id[store["silent"]]["last_used"] is None
    assert by_id[store["silent"]]["created_at"] == ago(200)
    github = orbit("learning", "check", "--unused", "90", "--format", "github")
    assert github.code == 1
    first = github.out.splitlines()[0]
    assert first.startswith("::error file=.orbit/learnings/L-") and "title=orbit unused::" in first


def test_check_unused_passes_when_everything_is_used(workspace: Path, orbit: CliRunner) -> None:
    used = learning(workspace, "used lesson", 200)
    learning(workspace, "new lesson", 1)
    inject(workspace, used, 2)
    outcome = orbit("learning", "check", "--unused", "30")
    assert (outcome.code, outcome.out) == (0, ""), outcome.err


def test_without_a_log_only_votes_and_feedback_count(workspace: Path, orbit: CliRunner) -> None:
    learning(workspace, "old lesson", 200)
    outcome = orbit("learning", "check", "--unused", "30")
    assert outcome.code == 1
    assert "no injection log on this machine" in outcome.err


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("-3", "--unused takes a number of days, 1 or more; got -3"),
        ("0", "--unused takes a number of days, 1 or more; got 0"),
        ("ninety", "'ninety' is not a valid int"),
        ("1.5", "'1.5' is not a valid int"),
    ],
)
def test_bad_days_are_one_line_usage_errors(
    workspace: Path, value: str, says: str, orbit: CliRunner
) -> None:
    outcome = orbit("learning", "check", "--unused", value)
    assert outcome.code == 2 and outcome.out == ""
    assert outcome.err.startswith("orbit: error: ") and says in outcome.err
    assert outcome.err.count("\n") == 1


def test_unused_without_days_says_it_needs_them(workspace: Path, orbit: CliRunner) -> None:
    outcome = orbit("learning", "check", "--unused")
    assert outcome.code == 2 and "'--unused' requires an argument" in outcome.err


def test_the_config_window_runs_in_plain_check_where_there_is_a_log(
    workspace: Path, orbit: CliRunner
) -> None:
    old = learning(workspace, "old lesson", 200)
    (workspace / ".orbit/config.yaml").write_text("unused_days: 60\n")
    clean = orbit("learning", "check")  # a fresh clone, a CI runner
    assert (clean.code, clean.out) == (0, ""), clean.err
    inject(workspace, old, 100)  # now this machine has a log: 100 days ago is outside 60
    flagged = orbit("learning", "check", "--json")
    assert flagged.code == 1 and json.loads(flagged.out)["unused_days"] == 60
    assert [p["id"] for p in json.loads(flagged.out)["problems"]] == [old]
    wider = orbit("learning", "check", "--unused", "120")  # DAYS wins
    assert (wider.code, wider.out) == (0, ""), wider.err


def test_the_config_window_never_blocks_a_commit(workspace: Path, orbit: CliRunner) -> None:
    old = learning(workspace, "old lesson", 200)
    inject(workspace, old, 100)
    (workspace / ".orbit/config.yaml").write_text("unused_days: 60\n")
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", ".orbit")
    staged = orbit("learning", "check", "--staged")
    assert (staged.code, staged.out) == (0, ""), staged.err
    asked = orbit("learning", "check", "--staged", "--unused", "60")
    assert asked.code == 1 and old in asked.out


def test_a_bad_config_window_is_one_clear_line(workspace: Path, orbit: CliRunner) -> None:
    inject(workspace, learning(workspace, "old lesson", 200), 1)
    (workspace / ".orbit/config.yaml").write_text("unused_days: soon\n")
    outcome = orbit("learning", "check")
    assert outcome.code == 1
    assert outcome.err == (
        "orbit: error: .orbit/config.yaml: unused_days must be a whole number of days,"
        " 1 or more, got 'soon'\n"
    )


def test_help_names_the_option_and_the_per_machine_log(workspace: Path, orbit: CliRunner) -> None:
    outcome = orbit("learning", "check", "--help")
    text = " ".join(outcome.out.split())
    assert "--unused DAYS" in text and "orbit learning check --unused 90" in text
    assert "this machine's log" in text and "teammate's machine looks unused here" in text
