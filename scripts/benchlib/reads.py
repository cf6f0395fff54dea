"""`--reads`: the read paths (the in-process search phases and the hot commands as whole
processes) of this checkout, and of an older one beside it, interleaved (#17)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from benchlib.measure import run_process, samples_alternating
from benchlib.store import generate, read_payload

READ_QUERIES = ("retries billing", "invariants engine")  # a word every learning holds; a typo
# What the `orbit` executable runs: `entry.console` (its quick exit included), or `main`
# in versions older than it.
_LAUNCH = (
    "import sys; sys.path.insert(0, {src!r}); "
    "from orbit_learnings import entry; "
    "sys.exit(entry.console() if hasattr(entry, 'console') else entry.main())"
)
# Run in a child per version: imports, then the phases of an in-process search (top 5).
_PHASES = """
import json, os, statistics, sys, time
sys.path.insert(0, {src!r})
pc = time.perf_counter
t1 = pc()
for name in {modules!r}:
    try:
        __import__(name)
    except ImportError:  # a pseudo-module such as cython_runtime
        pass
imports = pc() - t1
from orbit_learnings.index import build
from orbit_learnings.retrieval import queries, scoring
from orbit_learnings.store import config
from orbit_learnings.store.workspace import Workspace
ws = Workspace({root!r})
first = pc()
json.dumps(queries.search_text(ws, {text!r}, limit=5).to_dict())
out = {{"imports_ms": imports * 1000, "first_search_ms": (pc() - first) * 1000}}
glossary = config.glossary(ws)
folder = str(ws.learnings_dir)  # the pathlib accessor: its name is the same in older checkouts
samples = {{"search": [], "freshness": [], "stat_floor": [], "query": [], "output": []}}
for _ in range({repeats}):
    start = pc()
    result = queries.search_text(ws, {text!r}, limit=5)
    samples["search"].append(pc() - start)
    start = pc()
    json.dumps(result.to_dict())
    samples["output"].append(pc() - start)
    start = pc()
    fd = os.open(folder, os.O_RDONLY)
    for name in os.listdir(folder):
        if name[0] != ".":
            os.stat(name + "/learning.yaml", dir_fd=fd)
    os.close(fd)
    samples["stat_floor"].append(pc() - start)
    start = pc()
    with build.open_fresh(ws) as index:
        samples["freshness"].append(pc() - start)
        start = pc()
        scoring.text_matches(index.conn, {text!r}, ("active",), (), glossary)
        samples["query"].append(pc() - start)
for name, values in samples.items():
    out[name + "_ms"] = statistics.median(values) * 1000
out["ranking_ms"] = out["search_ms"] - out["freshness_ms"] - out["query_ms"]
print(json.dumps(out))
"""


def _search_modules(src: Path, root: Path, env: dict[str, str]) -> list[str]:
    """The modules a `learning search --json` process of this version imports beyond the
    floor's, in import order: the phases time importing exactly these."""
    code = (
        f"import sys; sys.path.insert(0, {str(src)!r}); before = set(sys.modules); "
        "import io; probe = set(sys.modules) - before; "
        "from orbit_learnings.entry import main; sys.stdout = io.StringIO(); "
        f"main(['learning', 'search', {READ_QUERIES[1]!r}, '--json']); "
        "sys.stderr.write(' '.join(m for m in sys.modules if m not in before | probe))"
    )
    floor = subprocess.run(
        [sys.executable, "-c", "import sqlite3, json, sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, env=env
    ).stderr.split()
    return [m for m in found if m not in floor]


def read_commands(launcher: list[str], root: Path) -> dict[str, tuple[list[str], str | None]]:
    """The hot commands an agent or a hook runs, each as (args, stdin)."""
    match = "services/billing/mod7/handlers.py"
    hook_input = read_payload(root, match)
    text = READ_QUERIES[1]
    return {
        "search_kind_learning_json": (
            [*launcher, "search", text, "--kind", "learning", "--json"],
            None,
        ),
        "learning_search_json": ([*launcher, "learning", "search", text, "--json"], None),
        "list_path_json": ([*launcher, "learning", "list", "--path", match, "--json"], None),
        "inject": ([*launcher, "learning", "inject", "--path", match], None),
        "hook_claude_code": ([*launcher, "hook", "claude-code"], hook_input),
    }


# The floor plus `_PHASES`'s bare-stat loop, as a whole process run in a store's root: what
# a command that checks freshness by stat pays at least, before any of its own work.
_STAT_FLOOR_PROCESS = """
import sqlite3, json, os
folder = ".orbit/learnings"
fd = os.open(folder, os.O_RDONLY)
for name in os.listdir(folder):
    if name[0] != ".":
        os.stat(name + "/learning.yaml", dir_fd=fd)
os.close(fd)
"""
# The floor plus the bare-stat loop plus the least a free-text search can do with the index:
# open it, one FTS5 query of the text's words (bm25-ranked, first 5) and its JSON. No
# tiers, no tie-breakers, no package: what any FTS5-backed search process pays at least.
# The index's file and tables are named here, not imported: importing them costs the floor.
_SEARCH_FLOOR_PROCESS = (
    _STAT_FLOOR_PROCESS
    + """
import sys
conn = sqlite3.connect(".orbit/state/index.sqlite3")
words = " OR ".join('"' + w + '"' for w in sys.argv[1].split())
rows = conn.execute(
    "SELECT l.id, l.summary FROM learnings_fts f JOIN learnings_index l ON l.rowid = f.rowid"
    " WHERE learnings_fts MATCH ? ORDER BY bm25(learnings_fts) LIMIT 5", (words,)
).fetchall()
sys.stdout.write(json.dumps(rows))
"""
)
SEARCH_COMMANDS = ("search_kind_learning_json", "learning_search_json")
HOT_COMMANDS = (
    "search_kind_learning_json",
    "learning_search_json",
    "list_path_json",
    "inject",
    "hook_claude_code",
)


def bench_reads(
    count: int, versions: dict[str, Path], runs: int, repeats: int, proc_repeats: int
) -> list[dict[str, object]]:
    """`runs` interleaved runs of each version's read paths, on a store per version (the
    same content; each keeps its own index): the in-process search phases with the
    bare-stat floor beside the freshness check, and whole processes beside the floor
    and beside the floor plus the bare-stat loop."""
    import compileall

    for src in versions.values():  # with PYTHONDONTWRITEBYTECODE, stale bytecode recompiles per run
        compileall.compile_dir(str(src), quiet=1)
    tmp = Path(tempfile.mkdtemp(prefix=f"orbit-reads-{count}-"))
    try:
        roots = {name: tmp / name for name in versions}
        for root in roots.values():
            generate(root, count)
        # Each version has its own (absent) personal store: two index versions sharing
        # one would rebuild it on every switch.
        envs = {
            name: {**os.environ, "XDG_DATA_HOME": str(tmp / f"home-{name}")} for name in versions
        }
        launchers = {
            name: [sys.executable, "-c", _LAUNCH.format(src=str(src))]
            for name, src in versions.items()
        }
        for _ in range(2):  # build, then read once more past the racy window
            time.sleep(1.1)
            for name in versions:
                run_process([*launchers[name], "learning", "sync"], roots[name], env=envs[name])
        modules = {n: _search_modules(src, roots[n], envs[n]) for n, src in versions.items()}
        actions = read_actions(launchers, roots, envs, tmp)
        results: list[dict[str, object]] = []
        for run in range(runs):
            print(f"  run {run + 1} of {runs} at {count} learnings", file=sys.stderr)
            entry: dict[str, object] = {"learnings": count, "run": run + 1}
            for text in READ_QUERIES:
                for name, src in versions.items():
                    phases = read_phases(src, modules[name], roots[name], envs[name], text, repeats)
                    entry[f"{name}:phases:{text}"] = phases
            entry |= process_medians(samples_alternating(actions, proc_repeats))
            results.append(entry)
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read_actions(
    launchers: dict[str, list[str]],
    roots: dict[str, Path],
    envs: dict[str, dict[str, str]],
    tmp: Path,
) -> dict[str, Callable[[], object]]:
    """The whole processes `bench_reads` times, interleaved: the floor, the floor plus the
    bare-stat loop (in the first version's store: all hold the same content), and each
    version's hot commands."""
    first = next(iter(roots))
    commands: dict[str, tuple[list[str], str | None, Path, dict[str, str] | None]] = {
        "floor": ([sys.executable, "-c", "import sqlite3, json"], None, tmp, None),
        "stat_floor_process": (
            [sys.executable, "-c", _STAT_FLOOR_PROCESS],
            None,
            roots[first],
            None,
        ),
        "search_floor_process": (
            [sys.executable, "-c", _SEARCH_FLOOR_PROCESS, READ_QUERIES[1]],
            None,
            roots[first],
            None,
        ),
    }
    for name, launcher in launchers.items():
        for key, (args, stdin) in read_commands(launcher, roots[name]).items():
            commands[f"{name}:{key}"] = (args, stdin, roots[name], envs[name])
    return {
        key: partial(run_process, args, cwd, stdin, env)
        for key, (args, stdin, cwd, env) in commands.items()
    }


def read_phases(
    src: Path, modules: list[str], root: Path, env: dict[str, str], text: str, repeats: int
) -> dict[str, float]:
    """The in-process search phases of one version (a child running `_PHASES`), in ms."""
    code = _PHASES.format(src=str(src), modules=modules, root=str(root), text=text, repeats=repeats)
    child = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if child.returncode:
        raise SystemExit(f"{src}: the phases failed:\n{child.stderr}")
    return {k: round(v, 2) for k, v in json.loads(child.stdout).items()}


def process_medians(samples: dict[str, list[float]]) -> dict[str, object]:
    """One run's whole-process medians: the floor's in ms; every other process's median
    and ratio to the floor; each hot command's ms above the floor plus stat loop, and each
    search's above the bare search process."""
    floor = statistics.median(samples["floor"])
    stat_floor = statistics.median(samples["stat_floor_process"])
    search_floor = statistics.median(samples["search_floor_process"])
    medians: dict[str, object] = {"floor_ms": round(floor, 2)}
    for key, values in samples.items():
        if key != "floor":
            median = statistics.median(values)
            stats = {"median_ms": round(median, 2), "ratio": round(median / floor, 2)}
            if key.partition(":")[2] in HOT_COMMANDS:
                stats["above_stat_floor_process_ms"] = round(median - stat_floor, 2)
            if key.partition(":")[2] in SEARCH_COMMANDS:
                stats["above_search_floor_process_ms"] = round(median - search_floor, 2)
            medians[key] = stats
    return medians
