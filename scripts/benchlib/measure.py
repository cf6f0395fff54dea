"""How the benchmarks measure: wall times taken round-robin (shared VMs drift by tens of
percent over seconds), their summaries, peak memory, the machine, and table headers."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any


def summary(samples: list[float], digits: int = 3) -> dict[str, float]:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, max(0, round(0.95 * len(samples)) - 1))]
    return {"median_ms": round(statistics.median(samples), digits), "p95_ms": round(p95, digits)}


def timed(action: Callable[[], object], repeats: int) -> dict[str, float]:
    return timed_together({"it": action}, repeats)["it"]


def timed_together(
    actions: Mapping[str, Callable[[], object]], repeats: int
) -> dict[str, dict[str, float]]:
    """Time several actions round-robin, so that measurements compared with each other
    (a command and its floor) see the same machine: shared VMs drift by tens of
    percent over seconds."""
    samples = samples_together(actions, repeats)
    return {name: summary(values) for name, values in samples.items()}


def samples_together(
    actions: Mapping[str, Callable[[], object]], repeats: int
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
    actions: Mapping[str, Callable[[], object]], repeats: int
) -> dict[str, list[float]]:
    """Like `samples_together`, after one untimed run of each, and in reverse order every
    other round: on this VM, files unread for a minute drop out of the page cache, so
    whichever action runs first after a long one would otherwise pay for reading them."""
    for action in actions.values():
        action()
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for round_number in range(repeats):
        names = list(actions) if round_number % 2 == 0 else list(reversed(list(actions)))
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
) -> dict[str, dict[str, float]]:
    """Wall time of each command (args, stdin), interleaved, plus its peak memory."""
    runs = {
        name: partial(run_process, args, cwd, stdin) for name, (args, stdin) in commands.items()
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


def table_head(title: str, sizes: Sequence[object]) -> list[str]:
    """A markdown table's header (a column for each store size) and its rule."""
    columns = " | ".join(f"{size:,} learnings" for size in sizes)
    return [f"| {title} | {columns} |", "|---|" + "---|" * len(sizes)]


def table(results: Mapping[str, object], key: str) -> dict[str, Any]:
    """`results[key]`, one of the nested tables of a run's results (JSON-shaped: a run's
    results are dicts of dicts, read back by the markdown renderers)."""
    value = results[key]
    if not isinstance(value, dict):
        raise TypeError(f"{key}: {value!r} is not a table")
    return value
