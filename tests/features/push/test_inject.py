"""Layer 1: `orbit learning inject` — format, caps, session dedup, the Python API."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.testing import CliRunner, run_orbit


def add(orbit: CliRunner, summary: str, *args: str) -> str:
    outcome = orbit("learning", "add", "--summary", summary, *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


@pytest.fixture
def many(workspace: Path, orbit: CliRunner) -> Path:
    """Eight learnings on src/**; L-0001 ranks first (most votes), then by recency."""
    for n in range(1, 9):
        add(orbit, f"lesson {n}", "--path", "src/**", "--body", f"body {n} never injected")
    for task in ("T1", "T2"):
        orbit("learning", "upvote", "--id", "L-0001", "--model", "m", "--task", task)
    return workspace


def test_reminder_block_byte_for_byte(workspace: Path, orbit: CliRunner) -> None:
    add(
        orbit,
        "Never declare a perf win on latency alone — verify output equivalence before freezing a result.",
        "--path",
        "crates/orbit-engine/**/perf*.rs",
        "--body",
        "SECRET BODY",
    )
    outcome = orbit("learning", "inject", "--path", "crates/orbit-engine/src/perf_stats.rs")
    assert outcome.code == 0
    assert outcome.out == (
        "<system-reminder>\n"
        "Learnings relevant to this task:\n"
        "- [L-0001] Never declare a perf win on latency alone — verify output equivalence before freezing a result.\n"
        "Read full body via `orbit learning show <id>` if needed.\n"
        "</system-reminder>\n"
    )


def test_nothing_matched_prints_nothing_or_empty_json(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "x", "--path", "src/**")
    for fmt in ("reminder", "markdown"):
        outcome = orbit("learning", "inject", "--path", "docs/x.md", "--format", fmt)
        assert (outcome.code, outcome.out) == (0, "")
    outcome = orbit("learning", "inject", "--path", "docs/x.md", "--format", "json")
    assert outcome.json() == {"version": 1, "learnings": []}


def test_bodies_are_never_injected_and_markdown_format(many: Path, orbit: CliRunner) -> None:
    out = orbit("learning", "inject", "--path", "src/a.py", "--format", "markdown").out
    assert out.startswith("## Learnings relevant to this task\n\n- **L-0001** — lesson 1\n")
    assert "never injected" not in out


def test_per_call_cap_default_env_and_limit(
    many: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    def count(*args: str) -> int:
        return len(
            orbit("learning", "inject", "--path", "src/a.py", "--format", "json", *args).json()[
                "learnings"
            ]
        )

    assert count() == 5
    monkeypatch.setenv("ORBIT_LEARNING_PER_CALL_CAP", "3")
    assert count() == 3
    assert count("--limit", "7") == 7


def test_ranked_order_is_kept(many: Path, orbit: CliRunner) -> None:
    orbit("learning", "update", "L-0006", "--priority", "3")
    result = orbit("learning", "inject", "--path", "src/a.py", "--format", "json").json()
    assert [h["id"] for h in result["learnings"]][:2] == ["L-0001", "L-0006"]


def test_session_dedup_and_session_cap(
    many: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBIT_LEARNING_SESSION_CAP", "6")

    def shown() -> list[str]:
        result = orbit(
            "learning", "inject", "--path", "src/a.py", "--session", "s1", "--format", "json"
        )
        return [h["id"] for h in result.json()["learnings"]]

    first, second, third = shown(), shown(), shown()
    assert len(first) == 5 and len(second) == 1 and third == []
    assert not set(first) & set(second)
    state = json.loads((many / ".orbit/state/sessions/s1/learnings.json").read_text())
    assert state["shown"] == first + second
    other = orbit("learning", "inject", "--path", "src/a.py", "--session", "s2", "--format", "json")
    assert len(other.json()["learnings"]) == 5  # another session starts afresh


def test_session_from_environment(
    many: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBIT_SESSION_ID", "env-session")
    orbit("learning", "inject", "--path", "src/a.py")
    assert (many / ".orbit/state/sessions/env-session/learnings.json").exists()


def test_without_session_nothing_is_remembered(many: Path, orbit: CliRunner) -> None:
    one = orbit("learning", "inject", "--path", "src/a.py", "--format", "json").json()
    two = orbit("learning", "inject", "--path", "src/a.py", "--format", "json").json()
    assert one == two
    assert not (many / ".orbit/state/sessions").exists()


def test_token_budget_drops_lowest_ranked_and_they_are_not_counted_as_shown(
    many: Path, orbit: CliRunner
) -> None:
    full = orbit("learning", "inject", "--path", "src/a.py").out
    budget = (len(full) + 3) // 4 - 5
    trimmed = orbit(
        "learning", "inject", "--path", "src/a.py", "--max-tokens", str(budget), "--session", "b"
    )
    assert 0 < trimmed.out.count("- [L-") < 5
    assert "[L-0001]" in trimmed.out
    assert (len(trimmed.out) + 3) // 4 <= budget
    shown = {line[3:9] for line in trimmed.out.splitlines() if line.startswith("- [L-")}
    rest = orbit(
        "learning",
        "inject",
        "--path",
        "src/a.py",
        "--session",
        "b",
        "--limit",
        "8",
        "--format",
        "json",
    )
    rest_ids = {h["id"] for h in rest.json()["learnings"]}
    assert not shown & rest_ids
    assert len(shown | rest_ids) == 8  # the dropped ones were not marked as shown


def test_superseded_and_archived_are_never_injected(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "old", "--path", "src/**")
    add(orbit, "new", "--path", "src/**")
    orbit("learning", "supersede", "L-0001", "--with", "L-0002")
    archived = workspace / ".orbit/learnings/L-0003/learning.yaml"
    add(orbit, "gone", "--path", "src/**")
    archived.write_text(archived.read_text().replace("status: active", "status: archived"))
    ids = [
        h["id"]
        for h in orbit("learning", "inject", "--path", "src/x", "--format", "json").json()[
            "learnings"
        ]
    ]
    assert ids == ["L-0002"]


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_task_file(workspace: Path, orbit: CliRunner, suffix: str) -> None:
    add(orbit, "by path", "--path", "api/**")
    add(orbit, "by tag", "--tag", "perf")
    add(orbit, "unrelated", "--tag", "docs")
    task = workspace / f"task{suffix}"
    data = {"id": "T-1", "context_files": ["api/handlers.py"], "tags": ["perf"]}
    task.write_text(
        json.dumps(data)
        if suffix == ".json"
        else "id: T-1\ncontext_files:\n  - api/handlers.py\ntags: [perf]\n"
    )
    out = orbit("learning", "inject", "--task-file", str(task), "--format", "json").json()
    assert sorted(h["id"] for h in out["learnings"]) == ["L-0001", "L-0002"]


def test_bad_task_file_is_a_clear_error(workspace: Path, orbit: CliRunner) -> None:
    bad = workspace / "task.yaml"
    bad.write_text("context_files: [unclosed\n")
    outcome = orbit("learning", "inject", "--task-file", str(bad))
    assert outcome.code == 2 and "task.yaml:" in outcome.err


def test_feedback_hint_flag(many: Path, orbit: CliRunner) -> None:
    out = orbit("learning", "inject", "--path", "src/a.py", "--feedback-hint").out
    assert "LEARNING_HELPFUL: <id>" in out and out.endswith("</system-reminder>\n")


def test_injections_are_logged(many: Path, orbit: CliRunner) -> None:
    orbit("learning", "inject", "--path", "src/a.py", "--session", "s9")
    rows = [
        json.loads(line)
        for line in (many / ".orbit/state/injections.jsonl").read_text().splitlines()
    ]
    assert rows[-1]["layer"] == "inject" and rows[-1]["session"] == "s9"
    assert rows[-1]["trigger"]["paths"] == ["src/a.py"] and len(rows[-1]["ids"]) == 5


def test_python_api_matches_the_cli(many: Path, orbit: CliRunner) -> None:
    import orbit_learnings

    api = orbit_learnings.inject_learnings(paths=["src/a.py"], limit=3)
    cli = orbit(
        "learning", "inject", "--path", "src/a.py", "--limit", "3", "--format", "json"
    ).json()
    assert api == cli["learnings"]


def test_the_old_api_name_still_works_and_says_it_is_deprecated(many: Path) -> None:
    import orbit_learnings

    with pytest.warns(DeprecationWarning, match="inject_learnings"):
        old = orbit_learnings.search_learnings(paths=["src/a.py"], limit=3, session_id="s-old")
    new = orbit_learnings.inject_learnings(paths=["src/a.py"], limit=3, session_id="s-new")
    assert old == new and len(new) == 3


def test_dedup_across_concurrent_processes_of_one_session(many: Path) -> None:
    """Eight processes of one session: no learning is ever shown twice."""

    def inject(_: int) -> list[str]:
        outcome = run_orbit(
            "learning",
            "inject",
            "--path",
            "src/a.py",
            "--session",
            "shared",
            "--limit",
            "2",
            "--format",
            "json",
            cwd=many,
        )
        assert outcome.code == 0, outcome.err
        return [h["id"] for h in json.loads(outcome.out)["learnings"]]

    with ThreadPoolExecutor(max_workers=8) as pool:
        batches = list(pool.map(inject, range(8)))
    shown = [i for batch in batches for i in batch]
    assert len(shown) == len(set(shown)) == 8
