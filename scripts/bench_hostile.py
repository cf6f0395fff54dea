#!/usr/bin/env python3
"""Time the glob cases of the hostile-stores issue (#19); reports, never asserts.

    python scripts/bench_hostile.py

Each case was once a stall: `*a*a*a…*b` took 16.6 s on a 34-character path and doubled
per character; a 1,400-character query glob hit RecursionError. The budget is 50 ms.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ORBIT = Path(sys.executable).with_name("orbit")
HEAVY = "*a*a*a*a*a*a*a*a*a*a*a*a*b"


def best_ms(call: Callable[[], object], rounds: int = 7) -> float:
    """The fastest of a few runs, each with the matchers' caches emptied (a first call)."""
    from orbit_learnings.core import matching

    times = []
    for _ in range(rounds):
        for cached in (
            matching.compiled,
            matching.globs_overlap,
            matching.segment_patterns_overlap,
        ):
            cached.cache_clear()
        matching.is_heavy.cache_clear()
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def orbit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ORBIT), *args], cwd=root, capture_output=True, text=True)


def main() -> None:
    from orbit_learnings.core import matching
    from orbit_learnings.core.globs import compile_glob

    heavy = compile_glob(HEAVY)
    heavy_segments = matching.learning_glob_segments(HEAVY)
    rows = []
    for length in (34, 255, 1000):
        path = "a" * length

        def match(path: str = path) -> bool:
            return matching.path_matches(heavy.regex, path, heavy.glob)

        ms = best_ms(match)
        rows.append((f"match {HEAVY} against a {length}-character name (in process)", ms))
    long_query = "a*" * 700
    capped = matching.make_query("/".join(["a*" * 120] * 4))  # 963 characters, inside the caps
    rows.append(
        (
            "overlap a 963-character query glob with the heavy glob (in process)",
            best_ms(lambda: matching._segments_overlap(heavy_segments, capped.segments)),
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        orbit(root, "init")
        orbit(root, "learning", "add", "--summary", "Heavy glob", "--path", HEAVY)
        time.sleep(1.2)  # past the racy window, so the files count as settled (see freshness)
        orbit(root, "learning", "list")  # build the index once
        floor = best_ms(lambda: subprocess.run([sys.executable, "-c", "import sqlite3"]), 5)
        for label, args in (
            ("orbit learning list --path <34 a's> (whole process)", ("--path", "a" * 34)),
            ("orbit learning list --path <1,400-character glob> (refused)", ("--path", long_query)),
        ):

            def run(args: tuple[str, ...] = args) -> object:
                return orbit(root, "learning", "list", *args)

            ms = statistics.median(best_ms(run, 1) for _ in range(5))
            rows.append((label, ms))
        rows.append(("python -c 'import sqlite3' (the floor)", floor))
    for label, ms in rows:
        print(f"{ms:8.2f} ms  {label}")


if __name__ == "__main__":
    main()
