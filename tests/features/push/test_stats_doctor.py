"""`orbit learning stats` and `orbit doctor`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.testing import CliRunner, as_teammate


def test_stats_counts_injections_per_learning(example: Path, orbit: CliRunner) -> None:
    orbit("learning", "inject", "--path", "db/migrations/1.sql")
    orbit("learning", "inject", "--path", "db/migrations/2.sql", "--limit", "1")
    report = orbit("learning", "stats", "--json").json()
    by_id = {row["id"]: row for row in report["learnings"]}
    top = report["learnings"][0]
    assert top["injected"] == 2 and top["by_layer"] == {"inject": 2}
    assert by_id["L-0002"]["injected"] >= 1 and by_id["L-0002"]["last_injected"].endswith("Z")
    assert "L-0012" in report["never_injected"]
    assert "L-0001" not in report["never_injected"]  # superseded ones are not listed
    assert by_id["L-0005"]["vote_count"] == 4


def test_stats_skips_torn_log_lines(example: Path, orbit: CliRunner) -> None:
    state = example / ".orbit/state"
    state.mkdir(exist_ok=True)
    (state / "injections.jsonl").write_text(
        '{"ids": ["L-0002"], "at": "2026-11-01T00:00:00Z", "layer": "mcp"}\n{torn\n'
    )
    report = orbit("learning", "stats", "--days", "3650", "--json").json()
    assert {r["id"]: r["injected"] for r in report["learnings"]}["L-0002"] == 1


def test_doctor_explains_a_fresh_workspace(example: Path, orbit: CliRunner) -> None:
    (example / "services/billing").mkdir(parents=True)
    (example / "services/billing/tax.py").write_text("")
    outcome = orbit("doctor", "--json")
    checks = {c["name"]: c for c in outcome.json()["checks"]}
    assert outcome.code == 0
    assert checks["workspace"]["status"] == "ok" and checks["store"]["status"] == "ok"
    assert checks["git hooks"]["status"] == "skip"
    assert "orbit hooks install --claude" in checks["claude code hook"]["message"]
    assert checks["dry run"]["status"] == "ok"
    assert "services/billing/tax.py" in checks["dry run"]["message"]
    assert "L-0003 (scope services/billing/**/*.py" in checks["dry run"]["detail"]
    assert not (example / ".orbit/state/injections.jsonl").exists()  # a dry run records nothing


def test_doctor_fails_on_a_broken_store_and_a_missing_hook_command(
    git_repo: Path, orbit: CliRunner
) -> None:
    orbit("learning", "add", "--summary", "x", "--tag", "t")
    (git_repo / ".orbit/learnings/L-0001/votes.jsonl").write_text("nope\n")
    settings = git_repo / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "Read",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "orbit-not-installed-anywhere hook claude-code",
                                }
                            ],
                        }
                    ]
                }
            }
        )
    )
    outcome = orbit("doctor")
    assert outcome.code == 1
    assert "[FAIL] store: 1 problem(s)" in outcome.out
    assert "votes.jsonl:1" in outcome.out
    assert "is not on PATH" in outcome.out
    assert "[warn] git hooks: not installed" in outcome.out


def test_doctor_without_workspace(
    tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = orbit("doctor")
    assert outcome.code == 1 and "orbit init" in outcome.out


def test_doctor_runs_the_installed_entry_and_fails_when_it_cannot_reach_orbit(
    example: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured on main: an entry that could not reach orbit answered nothing, exit 0, and
    doctor said `[ok] claude code hook` with an ok dry run. Now the dry run is the entry."""
    (example / "services/billing").mkdir(parents=True)
    (example / "services/billing/tax.py").write_text("")
    assert orbit("hooks", "install", "--claude").code == 0
    with_orbit = orbit("doctor", "--json").json()["checks"]
    ran = next(c for c in with_orbit if c["name"] == "dry run")
    assert ran["status"] == "ok" and "L-0003" in ran["detail"]
    settings = example / ".claude/settings.json"
    settings.write_text(as_teammate(settings.read_text()))  # orbit is not where it says
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    outcome = orbit("doctor", "--json")
    ran = next(c for c in outcome.json()["checks"] if c["name"] == "dry run")
    assert outcome.code == 1 and ran["status"] == "fail"
    assert "answered nothing for a Read of services/billing/tax.py" in ran["message"]
    assert not (example / ".orbit/state/injections.jsonl").exists()  # dry runs record nothing
