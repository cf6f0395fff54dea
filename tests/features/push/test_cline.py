"""Cline: the scripts `orbit hooks install cline` writes into `.clinerules/hooks/`, run as
Cline runs them (an executable, JSON on stdin). A failing hook blocks Cline, so every path
must exit 0 with `{"cancel": false...}` as the last line of stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from orbit_learnings.integrations import cline
from orbit_learnings.push import hookflow
from tests.testing import ORBIT_BIN, REPO, CliRunner

FIXTURES = REPO / "tests/fixtures/agents"
WITH_ORBIT = {**os.environ, "PATH": f"{ORBIT_BIN.parent}:{os.environ['PATH']}"}
WITHOUT_ORBIT = {**os.environ, "PATH": "/usr/bin:/bin"}
HOOKS = ".clinerules/hooks"
MONEY = "L-0001 (scope billing/**, 0 votes): Money is integer cents."


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    orbit("learning", "add", "--summary", "Money is integer cents.", "--path", "billing/**")
    (workspace / "billing").mkdir()
    (workspace / "billing/invoice.py").write_text("def total():\n    return 0\n")
    assert orbit("hooks", "install", "cline").code == 0
    return workspace


def fixture(name: str, root: Path, session: str) -> str:
    text = (FIXTURES / f"{name}.json").read_text()
    return text.replace("{root}", str(root)).replace("{session}", session)


def run(root: Path, hook: str, stdin: str, env: dict[str, str] = WITH_ORBIT) -> dict[str, object]:
    """Run the hook script as Cline does; it must exit 0 with JSON as its last line."""
    proc = subprocess.run(
        [str(root / HOOKS / hook)], input=stdin, capture_output=True, text=True, env=env, cwd=root
    )
    assert proc.returncode == 0, proc.stderr
    answer: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert answer["cancel"] is False
    return answer


@pytest.mark.parametrize(
    ("hook", "name"),
    [
        ("TaskStart", "cline.TaskStart"),
        ("UserPromptSubmit", "cline.UserPromptSubmit"),
        ("PostToolUse", "cline.PostToolUse.read_file"),
        ("PostToolUse", "cline.PostToolUse.execute_command"),
    ],
)
def test_each_documented_payload_gets_the_learning_in_context_modification(
    store: Path, hook: str, name: str
) -> None:
    answer = run(store, hook, fixture(name, store, name))
    assert MONEY in str(answer["contextModification"])


def test_once_per_task_and_the_task_start_note(store: Path) -> None:
    started = str(
        run(store, "TaskStart", fixture("cline.TaskStart", store, "t1"))["contextModification"]
    )
    assert ".orbit/learnings" in started and MONEY in started  # the note, and the first message
    assert run(store, "PostToolUse", fixture("cline.PostToolUse.read_file", store, "t1")) == {
        "cancel": False
    }


@pytest.mark.parametrize(
    ("stdin", "env"),
    [
        ("", WITH_ORBIT),
        ("not json", WITH_ORBIT),
        ("[1, 2]", WITH_ORBIT),
        ('{"hookName": "PostToolUse", "postToolUse": "?"}', WITH_ORBIT),
        ('{"hookName": "TaskCancel"}', WITH_ORBIT),
        ("{}", WITHOUT_ORBIT),  # orbit not installed here: still an answer
    ],
)
def test_every_path_answers_cancel_false_and_exits_0(
    store: Path, stdin: str, env: dict[str, str]
) -> None:
    for hook in ("TaskStart", "UserPromptSubmit", "PostToolUse"):
        assert run(store, hook, stdin, env) == {"cancel": False}


def test_a_hook_past_its_deadline_still_answers(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cline blocks on a timeout: the hook stops its own work first and lets Cline go on."""
    monkeypatch.setenv(cline.DEADLINE_ENV, "0.2")

    def slow(*args: object, **kwargs: object) -> str:
        time.sleep(30)
        return "x"

    monkeypatch.setattr(hookflow, "context_for_touch", slow)
    started = time.monotonic()
    stdin = fixture("cline.PostToolUse.read_file", store, "slow")
    out, err = cline.INTEGRATION.hook(stdin, root=str(store), flags=[])
    assert (out, err) == ('{"cancel": false}\n', "")
    assert time.monotonic() - started < 5


def test_their_script_is_left_alone_and_uninstall_takes_only_ours(
    workspace: Path, orbit: CliRunner
) -> None:
    folder = workspace / HOOKS
    folder.mkdir(parents=True)
    theirs = "#!/bin/sh\necho '{\"cancel\": false}'\n"
    (folder / "PostToolUse").write_text(theirs)
    outcome = orbit("hooks", "install", "cline")
    assert outcome.code == 0 and "PostToolUse is not orbit's" in outcome.err
    assert (folder / "PostToolUse").read_text() == theirs
    assert os.access(folder / "TaskStart", os.X_OK)
    once = {p.name: p.read_text() for p in folder.iterdir()}
    orbit("hooks", "install", "cline")
    assert {p.name: p.read_text() for p in folder.iterdir()} == once  # twice adds nothing
    orbit("hooks", "uninstall", "cline")
    assert [p.name for p in folder.iterdir()] == ["PostToolUse"]
    assert (folder / "PostToolUse").read_text() == theirs


def test_no_prompt_and_a_clean_uninstall(store: Path, orbit: CliRunner) -> None:
    orbit("hooks", "install", "cline", "--no-prompt")
    assert not (store / HOOKS / "UserPromptSubmit").exists()
    started = run(store, "TaskStart", fixture("cline.TaskStart", store, "np"))
    assert "L-0001" not in str(started["contextModification"])  # the note only
    orbit("hooks", "uninstall", "cline")
    assert not (store / ".clinerules").exists()


def test_doctor_checks_the_scripts_can_run(store: Path, orbit: CliRunner) -> None:
    checks = {c["name"]: c for c in json.loads(orbit("doctor", "--json").out)["checks"]}
    assert checks["cline hook"]["status"] == "ok"
    (store / HOOKS / "PostToolUse").chmod(0o644)
    checks = {c["name"]: c for c in json.loads(orbit("doctor", "--json").out)["checks"]}
    assert checks["cline hook"]["status"] == "fail"
