"""The default run: the hot paths at each store size, in process and as whole processes
(beside the floor `python -c "import sqlite3, json"`), rendered for docs/performance.md."""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchlib.measure import process_stats, stat_floor, table, table_head, timed, timed_together
from benchlib.store import (
    ORBIT,
    ROOT,
    generate,
    kiro_prompt_payload,
    mcp_payload,
    patch_payload,
    prompt_payload,
    read_payload,
)

if TYPE_CHECKING:
    from orbit_learnings.store.workspace import Workspace

# The path every lookup and hook asks about (some learnings match it), and one none match.
MATCH = "services/billing/mod7/handlers.py"
MISS = "vendor/unrelated/file.c"


def bench_size(count: int, repeats: int, proc_repeats: int) -> dict[str, object]:
    """Every hot-path figure of one store of `count` learnings."""
    from orbit_learnings.index import build as index
    from orbit_learnings.store.workspace import Workspace

    tmp = Path(tempfile.mkdtemp(prefix=f"orbit-bench-{count}-"))
    try:
        generate(tmp, count)
        ws = Workspace(tmp)
        os.chdir(tmp)
        result: dict[str, object] = {"learnings": count}
        time.sleep(1.1)  # let the freshly written files age past the index's racy window
        start = time.perf_counter()
        index.sync(ws)
        result["full_rebuild_ms"] = round((time.perf_counter() - start) * 1000, 1)
        result |= in_process_reads(ws, repeats)
        result |= in_process_writes(ws, repeats)
        time.sleep(1.1)
        with index.open_fresh(ws):
            pass  # leave the index fresh before whole-process runs
        result["processes"] = whole_processes(tmp, proc_repeats)
        return result
    finally:
        os.chdir(ROOT)
        shutil.rmtree(tmp, ignore_errors=True)


def in_process_reads(ws: Workspace, repeats: int) -> dict[str, object]:
    """Lookups, `list --path`, free-text search, and the freshness check beside its floor."""
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.index import build as index
    from orbit_learnings.retrieval import queries

    result: dict[str, object] = {}
    active = ("active",)
    with index.open_fresh(ws) as fresh:
        match_q = queries.resolve_queries(ws, [MATCH])
        miss_q = queries.resolve_queries(ws, [MISS])
        result["path_lookup_match"] = timed(
            lambda: queries.lookup(fresh.conn, match_q, [], active), repeats
        )
        result["path_lookup_miss"] = timed(
            lambda: queries.lookup(fresh.conn, miss_q, [], active), repeats
        )
        result["tag_lookup"] = timed(
            lambda: queries.lookup(fresh.conn, [], ["security"], active), repeats
        )
    result["list_path_end_to_end"] = timed(
        lambda: queries.list_learnings(ws, Scope([MATCH])), repeats
    )
    result["text_search"] = timed(
        lambda: queries.search_text(ws, "retries billing", limit=10), repeats
    )
    result.update(
        timed_together(
            {
                "freshness_noop": lambda: index.open_fresh(ws).__enter__().close(),
                "stat_floor": stat_floor(ws.learnings_dir_str),
            },
            repeats,
        )
    )
    return result


def in_process_writes(ws: Workspace, repeats: int) -> dict[str, object]:
    """A refresh after one changed file, `add` and `upvote`."""
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.curation.adding import add_learning
    from orbit_learnings.index import build as index
    from orbit_learnings.store import bundles as store

    result: dict[str, object] = {}
    victim = ws.learnings_dir / "L-0001" / "learning.yaml"

    def touch_and_refresh() -> None:
        victim.write_text(
            victim.read_text().replace("lesson 1 ", "lesson 1  ").replace("lesson 1  ", "lesson 1 ")
        )
        os.utime(victim, ns=(time.time_ns(), time.time_ns() - 5_000_000_000))
        with index.open_fresh(ws):
            pass

    result["refresh_one_changed"] = timed(touch_and_refresh, max(3, repeats // 5))
    time.sleep(1.1)
    with index.open_fresh(ws):
        pass

    def add_one() -> None:  # distinct words, so the near-duplicate check lets it through
        words = " ".join(f"w{random.getrandbits(40):x}" for _ in range(6))
        add_learning(ws, store.NewLearning(f"bench {words}", Scope(["x/**"])))

    result["add"] = timed(add_one, max(3, repeats // 5))
    counter = iter(range(10**6))
    result["upvote"] = timed(
        lambda: store.add_vote(ws, "L-0002", "bench", f"B-{next(counter)}"),
        max(3, repeats // 5),
    )
    return result


def whole_processes(root: Path, proc_repeats: int) -> dict[str, dict[str, float]]:
    """The hot commands as whole processes in `root`, each with its ratio to the floor."""
    processes = process_stats(hot_commands(root), root, proc_repeats)
    for name, stats in processes.items():
        if name != "floor":
            ratio = stats["median_ms"] / processes["floor"]["median_ms"]
            stats["ratio_to_floor"] = round(ratio, 2)
    return processes


def hot_commands(root: Path) -> dict[str, tuple[list[str], str | None]]:
    """Each command (args, stdin) that `whole_processes` times, the floor first."""
    return {
        "floor": ([sys.executable, "-c", "import sqlite3, json"], None),
        "list_path_json": (
            [str(ORBIT), "learning", "list", "--path", MATCH, "--json"],
            None,
        ),
        "inject": ([str(ORBIT), "learning", "inject", "--path", MATCH], None),
        "hook_claude_code": ([str(ORBIT), "hook", "claude-code"], read_payload(root, MATCH)),
        "hook_prompt": (
            [str(ORBIT), "hook", "claude-code"],
            prompt_payload(root, f"why do the invariants engine checks fail in {MATCH}"),
        ),
        "hook_codex_patch": ([str(ORBIT), "hook", "codex"], patch_payload(root, MATCH)),
        "hook_codex_mcp": ([str(ORBIT), "hook", "codex"], mcp_payload(root, MATCH)),
        "hook_kiro_prompt": (
            [str(ORBIT), "hook", "kiro"],
            kiro_prompt_payload(root, f"why do the invariants engine checks fail in {MATCH}"),
        ),
        "search_json": (
            [str(ORBIT), "learning", "search", "invariants engine", "--json"],
            None,
        ),
        "search_kind_learning_json": (
            [str(ORBIT), "search", "invariants engine", "--kind", "learning", "--json"],
            None,
        ),
        # What a user would otherwise run: no ranking, no scope, but no index either.
        "git_grep_same_query": (
            ["git", "grep", "--no-index", "-l", "-i", "invariants engine", ".orbit"],
            None,
        ),
    }


NOTES_MARKER = "<!-- notes: kept when the tables above are regenerated -->"


def markdown(results: list[dict[str, object]], info: dict[str, str]) -> str:
    """docs/performance.md's generated part: the machine, then a column per store size."""

    def cell(entry: object) -> str:
        if isinstance(entry, dict):
            return f"{entry['median_ms']:.2f} / {entry['p95_ms']:.2f}"
        return f"{entry}"

    sizes = [r["learnings"] for r in results]
    rows = table_head("measurement (median / p95 ms)", sizes)
    for key, label in [
        ("path_lookup_match", "in-process path lookup, matching path"),
        ("path_lookup_miss", "in-process path lookup, no match"),
        ("list_path_end_to_end", "in-process `list --path` incl. freshness check"),
        ("tag_lookup", "in-process tag lookup"),
        ("text_search", "in-process free-text search"),
        ("freshness_noop", "freshness check, nothing changed"),
        ("stat_floor", "floor: one bare `os.stat` per learning.yaml"),
        ("refresh_one_changed", "refresh after one changed file"),
        ("add", "`add`"),
        ("upvote", "`upvote`"),
    ]:
        rows.append(f"| {label} | " + " | ".join(cell(r[key]) for r in results) + " |")
    rows.append(
        "| full rebuild (`sync`), ms | "
        + " | ".join(str(r["full_rebuild_ms"]) for r in results)
        + " |"
    )
    proc_rows = ["", *table_head("whole process (median ms, ×floor, max RSS MB)", sizes)]
    for key, label in [
        ("floor", 'floor: `python -c "import sqlite3, json"`'),
        ("list_path_json", "`orbit learning list --path P --json`"),
        ("inject", "`orbit learning inject --path P`"),
        ("hook_claude_code", "`orbit hook claude-code` (PostToolUse JSON on stdin)"),
        ("hook_prompt", "`orbit hook claude-code` (UserPromptSubmit: the prompt searched)"),
        ("hook_codex_patch", "`orbit hook codex` (PostToolUse of an `apply_patch`)"),
        ("hook_codex_mcp", "`orbit hook codex` (PostToolUse of a subagent's MCP `read_file`)"),
        ("hook_kiro_prompt", "`orbit hook kiro` (userPromptSubmit: the prompt searched)"),
        ("search_json", "`orbit learning search TEXT --json`"),
    ]:
        cells = []
        for r in results:
            entry = table(table(r, "processes"), key)
            ratio = f", {entry['ratio_to_floor']}×" if "ratio_to_floor" in entry else ""
            cells.append(f"{entry['median_ms']:.1f}{ratio}, {entry['max_rss_mb']} MB")
        proc_rows.append(f"| {label} | " + " | ".join(cells) + " |")
    proc_rows += stale_rows(results)
    header = (
        "# Performance\n\n"
        "Generated by `make bench` (`scripts/bench.py`); numbers are from the machine below\n"
        "and move with it, so compare ratios rather than absolute times.\n\n"
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['platform']}, "
        f"Python {info['python']}, {info['date']}.\n\n"
    )
    return header + "\n".join(rows + proc_rows) + "\n"


def stale_rows(results: list[dict[str, object]]) -> list[str]:
    """Staleness, whole process, in a git repository of generated files: each run shown."""
    stale = [table(r, "stale") for r in results]
    files = ", ".join(f"{s['files']:,}" for s in stale)
    title = f"staleness, whole process (median ms; each run), {files} source files"
    rows = ["", *table_head(title, [r["learnings"] for r in results])]
    for key, label in [
        ("check_stale", "`orbit learning check --stale`"),
        ("prune_json", "`orbit learning prune --json`"),
        ("check", "`orbit learning check` (no `--stale`: the validation it adds to)"),
    ]:
        cells = []
        for entry in stale:
            timing = entry[key]
            runs = ", ".join(f"{v:.0f}" for v in timing["runs_ms"])
            cells.append(f"{timing['median_ms']:.0f}; {runs}")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return rows
