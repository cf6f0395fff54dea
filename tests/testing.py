"""Helpers every suite shares: running the CLI in-process or as a real subprocess, git.

Fixtures live in `conftest.py`; plain helpers live here so tests can import them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from orbit_learnings.cli.state import STATE

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

REPO = Path(__file__).resolve().parents[1]


EXAMPLE = REPO / ".orbit-example"


ORBIT_BIN = Path(sys.executable).with_name("orbit")


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The environment every test runs in (the autouse `isolated_env`), and every state
    built once for many tests (a module or session fixture, built before any test's own
    fixtures, takes `pytest.MonkeyPatch.context()` and this): no developer's config or HOME."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")
    monkeypatch.setenv("ORBIT_CREATED_BY", "tester")
    monkeypatch.setenv("ORBIT_SEMANTIC", "0")  # BM25 alone, unless a test opts in to vectors
    monkeypatch.setenv("COLUMNS", "200")
    for name in (
        "ORBIT_ROOT",
        "ORBIT_DEBUG",
        "ORBIT_SESSION_ID",
        "ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS",
    ):
        monkeypatch.delenv(name, raising=False)
    STATE.root = None
    STATE.debug = False


def copy_of(template: Path, target: Path) -> Path:
    """A test's own copy of state built once (a git repository, a store): copying is far
    cheaper than the processes that built it. Every file is new to the copy, so the index
    copied along sees changed files and refreshes itself on the first read."""
    shutil.copytree(template, target, symlinks=True)
    return target


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        """The parsed `--json` output: JSON is untyped here, as in `json.loads`."""
        return json.loads(self.out)


class CliRunner:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> Outcome:
        from orbit_learnings.cli.app import run

        self.capsys.readouterr()
        STATE.root = None
        code = run(list(args))
        captured = self.capsys.readouterr()
        return Outcome(code, captured.out, captured.err)


def run_orbit(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> Outcome:
    """Run the installed `orbit` console script in a real subprocess."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [str(ORBIT_BIN), *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def orbit_in_process(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> Outcome:
    """`run_orbit` without the process: the console script's own dispatch (the lean path for
    the hot commands, the full CLI for the rest) in `cwd`, with `env` added to the
    environment and `stdin` (else nothing) as its input. A process costs ~0.2 s of
    interpreter start-up and imports; use this wherever the process boundary is not what the
    test is about (git runs the hooks it installed as real processes all the same)."""
    from orbit_learnings.entry import main

    saved_env = {name: os.environ.get(name) for name in env or {}}
    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    try:
        os.environ.update(env or {})
        os.chdir(cwd)
        STATE.root = None
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            _stdin(io.StringIO(stdin or "")),
        ):
            try:
                code = main(list(args))
            except SystemExit as exc:  # as the interpreter maps it
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.chdir(here)
        STATE.root = None
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return Outcome(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(stream: io.StringIO) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = stream
    try:
        yield
    finally:
        sys.stdin = saved


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def leaf_commands() -> list[tuple[str, ...]]:
    """Every runnable command path in the Typer app, e.g. ("learning", "drafts", "accept")."""
    import typer.main

    from orbit_learnings.cli.app import app

    paths: list[tuple[str, ...]] = []

    def walk(command: object, prefix: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, (*prefix, name))
        else:
            paths.append(prefix)

    walk(typer.main.get_command(app), ())
    return paths


def add_learning(root: Path, summary: str = "Lesson", *, level: str = "project") -> str:
    """Create one valid learning (scope `src/**`) in the store at `root`; return its ID."""
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.store import bundles
    from orbit_learnings.store.workspace import Workspace

    new = bundles.NewLearning(summary=summary, scope=Scope(["src/**"]))
    return bundles.create_learning(Workspace(root, level=level), new).id


def wait_until_settled(root: Path) -> None:
    """Wait until no file under `root`'s learnings folder is young enough to be racy, so
    that reads trust the index's one number. The scan compares change times (ctime),
    which no tool can set back, so aging a fixture means waiting: ~0.1 s on a
    filesystem with fine timestamps. Deterministic: the wait ends by the clock alone."""
    from orbit_learnings.index.freshness import is_racy

    stamps = [p.stat().st_ctime_ns for p in (root / ".orbit" / "learnings").rglob("*")]
    while any(is_racy(stamp, time.time_ns()) for stamp in stamps):
        time.sleep(0.01)


def as_teammate(command: str) -> str:
    """An installed agent entry as a teammate's checkout runs it: the installer's own
    `orbit` (recorded when installed from a venv) is not on that machine."""
    return command.replace(str(ORBIT_BIN), "/nowhere/.venv/bin/orbit")


AGENT_FIXTURES = REPO / "tests" / "fixtures" / "agents"
PAYMENTS_WEBHOOK = (
    "The payments webhook test is flaky when the clock is frozen; use the fake_clock fixture."
)


def agent_payload(name: str, root: Path, session: str) -> str:
    """A documented agent payload (tests/fixtures/agents/NAME.json) for this workspace."""
    text = (AGENT_FIXTURES / f"{name}.json").read_text()
    return text.replace("{root}", str(root)).replace("{session}", session)


def three_scoped_learnings(root: Path, orbit: CliRunner) -> Path:
    """Billing, payments-webhook and reports learnings, and one file under each scope."""
    orbit("learning", "add", "--summary", "Money is integer cents.", "--path", "billing/**")
    orbit("learning", "add", "--summary", PAYMENTS_WEBHOOK, "--path", "payments/webhook/**")
    orbit("learning", "add", "--summary", "Reports read the replica.", "--path", "reports/**")
    for name in ("billing/invoice.py", "payments/webhook/handler.py", "reports/daily.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("def total():\n    return 0\n")
    return root


def run_entry(command: str, stdin: str, root: Path, env: dict[str, str] | None = None) -> str:
    """An installed agent entry run as the agent runs it (`sh -c`), with this venv's orbit
    on PATH unless `env` says otherwise; it must exit 0. Its stdout."""
    path = f"{ORBIT_BIN.parent}:{os.environ['PATH']}"
    proc = subprocess.run(
        ["sh", "-c", command],
        input=stdin,
        capture_output=True,
        text=True,
        env=env if env is not None else {**os.environ, "PATH": path},
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def hook_context(out: str, event: str) -> str:
    """`hookSpecificOutput.additionalContext` of a hook's answer, for the event that called."""
    specific = json.loads(out)["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    return str(specific["additionalContext"])


def dashboard_app(client: TestClient) -> Starlette:
    """The dashboard app behind a TestClient (typed there as any ASGI app): its state
    holds the staleness worker tests wait for, and its routes the API."""
    from starlette.applications import Starlette

    app = client.app
    assert isinstance(app, Starlette)
    return app
