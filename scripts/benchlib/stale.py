"""`--only-stale` and the staleness rows of the default run: `check --stale` and `prune`
as whole processes in a real git repository, optionally beside an older package."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from benchlib.measure import run_process, samples_alternating, summary
from benchlib.store import ORBIT, commit_all, generate, generate_tree, run_git_count


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
        actions: dict[str, Callable[[], object]] = {
            name + suffix: partial(run_process, args, tmp, env=env)
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
