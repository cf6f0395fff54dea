"""`orbit doctor` runs every installed agent entry for real (a dry run: its shell, this
PATH, the agent's own payload, nothing recorded) and fails when one answers nothing for
a file that has learnings: a venv install whose orbit is gone, an entry that cannot run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.testing import CliRunner, as_teammate

WRITTEN = {  # agent: the files `orbit hooks install AGENT` writes entries into
    "cursor": [".cursor/hooks.json"],
    "copilot": [".github/hooks/orbit-learnings.json"],
    "gemini": [".gemini/settings.json"],
    "codex": [".codex/hooks.json"],
    "cline": [".clinerules/hooks/PostToolUse"],
    "kiro": [".kiro/agents/orbit.json"],
}
MONEY = "L-0001 (scope billing/**, 0 votes): Money is integer cents."


@pytest.fixture
def scoped(workspace: Path, orbit: CliRunner) -> Path:
    orbit("learning", "add", "--summary", "Money is integer cents.", "--path", "billing/**")
    (workspace / "billing").mkdir()
    (workspace / "billing/invoice.py").write_text("def total():\n    return 0\n")
    return workspace


def dry_run(orbit: CliRunner, agent: str) -> tuple[int, dict[str, str]]:
    outcome = orbit("doctor", "--json")
    checks = {c["name"]: c for c in outcome.json()["checks"]}
    return outcome.code, checks[f"{agent} dry run"]


@pytest.mark.parametrize("agent", list(WRITTEN))
def test_doctor_runs_the_entry_of_a_venv_install_and_fails_when_it_cannot_reach_orbit(
    scoped: Path, orbit: CliRunner, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # orbit is only in this venv
    assert orbit("hooks", "install", agent).code == 0
    code, ran = dry_run(orbit, agent)
    assert ran["status"] == "ok", ran
    assert MONEY in ran["detail"] and "billing/invoice.py" in ran["message"]
    assert dry_run(orbit, agent)[1]["status"] == "ok"  # a dry run marks nothing shown
    for name in WRITTEN[agent]:  # a teammate's checkout: the recorded orbit is not there
        (scoped / name).write_text(as_teammate((scoped / name).read_text()))
    code, ran = dry_run(orbit, agent)
    assert code == 1 and ran["status"] == "fail", ran
    assert "answered nothing" in ran["message"] and "billing/invoice.py" in ran["message"]
    assert not (scoped / ".orbit/state/injections.jsonl").exists()  # dry runs record nothing


def test_an_entry_that_cannot_run_fails_the_doctor(scoped: Path, orbit: CliRunner) -> None:
    orbit("hooks", "install", "codex", "--command", "orbit-not-installed-anywhere hook codex")
    code, ran = dry_run(orbit, "codex")
    assert code == 1 and ran["status"] == "fail"
    assert "exit 127" in ran["message"]


def test_no_dry_run_before_an_install(scoped: Path, orbit: CliRunner) -> None:
    checks = {c["name"] for c in orbit("doctor", "--json").json()["checks"]}
    assert not {f"{agent} dry run" for agent in WRITTEN} & checks


def test_a_second_doctor_still_gets_the_claude_code_answer(scoped: Path, orbit: CliRunner) -> None:
    """Measured on main: the first dry run marked the learning shown for its session, so the
    second `orbit doctor` said the installed entry "answered nothing" and failed."""
    assert orbit("hooks", "install", "--claude").code == 0
    for _ in range(2):
        outcome = orbit("doctor", "--json")
        ran = next(c for c in outcome.json()["checks"] if c["name"] == "dry run")
        assert ran["status"] == "ok" and MONEY in ran["detail"], ran
    assert not (scoped / ".orbit/state/sessions/orbit-doctor").exists()


def test_an_agent_without_a_probe_gets_a_skipped_dry_run(scoped: Path) -> None:
    """An AgentHook that has not said how to probe it (say, one just moved onto AgentHook)
    gets `skip`, never a crashed doctor."""
    from orbit_learnings.integrations import dryrun
    from orbit_learnings.integrations.agenthook import AgentHook
    from orbit_learnings.store.workspace import Workspace

    agent = AgentHook()
    check = dryrun.check("new", agent.probe, Workspace(scoped), "true", "billing/invoice.py")
    assert (check.name, check.status) == ("new dry run", "skip")


GUARDED_COMMAND = re.compile(r"command -v orbit[^\"]*?\|\| true|if \[ -x [^\"]*?\|\| true; fi")
UNGUARDED = {  # where orbit's entry lives -> what doctor names it by, in both messages
    "gemini": (
        [".gemini/settings.json"],
        ".gemini/settings.json runs",
        ".gemini/settings.json runs",
    ),
    "codex": ([".codex/hooks.json"], ".codex/hooks.json runs", ".codex/hooks.json runs"),
    "codex-toml": (
        [".codex/config.toml"],
        ".codex/config.toml [hooks] run",
        ".codex/config.toml runs",
    ),
    "kiro": (
        [".kiro/agents/orbit.json"],
        ".kiro/agents/orbit.json run",
        ".kiro/agents/orbit.json run",
    ),
}


@pytest.mark.parametrize("where", list(UNGUARDED))
def test_an_unguarded_entry_is_a_warning_for_every_kind_of_settings_file(
    scoped: Path, orbit: CliRunner, where: str
) -> None:
    """A bare `orbit hook NAME` fails the agent's tool call on a teammate's machine without
    orbit (Copilot denies it): doctor says so, for JSON settings, Codex's config.toml and
    Kiro's agent files alike, and says "guarded" only of a guarded entry."""
    agent = where.removesuffix("-toml")
    if where == "codex-toml":
        (scoped / ".codex").mkdir()
        theirs = '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "./a.sh"\n'
        (scoped / ".codex/config.toml").write_text(theirs)  # the project keeps hooks here
    assert orbit("hooks", "install", agent).code == 0
    files, says_guarded, says_unguarded = UNGUARDED[where]
    checks = {c["name"]: c for c in orbit("doctor", "--json").json()["checks"]}
    found = checks[f"{agent} hook"]
    assert (found["status"], found["message"]) == (
        "ok",
        f"{says_guarded} `orbit hook {agent}` (guarded)",
    )
    for name in files:
        text = (scoped / name).read_text()
        bare, count = GUARDED_COMMAND.subn(f"orbit hook {agent}", text)
        assert count, text
        (scoped / name).write_text(bare)
    checks = {c["name"]: c for c in orbit("doctor", "--json").json()["checks"]}
    found = checks[f"{agent} hook"]
    assert (found["status"], found["message"]) == (
        "warn",
        f"{says_unguarded} orbit unguarded: orbit hook {agent}",
    )
