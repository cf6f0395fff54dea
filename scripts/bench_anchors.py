#!/usr/bin/env python3
"""Do anchors cost the hot commands anything? (reports, never asserts)

    python scripts/bench_anchors.py                  # 1,000 learnings, 20 % anchored
    python scripts/bench_anchors.py --count 1000 --share 0.2 --repeats 15 --json
    python scripts/bench_anchors.py --renamed 100   # only: `anchors` on one renamed file

Two stores built alike by scripts/benchlib's generator, one with anchors on a share of its
learnings (each citing a function of a real code file the hot commands touch), are timed
interleaved in one run against the floor `python -c "import sqlite3, json"`; then the cited
file is edited so every anchor on it drifts, and the first push after the edit (verdicts
recomputed) is timed apart from the next ones (verdicts cached).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib.measure import run_process, samples_alternating
from benchlib.store import AREAS, ORBIT, commit_all, generate, read_payload

from orbit_learnings.core.anchors.locate import record_anchor

FUNCTIONS = 12
HOT_FILE = "services/api/hot/handlers.py"


def code_file(seed: int, functions: int = FUNCTIONS) -> str:
    parts = ['"""Handlers."""\n']
    for n in range(functions):
        parts.append(
            f"\n\ndef handle_{seed}_{n}(request, retries={n}):\n"
            f"    payload = request.json()\n"
            f"    if payload.get('version') != {n + seed}:\n"
            f"        raise Conflict('stale {seed}-{n}')\n"
            f"    return save(payload, retries=retries)\n"
        )
    return "".join(parts)


def function_lines(n: int) -> tuple[int, int]:
    start = 4 + n * 7  # the docstring line, then two blank lines and five lines a function
    return start, start + 4


def build(root: Path, count: int, share: float) -> list[str]:
    """A store of `count` learnings; `share` of them cite a function (one in five of those
    in HOT_FILE, the rest in files of their own). Returns the anchored IDs."""
    generate(root, count)
    files = {HOT_FILE: code_file(0)}
    anchored: list[str] = []
    step = max(1, round(1 / share)) if share else 0
    for n in range(1, count + 1):
        if not step or n % step:
            continue
        path = HOT_FILE if len(anchored) % 5 == 0 else f"services/{AREAS[n % 10]}/a{n}/code.py"
        files.setdefault(path, code_file(n))
        start, end = function_lines(len(anchored) % FUNCTIONS)
        anchor = record_anchor(path, files[path], start, end, recorded="2026-10-02")
        lid = f"L-{n:04d}"
        cited = anchor.to_dict()
        with (root / ".orbit/learnings" / lid / "learning.yaml").open("a") as handle:
            handle.write("anchors:\n  - " + "\n    ".join(f"{k}: '{v}'" for k, v in cited.items()))
            handle.write("\n")
        anchored.append(lid)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run([str(ORBIT), "learning", "sync"], cwd=root, capture_output=True, check=True)
    return anchored


def renamed_file(root: Path, count: int, repeats: int) -> dict[str, float]:
    """Milliseconds of `anchors --json` after the cited file was renamed: the first run,
    then the median of the next `repeats`."""
    generate(root, count)
    text = code_file(0, count)
    for n in range(count):
        start, end = function_lines(n)
        anchor = record_anchor(HOT_FILE, text, start, end, recorded="2026-10-02")
        cited = anchor.to_dict()
        with (root / ".orbit/learnings" / f"L-{n + 1:04d}" / "learning.yaml").open("a") as handle:
            handle.write("anchors:\n  - " + "\n    ".join(f"{k}: '{v}'" for k, v in cited.items()))
            handle.write("\n")
    (root / HOT_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / HOT_FILE).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    commit_all(root, "code and learnings")
    subprocess.run(["git", "mv", HOT_FILE, "services/api/hot/routes.py"], cwd=root, check=True)
    commit_all(root, "rename")
    argv = [str(ORBIT), "learning", "anchors", "--json"]
    timings: list[float] = []
    inside: list[float] = []
    for _ in range(repeats + 1):
        began = time.perf_counter()
        run_process(argv, root)
        timings.append((time.perf_counter() - began) * 1000)
        inside.append(report_ms(root))
    return {
        "anchors --json, first run (judged)": round(timings[0], 1),
        "anchors --json, next runs (cached)": median(timings[1:]),
        "anchor_report alone, next runs": median(inside),
    }


REPORT_ONLY = (
    "import time\n"
    "from orbit_learnings.curation.anchors.report import anchor_report\n"
    "from orbit_learnings.store.workspace import Workspace\n"
    "start = time.perf_counter()\n"
    "anchor_report(Workspace('.'))\n"
    "print((time.perf_counter() - start) * 1000)\n"
)


def report_ms(root: Path) -> float:
    """The anchors' own cost in one run, without the process start-up and imports."""
    done = subprocess.run(
        [sys.executable, "-c", REPORT_ONLY], cwd=root, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip())


def commands(root: Path) -> dict[str, tuple[list[str], str | None]]:
    payload = read_payload(root, HOT_FILE, session="")
    orbit = str(ORBIT)
    return {
        "list --path --json": ([orbit, "learning", "list", "--path", HOT_FILE, "--json"], None),
        "inject --path": ([orbit, "learning", "inject", "--path", HOT_FILE], None),
        "hook claude-code": ([orbit, "hook", "claude-code"], payload),
    }


def median(samples: list[float]) -> float:
    return round(statistics.median(samples), 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--share", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--renamed", type=int, default=0, help="only the renamed-file case")
    args = parser.parse_args()
    if args.renamed:
        with tempfile.TemporaryDirectory() as tmp:
            found = renamed_file(Path(tmp), args.renamed, min(args.repeats, 5))
        print(json.dumps(found, indent=2) if args.json else found)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        plain, anchored_root = Path(tmp, "plain"), Path(tmp, "anchored")
        build(plain, args.count, 0.0)
        anchored = build(anchored_root, args.count, args.share)
        floor = [sys.executable, "-c", "import sqlite3, json"]
        actions: dict[str, Callable[[], object]] = {"floor": partial(run_process, floor, plain)}
        for label, root in (("plain", plain), ("anchored", anchored_root)):
            for name, (argv, stdin) in commands(root).items():
                actions[f"{name} ({label})"] = partial(run_process, argv, root, stdin)
        samples = samples_alternating(actions, args.repeats)
        drift = drifted_pushes(anchored_root, args.repeats)
    result = {
        "count": args.count,
        "anchored": len(anchored),
        "medians_ms": {name: median(s) for name, s in samples.items()},
        "drift": drift,
    }
    floor = result["medians_ms"]["floor"]
    result["ratios"] = {n: round(m / floor, 2) for n, m in result["medians_ms"].items()}
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


def drifted_pushes(root: Path, repeats: int) -> dict[str, float]:
    """Edit the hot file so its anchors drift: the first hook re-judges them; so does one
    within a second of the edit and the first after it (the index's racy rule: a verdict
    on a file that young is not kept); later hooks read the cached verdicts."""
    argv, stdin = commands(root)["hook claude-code"]
    target = root / HOT_FILE
    samples: dict[str, list[float]] = {name: [] for name in DRIFT_ROWS}
    for round_number in range(repeats):
        target.write_text(code_file(round_number + 1).replace("retries=retries", "retries=1"))
        for name in DRIFT_ROWS:
            if name == DRIFT_ROWS[2]:
                time.sleep(1.1)  # past the racy window
            start = time.perf_counter()
            run_process(argv, root, stdin)
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: median(values) for name, values in samples.items()}


DRIFT_ROWS = (
    "hook after the edit (re-judged)",
    "next hook, within a second of the edit (racy: re-judged)",
    "first hook once the file settled (re-judged, now kept)",
    "later hooks (cached)",
)


def markdown(result: dict[str, object]) -> str:
    medians, ratios = result["medians_ms"], result["ratios"]
    assert isinstance(medians, dict) and isinstance(ratios, dict)
    lines = [
        f"{result['count']} learnings, {result['anchored']} anchored; medians (ms) and x floor",
        "",
        "| command | plain | anchored |",
        "|---|---|---|",
    ]
    for name in commands(Path("/")):
        plain, anchored = f"{name} (plain)", f"{name} (anchored)"
        lines.append(
            f"| {name} | {medians[plain]} ({ratios[plain]}x) "
            f"| {medians[anchored]} ({ratios[anchored]}x) |"
        )
    lines.append(f"| floor | {medians['floor']} | |")
    drift = result["drift"]
    assert isinstance(drift, dict)
    lines += ["", *(f"- {name}: {value} ms" for name, value in drift.items())]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
