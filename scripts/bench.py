#!/usr/bin/env python3
"""Benchmark harness for the hot paths (reports, never asserts).

    python scripts/bench.py                 # 100, 1,000 and 10,000 learnings -> docs/performance.md
    python scripts/bench.py --sizes 1000 --json
    python scripts/bench.py --quick --json  # the tiny smoke run the test suite uses
    python scripts/bench.py --dashboard     # the dashboard's pages at 5,000 and 10,000 (printed)
    python scripts/bench.py --reads --baseline DIR  # read paths, DIR's src/ beside this one's

Each store is synthetic but realistic: deep `**` globs, file globs, exact paths
and tag-only learnings, 0-20 votes each. Whole-process timings are reported as
a ratio to the floor `python -c "import sqlite3, json"` measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The default install: BM25 alone. With the semantic extra, `add`'s near-duplicate check
# would also compare vectors, and the synthetic summaries (random hex words) look alike.
os.environ.setdefault("ORBIT_SEMANTIC", "0")
ORBIT = Path(sys.executable).with_name("orbit")
AREAS = ["api", "billing", "engine", "web", "db", "auth", "search", "infra", "docs", "tests"]
TAGS = ["performance", "database", "security", "testing", "frontend", "ci", "money", "i18n"]


def generate(
    root: Path, count: int, seed: int = 7, commits: Sequence[str] = (), prefix: str = "L"
) -> None:
    """Write `count` learnings with realistic scopes straight to disk (fast, no CLI);
    with `commits`, every third learning cites one of them as evidence; `prefix` is the
    level's (`O` for an org store)."""
    rng = random.Random(seed)
    learnings = root / ".orbit" / "learnings"
    learnings.mkdir(parents=True)
    (root / ".orbit" / ".gitignore").write_text("state/\n")
    for n in range(1, count + 1):
        area, sub = rng.choice(AREAS), f"mod{rng.randrange(200)}"
        shape = n % 4
        if shape == 0:
            paths = [f"services/{area}/**/{sub}*.py"]
        elif shape == 1:
            paths = [f"services/{area}/{sub}/*.py", f"lib/{area}/**"]
        elif shape == 2:
            paths = [f"services/{area}/{sub}/handlers.py"]
        else:
            paths = []
        tags = rng.sample(TAGS, 1 if paths else 2)
        lid = f"{prefix}-{n:04d}"
        folder = learnings / lid
        folder.mkdir()
        path_lines = "".join(f'    - "{p}"\n' for p in paths) or "    []\n"
        cited = commits[n // 3 % len(commits)] if commits and n % 3 == 0 else None
        evidence = f"\n  - kind: commit\n    ref: '{cited}'" if cited else " []"
        (folder / "learning.yaml").write_text(
            f"id: {lid}\nschemaVersion: 1\nstatus: active\n"
            f"created_at: 2026-0{1 + n % 9}-01T10:00:00Z\n"
            f"updated_at: 2026-0{1 + n % 9}-02T10:00:00Z\n"
            f"created_by: bench\nscope:\n  paths:\n{path_lines}  tags: [{', '.join(tags)}]\n"
            f"summary: When touching {area} {sub}, remember lesson {n} about {tags[0]}"
            " and retries.\n"
            f"body: |\n  Longer explanation {n} for {area}: why it matters and how to apply it.\n"
            f"evidence:{evidence}\nsupersedes: null\npriority: {n % 3}\n"
        )
        votes = rng.randrange(21)
        if votes:
            rows = [
                json.dumps(
                    {
                        "learning_id": lid,
                        "voter_model": "claude",
                        "voted_at": "2026-06-01T00:00:00Z",
                        "task_id": f"T-{v}",
                    }
                )
                for v in range(votes)
            ]
            (folder / "votes.jsonl").write_text("\n".join(rows) + "\n")


def summary(samples: list[float], digits: int = 3) -> dict[str, float]:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, max(0, round(0.95 * len(samples)) - 1))]
    return {"median_ms": round(statistics.median(samples), digits), "p95_ms": round(p95, digits)}


def timed(action: Callable[[], object], repeats: int) -> dict[str, float]:
    return timed_together({"it": action}, repeats)["it"]


def timed_together(actions: dict[str, Callable[[], object]], repeats: int) -> dict[str, dict]:
    """Time several actions round-robin, so that measurements compared with each other
    (a command and its floor) see the same machine: shared VMs drift by tens of
    percent over seconds."""
    samples = samples_together(actions, repeats)
    return {name: summary(values) for name, values in samples.items()}


def samples_together(
    actions: dict[str, Callable[[], object]], repeats: int
) -> dict[str, list[float]]:
    """Each action's wall times in ms, taken round-robin (see `timed_together`)."""
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(repeats):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            samples[name].append((time.perf_counter() - start) * 1000)
    return samples


def samples_alternating(
    actions: dict[str, Callable[[], object]], repeats: int
) -> dict[str, list[float]]:
    """Like `samples_together`, after one untimed run of each, and in reverse order every
    other round: on this VM, files unread for a minute drop out of the page cache, so
    whichever action runs first after a long one would otherwise pay for reading them."""
    for action in actions.values():
        action()
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for round_number in range(repeats):
        names = list(actions) if round_number % 2 == 0 else list(reversed(actions))
        for name in names:
            start = time.perf_counter()
            actions[name]()
            samples[name].append((time.perf_counter() - start) * 1000)
    return samples


def run_process(
    args: list[str], cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> None:
    subprocess.run(
        args,
        cwd=cwd,
        input=stdin,
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        env=env,
    )


_RSS_PROBE = (
    "import resource, subprocess, sys; "
    "quiet = subprocess.DEVNULL; "
    "subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=quiet, stderr=quiet); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_rss_mb(args: list[str], cwd: Path, stdin: str | None = None) -> float:
    """Peak RSS of a command, measured from a small launcher so the benchmark's own
    memory (inherited by a forked child until exec) does not count."""
    out = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, *args],
        cwd=cwd,
        input=stdin,
        text=True,
        capture_output=True,
        check=False,
    ).stdout
    return round(int(out.strip() or 0) / 1024, 1)


def process_stats(
    commands: dict[str, tuple[list[str], str | None]], cwd: Path, repeats: int
) -> dict[str, dict]:
    """Wall time of each command (args, stdin), interleaved, plus its peak memory."""
    runs = {
        name: (lambda args=args, stdin=stdin: run_process(args, cwd, stdin))
        for name, (args, stdin) in commands.items()
    }
    stats = timed_together(runs, repeats)
    for name, (args, stdin) in commands.items():
        stats[name] = {k: round(v, 2) for k, v in stats[name].items()}
        stats[name]["max_rss_mb"] = peak_rss_mb(args, cwd, stdin)
    return stats


def stat_floor(folder: str) -> Callable[[], None]:
    """What any stat-based freshness check pays at least: the tightest Python loop of
    one `os.stat` per learning.yaml (relative to a directory descriptor), with no index
    work. Freshness is reported beside it."""

    def run() -> None:
        fd = os.open(folder, os.O_RDONLY)
        try:
            for name in os.listdir(folder):
                if name[0] != ".":
                    os.stat(name + "/learning.yaml", dir_fd=fd)
        finally:
            os.close(fd)

    return run


def bench_size(count: int, repeats: int, proc_repeats: int) -> dict[str, object]:
    from orbit_learnings.core.scope import Scope
    from orbit_learnings.curation.adding import add_learning
    from orbit_learnings.index import build as index
    from orbit_learnings.retrieval import queries
    from orbit_learnings.store import bundles as store
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
        match = "services/billing/mod7/handlers.py"
        miss = "vendor/unrelated/file.c"
        active = ("active",)
        with index.open_fresh(ws) as fresh:
            match_q = queries.resolve_queries(ws, [match])
            miss_q = queries.resolve_queries(ws, [miss])
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
            lambda: queries.list_learnings(ws, Scope([match])), repeats
        )
        result["text_search"] = timed(
            lambda: queries.search_text(ws, "retries billing", limit=10), repeats
        )
        result.update(
            timed_together(
                {
                    "freshness_noop": lambda: index.open_fresh(ws).__enter__().close(),
                    "stat_floor": stat_floor(ws.learnings_path),
                },
                repeats,
            )
        )

        victim = ws.learnings_dir / "L-0001" / "learning.yaml"

        def touch_and_refresh() -> None:
            victim.write_text(
                victim.read_text()
                .replace("lesson 1 ", "lesson 1  ")
                .replace("lesson 1  ", "lesson 1 ")
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
        time.sleep(1.1)
        with index.open_fresh(ws):
            pass  # leave the index fresh before whole-process runs
        hook_input = read_payload(tmp, match)
        processes = process_stats(
            {
                "floor": ([sys.executable, "-c", "import sqlite3, json"], None),
                "list_path_json": (
                    [str(ORBIT), "learning", "list", "--path", match, "--json"],
                    None,
                ),
                "inject": ([str(ORBIT), "learning", "inject", "--path", match], None),
                "hook_claude_code": ([str(ORBIT), "hook", "claude-code"], hook_input),
                "hook_prompt": (
                    [str(ORBIT), "hook", "claude-code"],
                    prompt_payload(tmp, f"why do the invariants engine checks fail in {match}"),
                ),
                "hook_codex_patch": ([str(ORBIT), "hook", "codex"], patch_payload(tmp, match)),
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
            },
            tmp,
            proc_repeats,
        )
        for name, stats in processes.items():
            if name != "floor":
                ratio = stats["median_ms"] / processes["floor"]["median_ms"]
                stats["ratio_to_floor"] = round(ratio, 2)
        result["processes"] = processes
        return result
    finally:
        os.chdir(ROOT)
        shutil.rmtree(tmp, ignore_errors=True)


STALE_FILE_NAMES = [
    "handlers.py",
    "models.py",
    "views.py",
    "schema.py",
    "README.md",
    "tests/test_handlers.py",
    "tests/test_models.py",
    "migrations/0001_init.py",
    "utils/helpers.py",
]
LIB_AREAS = AREAS[:8]  # two areas have no lib/ folder: their `lib/{area}/**` scopes match nothing


def generate_tree(root: Path, files: int) -> None:
    """About `files` source files shaped like the scopes `generate` writes: nine in ten under
    `services/{area}/mod{k}/`, with fewer `mod` folders than the scopes name (so about one
    path-scoped learning in ten is stale), the rest under `lib/{area}/`."""
    per_mod = len(STALE_FILE_NAMES) + 1
    mods = max(1, files * 9 // 10 // (len(AREAS) * per_mod))
    for area in AREAS:
        for k in range(mods):
            folder = root / "services" / area / f"mod{k}"
            for name in [*STALE_FILE_NAMES, f"mod{k}_service.py"]:
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
    per_area = max(1, (files - mods * per_mod * len(AREAS)) // len(LIB_AREAS))
    for area in LIB_AREAS:
        for k in range(per_area):
            path = root / "lib" / area / f"pkg{k // 25}" / f"part{k}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"")


def commit_all(root: Path, message: str) -> str:
    """`git add -A` and commit; the new commit's SHA."""
    env = {
        **os.environ,
        **{
            f"GIT_{who}_{what}": value
            for who in ("AUTHOR", "COMMITTER")
            for what, value in (("NAME", "bench"), ("EMAIL", "bench@example.com"))
        },
    }
    for args in (["add", "-A"], ["commit", "-qm", message]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


def run_git_count(root: Path) -> int:
    """How many files git tracks in `root`."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True)
    return out.stdout.count(b"\0")


def bench_stale(
    count: int, files: int, repeats: int, baseline: Path | None = None
) -> dict[str, object]:
    """`check --stale` and `prune --json` as whole processes, in a real git repository of
    about `files` files; a third of the learnings cite a commit (one in three of those is
    unknown). Each run's time is kept: these are seconds, not milliseconds, and few. With
    `baseline` (a folder holding an older `orbit_learnings` package, e.g. from `git
    archive`), the same commands also run on that code, interleaved, as `..._baseline`."""
    from orbit_learnings.index import build as index
    from orbit_learnings.store.workspace import Workspace

    tmp = Path(tempfile.mkdtemp(prefix=f"orbit-bench-stale-{count}-"))
    try:
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp, check=True)
        generate_tree(tmp, files)
        head = commit_all(tmp, "tree")
        sources = run_git_count(tmp)
        generate(tmp, count, commits=[head, head[:9], "0123456789abcdef" * 2 + "01234567"])
        commit_all(tmp, "learnings")
        tracked = run_git_count(tmp)
        ws = Workspace(tmp)
        index.sync(ws)
        time.sleep(1.1)  # past the index's racy window, so no run pays for a refresh
        with index.open_fresh(ws):
            pass
        commands = {
            "check_stale": [str(ORBIT), "learning", "check", "--stale"],
            "prune_json": [str(ORBIT), "learning", "prune", "--json"],
            "check": [str(ORBIT), "learning", "check"],  # what --stale adds to, for reading
        }
        envs: dict[str, dict[str, str] | None] = {"": None}
        if baseline is not None:
            envs["_baseline"] = {**os.environ, "PYTHONPATH": str(baseline)}
        actions = {
            name + suffix: (lambda args=args, env=env: run_process(args, tmp, env=env))
            for name, args in commands.items()
            for suffix, env in envs.items()
        }
        runs = samples_alternating(actions, repeats)
        result: dict[str, object] = {"learnings": count, "files": sources, "tracked": tracked}
        for name, values in runs.items():
            result[name] = {**summary(values, 1), "runs_ms": [round(v, 1) for v in values]}
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


DASHBOARD_PAGES = {
    "dashboard_first_page": "/api/learnings?limit=50",
    "dashboard_filtered_page": "/api/learnings?limit=50&tag=security&scope=services/billing/"
    "&sort=-votes",
    "dashboard_search_page": "/api/learnings?limit=50&q=retries+billing",
}


def code_files(root: Path, seed: int = 11) -> None:
    """The source tree the learnings' scopes name (half of the modules exist, so some
    learnings are stale), committed to git: staleness asks git, as in a real repository."""
    rng = random.Random(seed)
    for area in AREAS:
        for sub in sorted(rng.sample(range(200), 100)):
            folder = root / "services" / area / f"mod{sub}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "handlers.py").write_text(f"# {area} {sub}\n")
        (root / "lib" / area).mkdir(parents=True, exist_ok=True)
        (root / "lib" / area / "util.py").write_text("")
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@example.com")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def bench_dashboard(count: int, repeats: int) -> dict[str, object]:
    """The dashboard's three pages through Starlette's TestClient (in process: the ASGI
    app and the JSON encoding, without a socket), warm and right after one learning
    changed on disk (the freshness check re-reads it, and whole-store facts such as
    staleness are keyed by that change)."""
    from starlette.testclient import TestClient

    from orbit_learnings.index import build as index
    from orbit_learnings.integrations.dashboard.app import build_app
    from orbit_learnings.store.workspace import Workspace

    tmp = Path(tempfile.mkdtemp(prefix=f"orbit-bench-dash-{count}-"))
    try:
        generate(tmp, count)
        code_files(tmp)
        ws = Workspace(tmp)
        os.chdir(tmp)
        time.sleep(1.1)  # past the index's racy window
        index.sync(ws)
        client = TestClient(build_app(ws, "bench"), base_url="http://127.0.0.1:8765")
        result: dict[str, object] = {"learnings": count}
        settle(client)
        for name, url in DASHBOARD_PAGES.items():
            result[name] = timed(lambda url=url: client.get(url).raise_for_status(), repeats)
        victim = ws.learnings_dir / "L-0002" / "learning.yaml"
        original = victim.read_text()
        counter = iter(range(10**6))

        def change_then(url: str) -> Callable[[], object]:
            def run() -> object:
                victim.write_text(original.replace("lesson 2 ", f"lesson 2 v{next(counter)} "))
                past = time.time_ns() - 5_000_000_000  # not racy: the quick path is taken
                os.utime(victim, ns=(past, past))
                return client.get(url).raise_for_status()

            return run

        changed = max(3, repeats // 3)
        for name, url in DASHBOARD_PAGES.items():
            result[f"{name}_after_change"] = timed(change_then(url), changed)
        return result
    finally:
        os.chdir(ROOT)
        shutil.rmtree(tmp, ignore_errors=True)


def settle(client: object) -> None:
    """Let a background recomputation of whole-store facts finish before warm timings."""
    for _ in range(600):
        stats = client.get("/api/learnings?limit=1").json()["stats"]  # type: ignore[attr-defined]
        if not stats.get("stale_pending"):
            return
        time.sleep(0.1)


def table_head(title: str, sizes: Sequence[object]) -> list[str]:
    """A markdown table's header (a column for each store size) and its rule."""
    columns = " | ".join(f"{size:,} learnings" for size in sizes)
    return [f"| {title} | {columns} |", "|---|" + "---|" * len(sizes)]


def dashboard_markdown(results: list[dict[str, object]]) -> str:
    sizes = [r["learnings"] for r in results]
    rows = table_head("dashboard API, TestClient (median / p95 ms)", sizes)
    for key, label in [
        ("dashboard_first_page", "first list page, warm"),
        ("dashboard_filtered_page", "filtered page (tag + path, by votes), warm"),
        ("dashboard_search_page", "search page, warm"),
        ("dashboard_first_page_after_change", "first list page, one learning changed"),
        ("dashboard_filtered_page_after_change", "filtered page, one learning changed"),
        ("dashboard_search_page_after_change", "search page, one learning changed"),
    ]:
        cells = [f"{r[key]['median_ms']:.1f} / {r[key]['p95_ms']:.1f}" for r in results]  # type: ignore[index]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


# --- the read paths, version beside version (#17) -----------------------------------

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
folder = ws.learnings_path
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


def read_payload(root: Path, path: str, session: str = "bench") -> str:
    """What Claude Code sends `orbit hook claude-code` after reading `path` in `root`."""
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(root / path)},
        }
    )


def prompt_payload(root: Path, prompt: str, session: str = "bench") -> str:
    """What Claude Code sends on UserPromptSubmit: the user's prompt, searched."""
    return json.dumps(
        {"session_id": session, "cwd": str(root), "hook_event_name": "UserPromptSubmit"}
        | {"prompt": prompt}
    )


def patch_payload(root: Path, path: str, session: str = "bench") -> str:
    """What Codex sends after an `apply_patch` that updates `path`."""
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
    return json.dumps(
        {"session_id": session, "cwd": str(root), "hook_event_name": "PostToolUse"}
        | {"tool_name": "apply_patch", "tool_input": {"command": patch}}
    )


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
        key: (lambda a=args, s=stdin, c=cwd, e=env: run_process(a, c, s, e))
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


def reads_markdown(results: list[dict[str, object]], versions: list[str]) -> str:
    """Medians over the runs (each run's value in brackets), version beside version."""

    def cell(values: list[float], unit: str = "") -> str:
        inner = ", ".join(f"{v:.1f}" if unit else f"{v:.2f}" for v in values)
        return f"{statistics.median(values):.{1 if unit else 2}f}{unit} ({inner})"

    sizes = sorted({int(str(r["learnings"])) for r in results})
    head = " | ".join(f"{size:,} {name}" for size in sizes for name in versions)
    lines = [
        f"| median of runs (each run) | {head} |",
        "|---" * (1 + len(sizes) * len(versions)) + "|",
    ]

    def row(label: str, pick: Callable[[dict[str, object], str], float], unit: str) -> None:
        cells = []
        for size in sizes:
            runs = [r for r in results if r["learnings"] == size]
            for name in versions:
                cells.append(cell([pick(r, name) for r in runs], unit))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    for text in READ_QUERIES:
        for phase in ("search", "freshness", "stat_floor", "query", "ranking", "output"):
            row(
                f"in-process `{text}` top 5: {phase}, ms",
                lambda r, n, t=text, p=phase: float(r[f"{n}:phases:{t}"][f"{p}_ms"]),  # type: ignore[index]
                " ms",
            )
    row(
        "imports of a search process, ms",
        lambda r, n: float(r[f"{n}:phases:{READ_QUERIES[1]}"]["imports_ms"]),
        " ms",
    )  # type: ignore[index]
    row(
        'floor `python -c "import sqlite3, json"`, ms',
        lambda r, n: float(str(r["floor_ms"])),
        " ms",
    )
    stat_floor_rows(row)
    for key in HOT_COMMANDS:
        row(f"{key}, × floor", lambda r, n, k=key: float(r[f"{n}:{k}"]["ratio"]), "")  # type: ignore[index]
        row(f"{key}, ms", lambda r, n, k=key: float(r[f"{n}:{k}"]["median_ms"]), " ms")  # type: ignore[index]
    return "\n".join(lines)


def stat_floor_rows(
    row: Callable[[str, Callable[[dict[str, object], str], float], str], None],
) -> None:
    """The rows of the floor plus the bare-stat loop (one process per run, the same in
    every version's column), and each hot command's own overhead above it; then the bare
    search process, and each search's overhead above that."""
    floors = (
        ("stat_floor_process", "floor + bare-stat loop (whole process)", "floor + stat loop"),
        (
            "search_floor_process",
            "bare search process (floor + stat loop + one FTS5 query)",
            "bare search process",
        ),
    )
    for floor, label, short in floors:
        for field, unit, what in (("median_ms", " ms", "ms"), ("ratio", "", "× floor")):
            row(
                f"{label}, {what}",
                lambda r, n, f=floor, x=field: float(r[f][x]),  # type: ignore[index]
                unit,
            )
        commands = HOT_COMMANDS if floor == "stat_floor_process" else SEARCH_COMMANDS
        for key in commands:
            row(
                f"{key}, ms above the {short}",
                lambda r, n, k=key, f=floor: float(r[f"{n}:{k}"][f"above_{f}_ms"]),  # type: ignore[index]
                " ms",
            )


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "date": time.strftime("%Y-%m-%d"),
    }


NOTES_MARKER = "<!-- notes: kept when the tables above are regenerated -->"


def markdown(results: list[dict[str, object]], info: dict[str, str]) -> str:
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
        ("search_json", "`orbit learning search TEXT --json`"),
    ]:
        cells = []
        for r in results:
            entry = r["processes"][key]  # type: ignore[index]
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
    stale = [r["stale"] for r in results]
    files = ", ".join(f"{s['files']:,}" for s in stale)  # type: ignore[index]
    title = f"staleness, whole process (median ms; each run), {files} source files"
    rows = ["", *table_head(title, [r["learnings"] for r in results])]
    for key, label in [
        ("check_stale", "`orbit learning check --stale`"),
        ("prune_json", "`orbit learning prune --json`"),
        ("check", "`orbit learning check` (no `--stale`: the validation it adds to)"),
    ]:
        cells = []
        for entry in stale:
            timing = entry[key]  # type: ignore[index]
            runs = ", ".join(f"{v:.0f}" for v in timing["runs_ms"])
            cells.append(f"{timing['median_ms']:.0f}; {runs}")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--process-repeats", type=int, default=15)
    parser.add_argument("--stale-files", type=int, default=20000, help="files in the stale runs")
    parser.add_argument("--stale-repeats", type=int, default=3)
    parser.add_argument(
        "--only-stale", action="store_true", help="only `check --stale` and `prune`; prints JSON"
    )
    parser.add_argument(
        "--stale-baseline",
        type=Path,
        help="with --only-stale: also time an older package from this folder, interleaved",
    )
    parser.add_argument(
        "--reads",
        action="store_true",
        help="only the read paths (search phases, hot commands), over --runs runs; prints a table",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="with --reads: also time the package of this checkout (its src/), interleaved",
    )
    parser.add_argument("--runs", type=int, default=3, help="with --reads: how many runs")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run (used by the tests)")
    parser.add_argument(
        "--dashboard",
        action="store_true",
        help="only the dashboard's pages (default sizes 5,000 and 10,000); prints a table",
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON instead of writing docs/performance.md"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "performance.md")
    args = parser.parse_args()
    # A folder without the package would run the installed one (this checkout's) under
    # the baseline's name: a comparison of the code with itself, silently.
    for flag, folder in (
        ("--baseline", args.baseline and args.baseline / "src"),
        ("--stale-baseline", args.stale_baseline),
    ):
        if folder is not None and not (folder / "orbit_learnings" / "__init__.py").is_file():
            parser.error(f"{flag}: no orbit_learnings package in {folder}")
    args.sizes_given = args.sizes is not None
    args.sizes = args.sizes or [100, 1000, 10000]
    if args.dashboard:
        return dashboard_main(args)
    if args.reads:
        return reads_main(args)
    if args.quick:
        args.sizes, args.repeats, args.process_repeats = [30], 3, 2
        args.stale_files, args.stale_repeats = 300, 1
    results = []
    for size in args.sizes:
        print(f"benchmarking {size} learnings...", file=sys.stderr)
        baseline = args.stale_baseline if args.only_stale else None
        stale = bench_stale(size, args.stale_files, args.stale_repeats, baseline)
        if args.only_stale:
            results.append(stale)
            continue
        results.append(bench_size(size, args.repeats, args.process_repeats) | {"stale": stale})
    info = machine()
    if args.only_stale:
        args.json = True
    if args.json:
        print(json.dumps({"machine": info, "results": results}, indent=2))
    else:
        notes = ""  # hand-written analysis below the marker survives regeneration
        if args.out.exists() and NOTES_MARKER in args.out.read_text():
            notes = args.out.read_text().split(NOTES_MARKER, 1)[1]
        args.out.write_text(markdown(results, info) + "\n" + NOTES_MARKER + notes)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def reads_main(args: argparse.Namespace) -> int:
    """`--reads`: the read paths of this checkout (and of `--baseline`), interleaved."""
    versions = {"after": ROOT / "src"}
    if args.baseline is not None:
        versions = {"before": args.baseline.resolve() / "src", **versions}
    sizes = [30] if args.quick else args.sizes if args.sizes_given else [1000, 10000]
    runs, repeats = (1, 3) if args.quick else (args.runs, min(args.repeats, 30))
    proc_repeats = 2 if args.quick else args.process_repeats
    results = []
    for size in sizes:
        print(f"benchmarking the read paths at {size} learnings...", file=sys.stderr)
        results += bench_reads(size, versions, runs, repeats, proc_repeats)
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=2))
    else:
        print(reads_markdown(results, list(versions)))
    return 0


def dashboard_main(args: argparse.Namespace) -> int:
    """`--dashboard`: the three pages at each size, printed (never written to the docs:
    the before/after figures in docs/performance.md are runs of this, copied by hand)."""
    sizes = [30] if args.quick else args.sizes if args.sizes_given else [5000, 10000]
    repeats = 3 if args.quick else min(args.repeats, 30)
    results = []
    for size in sizes:
        print(f"benchmarking the dashboard at {size} learnings...", file=sys.stderr)
        results.append(bench_dashboard(size, repeats))
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=2))
    else:
        print(dashboard_markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
