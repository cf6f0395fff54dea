"""Parsing bundles on every core for a full rebuild: YAML parsing is most of its time.

A first read after a clone, or `sync`, parses every bundle; at 10,000 learnings that
is seconds of pure-Python YAML construction on one core. Forked workers inherit the
imported parser, so they start in milliseconds and pay off from a few thousand
bundles. Forking is only safe from a process with a single thread (the dashboard
rebuilds from worker threads), so anything else parses in this process, as it
always has.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from orbit_learnings.index.rows import Loaded, load_folder
from orbit_learnings.store.workspace import Workspace

PARALLEL_FROM = 2000  # bundles: below this, starting workers costs more than it saves
CHUNK = 250
MAX_WORKERS = 4


def load_all(ws: Workspace, folders: Sequence[str]) -> Iterator[Loaded]:
    """Every folder's `Loaded`, in the order given."""
    workers = _workers(len(folders))
    if workers < 2:
        for folder in folders:
            yield load_folder(ws, folder)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [list(folders[i : i + CHUNK]) for i in range(0, len(folders), CHUNK)]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        jobs = [(ws.root_str, ws.level, ws.home_str, chunk) for chunk in chunks]
        for loaded in pool.map(_load_chunk, jobs):
            yield from loaded


def _workers(count: int) -> int:
    if count < PARALLEL_FROM or os.environ.get("ORBIT_SERIAL_INDEX"):
        return 1
    import threading  # past the size check: a small store's first read rebuilds, on the hot path

    if threading.active_count() > 1 or threading.current_thread() is not threading.main_thread():
        return 1
    try:
        import multiprocessing

        multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform
        return 1
    return min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, MAX_WORKERS)


def _load_chunk(job: tuple[str, str, str | None, list[str]]) -> list[Loaded]:
    root, level, home, folders = job
    ws = Workspace(root, level=level, home=home)
    return [load_folder(ws, folder) for folder in folders]
