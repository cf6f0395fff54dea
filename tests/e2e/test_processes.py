"""Real processes: concurrent writers, the installed console script, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from orbit_learnings.store import bundles as store
from orbit_learnings.store.workspace import Workspace
from tests.testing import ORBIT_BIN, run_orbit, wait_until_settled


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


def _modules_loaded_by(args: list[str], cwd: Path) -> set[str]:
    """Run the console script's main() in a fresh interpreter and list what it imported."""
    code = (
        "import sys; from orbit_learnings.entry import main; "
        f"code = main({args!r}); "
        "sys.stdout.flush(); sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules))); "
        "raise SystemExit(code)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.rsplit("MODULES ", 1)[1].split())


HEAVY = {  # plus a few cheap stdlib modules the hot path has learned to do without
    "contextlib",
    "zlib",
    "typer",
    "rich",
    "ruamel",
    "pathspec",
    "filelock",
    "pydantic",
    "click",
    "dataclasses",
    "typing",
    "pathlib",
}


MODEL = {"numpy", "onnxruntime", "tokenizers"}  # the semantic extra's: never in a hook


def heavy_beyond_the_floor() -> set[str]:
    """HEAVY less what this Python loads anyway for `import sqlite3, json`."""
    floor = subprocess.run(
        [sys.executable, "-c", "import sqlite3, json, sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return HEAVY - {m.split(".")[0] for m in floor}


def test_hot_path_lookup_imports_nothing_heavy(example: Path) -> None:
    """The import budget of `learning list --path --json` with a fresh index."""
    wait_until_settled(example)  # else the sync stores racy stats, re-read later
    run_orbit("learning", "sync", cwd=example)
    loaded = _modules_loaded_by(
        ["learning", "list", "--path", "db/migrations/x.sql", "--json"], example
    )
    budget = heavy_beyond_the_floor()
    assert not {m.split(".")[0] for m in loaded} & budget, sorted(
        {m.split(".")[0] for m in loaded} & budget
    )
    assert "orbit_learnings.push.inject" not in loaded  # `list` never injects


SEARCH_BUDGET = {  # feedback counts come from the index: no sidecar parser, so no typing
    "typer",
    "rich",
    "click",
    "ruamel",
    "pathspec",
    "filelock",
    "dataclasses",
    "typing",
    "pathlib",
    "contextlib",
    "difflib",
}


@pytest.mark.parametrize(
    "args",
    [
        ["learning", "search", "migrations transaction", "--json"],
        ["search", "migrations", "--kind", "learning", "--json"],
    ],
)
def test_text_search_takes_the_lean_path(example: Path, args: list[str]) -> None:
    """An agent's pull path: no Typer, rich or dataclasses (whose `inspect` import alone
    cost a search process ~6 ms) — the same answer as the full CLI, in a third the time."""
    wait_until_settled(example)  # else the sync stores racy stats, re-read later
    run_orbit("learning", "sync", cwd=example)
    loaded = {m.split(".")[0] for m in _modules_loaded_by(args, example)}
    assert not loaded & SEARCH_BUDGET, sorted(loaded & SEARCH_BUDGET)
    lean = run_orbit(*args, cwd=example)
    code = f"import sys; from orbit_learnings.cli.app import run; sys.exit(run({args!r}))"
    full = subprocess.run([sys.executable, "-c", code], cwd=example, capture_output=True, text=True)
    assert lean.code == full.returncode == 0
    assert json.loads(lean.out) == json.loads(full.stdout)


def test_every_agent_hook_imports_nothing_heavy(example: Path) -> None:
    """The hooks run on every tool call an agent makes: same budget as the lookup."""
    wait_until_settled(example)  # else the sync stores racy stats, re-read later
    run_orbit("learning", "sync", cwd=example)
    budget = heavy_beyond_the_floor()
    tool: dict[str, object] = {
        "hook_event_name": "PostToolUse",
        "session_id": "budget",
        "cwd": str(example),
        "tool_name": "Bash",
        "tool_input": {"command": "cd db && sed -n 1,20p migrations/0001.sql"},
    }
    prompt: dict[str, object] = {  # the prompt runs a text search: as lean as a lookup
        "hook_event_name": "UserPromptSubmit",
        "session_id": "budget-prompt",
        "cwd": str(example),
        "prompt": "why does the migration lock time out in db/migrations/0001.sql?",
    }
    patch = {**tool, "tool_name": "apply_patch", "session_id": "budget-patch"}
    patch["tool_input"] = {"command": "*** Begin Patch\n*** Update File: db/x.sql\n*** End Patch"}
    calls = [(a, tool) for a in ("claude-code", "cursor", "copilot", "gemini", "codex")]
    calls += [("claude-code", prompt), ("codex", prompt), ("codex", patch)]
    calls += [("gemini", {**prompt, "hook_event_name": "BeforeAgent"})]
    cline_base = {
        "hookName": "PostToolUse",
        "taskId": "budget-cline",
        "workspaceRoots": [str(example)],
    }
    calls += [
        (
            "cline",
            {
                **cline_base,
                "postToolUse": {"toolName": "execute_command", "parameters": tool["tool_input"]},
            },
        )
    ]
    calls += [("cline", {**cline_base, "hookName": "UserPromptSubmit", "userPromptSubmit": prompt})]
    kiro_prompt = {**prompt, "hook_event_name": "userPromptSubmit"}  # Kiro: no session id
    calls += [
        ("kiro", {"hook_event_name": "agentSpawn", "cwd": str(example)}),
        ("kiro", kiro_prompt),
    ]
    subagent = {**tool, "hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": "x"}
    mcp = {**tool, "tool_name": "mcp__fs__read_file", "tool_input": {"path": "db/x.sql"}}
    calls += [
        ("codex", subagent),
        ("codex", {**mcp, "agent_id": "a1"}),
        ("codex", {**tool, "agent_id": "a1"}),
    ]
    for agent, data in calls:
        payload = json.dumps(data)
        code = (
            "import io, sys; sys.stdin = io.StringIO(sys.argv[1]); "
            "from orbit_learnings.entry import main; "
            f"main(['hook', '{agent}']); "
            "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))"
        )
        # As an agent runs it: the semantic extra left on (CI installs it), so a prompt's
        # search must not load the embedding model (numpy, onnxruntime: ~0.5 s a call).
        env = {k: v for k, v in os.environ.items() if k != "ORBIT_SEMANTIC"}
        proc = subprocess.run(
            [sys.executable, "-c", code, payload],
            cwd=example,
            capture_output=True,
            text=True,
            env=env,
        )
        loaded = {m.split(".")[0] for m in proc.stderr.rsplit("MODULES ", 1)[1].split()}
        event = data.get("hook_event_name", data.get("hookName"))
        assert not loaded & (budget | MODEL), (agent, event, sorted(loaded & (budget | MODEL)))


def test_lean_and_full_cli_give_identical_output(example: Path) -> None:
    args = ["learning", "list", "--path", "services/billing/x.py", "--tag", "ci", "--json"]
    lean = run_orbit(*args, cwd=example)
    full = run_orbit("--debug", *args, cwd=example)  # --debug routes through Typer
    assert lean.code == full.code == 0
    assert json.loads(lean.out) == json.loads(full.out)
    assert [r["id"] for r in json.loads(lean.out)["results"]] == ["L-0003", "L-0007", "L-0014"]


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 learnings, written once (a few seconds of locked, synced writes) and only read."""
    from orbit_learnings.store.setup import init_store
    from tests.testing import add_learning, isolate

    root = tmp_path_factory.mktemp("many")
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("home"))
        init_store(root)
        for n in range(400):
            add_learning(root, f"lesson {n:03d} " + "about the billing retries " * 6)
    return root


def _buffered_env() -> dict[str, str]:
    """The environment without PYTHONUNBUFFERED, as an agent runs a hook: stdout is then
    block-buffered, so an exit that skipped the flush would lose the answer's tail."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def test_the_quick_exit_delivers_an_answer_larger_than_a_pipe_whole(many: Path) -> None:
    """The lean path leaves with `os._exit`: whatever is still buffered must be flushed first."""
    workspace = many
    args = [str(ORBIT_BIN), "learning", "list", "--json"]
    env = _buffered_env()
    lean = subprocess.run(args, cwd=workspace, env=env, capture_output=True, text=True)
    assert lean.returncode == 0 and len(lean.stdout) > 128 * 1024
    assert len(json.loads(lean.stdout)["results"]) == 400
    small = subprocess.run(
        [*args[:-1], "--limit", "1", "--json"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
    )
    assert len(json.loads(small.stdout)["results"]) == 1  # all of it still in the buffer
    full = run_orbit("--debug", "learning", "list", "--json", cwd=workspace)
    assert json.loads(full.out) == json.loads(lean.stdout)


def test_a_reader_that_goes_away_early_is_no_error(many: Path) -> None:
    workspace = many
    proc = subprocess.Popen(
        [str(ORBIT_BIN), "learning", "list", "--json"],
        cwd=workspace,
        env=_buffered_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(1) == b"{"
    proc.stdout.close()  # like `| head -c 1`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "Exception ignored" not in err


def test_lean_path_errors_match_the_full_cli(workspace: Path) -> None:
    lean = run_orbit("learning", "list", "--path", "../x", "--json", cwd=workspace)
    full = run_orbit("--debug", "learning", "list", "--path", "../x", "--json", cwd=workspace)
    assert lean.code == 1 and "outside the workspace" in lean.err and "Traceback" not in lean.err
    assert full.code != 0
    bad_limit = run_orbit("learning", "list", "--limit", "0", "--json", cwd=workspace)
    assert bad_limit.code == 2


def bench_quick(*flags: str) -> dict[str, Any]:
    """The first result of a `bench.py --quick --json` run, which must succeed."""
    from tests.testing import REPO

    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts/bench.py"), *flags, "--quick", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)["results"][0]
    return result


@pytest.mark.world
def test_benchmark_harness_smoke_run() -> None:
    """The harness must never rot; its timings are reported, never asserted."""
    result = bench_quick()
    assert result["learnings"] == 30
    for key in (
        "path_lookup_match",
        "tag_lookup",
        "text_search",
        "freshness_noop",
        "stat_floor",
        "add",
        "upvote",
    ):
        assert result[key]["median_ms"] >= 0
    assert set(result["processes"]) == {
        "floor",
        "list_path_json",
        "inject",
        "hook_claude_code",
        "hook_prompt",
        "hook_codex_patch",
        "hook_codex_mcp",
        "hook_kiro_prompt",
        "search_json",
        "search_kind_learning_json",
        "git_grep_same_query",
    }
    for key in ("check_stale", "prune_json"):  # in a git repository of generated files
        assert result["stale"][key]["median_ms"] >= 0


@pytest.mark.world
def test_dashboard_benchmark_smoke_run() -> None:
    """`bench.py --dashboard` must not rot either; it reports, never asserts."""
    result = bench_quick("--dashboard")
    assert result["learnings"] == 30
    for page in ("first_page", "filtered_page", "search_page"):
        assert result[f"dashboard_{page}"]["median_ms"] >= 0
        assert result[f"dashboard_{page}_after_change"]["median_ms"] >= 0


@pytest.mark.world
def test_read_paths_benchmark_smoke_run() -> None:
    """`bench.py --reads` (the search phases and the hot commands, version beside
    version) must not rot; it reports, never asserts."""
    result = bench_quick("--reads")
    assert result["learnings"] == 30
    for text in ("retries billing", "invariants engine"):
        phases = result[f"after:phases:{text}"]
        for phase in ("search", "freshness", "stat_floor", "query", "ranking", "output"):
            assert phase + "_ms" in phases
    for key in ("search_kind_learning_json", "learning_search_json", "list_path_json"):
        assert result[f"after:{key}"]["median_ms"] > 0
        assert "above_stat_floor_process_ms" in result[f"after:{key}"]
    assert result["floor_ms"] > 0
    assert result["stat_floor_process"]["median_ms"] > 0
    assert result["stat_floor_process"]["ratio"] > 0


def test_non_ascii_digits_are_usage_errors_not_crashes(workspace: Path) -> None:
    """'²'.isdigit() is True in Python but int('²') fails: found by the dashboard fuzz test."""
    outcome = run_orbit("learning", "list", "--limit", "²", "--json", cwd=workspace)
    assert outcome.code == 2 and "--limit" in outcome.err
    capped = run_orbit(
        "learning", "inject", "--tag", "t", cwd=workspace, env={"ORBIT_LEARNING_PER_CALL_CAP": "²"}
    )
    assert capped.code == 2 and "ORBIT_LEARNING_PER_CALL_CAP" in capped.err


HOT_COMMANDS = {  # Typer command path -> the lean path's (valued options, flags)
    ("learning", "list"): ("_LIST_OPTIONS", "_LIST_FLAGS"),
    ("learning", "inject"): ("_INJECT_OPTIONS", "_INJECT_FLAGS"),
    ("learning", "search"): ("_LEARNING_SEARCH_OPTIONS", "_SEARCH_FLAGS"),
    ("search",): ("_SEARCH_OPTIONS", "_SEARCH_FLAGS"),
}
# What the lean path leaves to the full CLI on purpose: help, and the unified search's
# `--path` (a scope lookup, not a text search).
FULL_CLI_ONLY = {"--help", "-h"}


@pytest.mark.parametrize("command", sorted(HOT_COMMANDS))
def test_every_option_of_a_hot_command_is_in_the_lean_table(command: tuple[str, ...]) -> None:
    """The lean parser's tables and Typer's parameters are one option table: a Typer option
    missing from the lean table silently takes the slow path (`inject --min-confidence` did)."""
    import typer.main
    from typer.core import TyperGroup

    from orbit_learnings import entry
    from orbit_learnings.cli.app import app

    click_command = typer.main.get_command(app)
    for name in command:
        assert isinstance(click_command, TyperGroup), name
        click_command = click_command.commands[name]
    typer_options = {
        option
        for param in click_command.params
        for option in (*param.opts, *param.secondary_opts)
        if option.startswith("-")
    }
    valued, flags = (getattr(entry, table) for table in HOT_COMMANDS[command])
    assert typer_options - set(valued) - set(flags) - FULL_CLI_ONLY == set()
    # ...and the other way: the lean path never accepts what Typer would refuse.
    assert set(valued) | set(flags) <= typer_options


@pytest.mark.parametrize("command", [("learning", "inject"), ("learning", "search"), ("search",)])
def test_the_old_min_confidence_is_a_hidden_alias_in_both_tables(command: tuple[str, ...]) -> None:
    """`--min-confidence` (0.1.0's name of `--min-helpfulness`) is still accepted by both
    routes, hidden from help, and the lean path reads it as the deprecated name."""
    import typer.main
    from typer.core import TyperGroup

    from orbit_learnings import entry
    from orbit_learnings.cli.app import app

    click_command = typer.main.get_command(app)
    for name in command:
        assert isinstance(click_command, TyperGroup), name
        click_command = click_command.commands[name]
    by_name = {option: param for param in click_command.params for option in param.opts}
    assert getattr(by_name["--min-confidence"], "hidden", False) is True
    assert getattr(by_name["--min-helpfulness"], "hidden", False) is False
    valued = getattr(entry, HOT_COMMANDS[command][0])
    assert (valued["--min-helpfulness"], valued["--min-confidence"]) == (
        "min_helpfulness",
        "min_confidence",
    )
