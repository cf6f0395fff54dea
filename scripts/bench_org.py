#!/usr/bin/env python3
"""The org level at scale (reports, never asserts): 5,000 org learnings plus 1,000
project learnings against one project store of 6,000, side by side.

    python scripts/bench_org.py                  # hook and `list --path`, warm, 15 rounds
    python scripts/bench_org.py --org 5000 --project 1000 --rounds 21 --json

Both stores are `scripts/bench.py`'s synthetic learnings (the org's with `O-` IDs); the
org one is a real git repository behind a bare remote, subscribed with `orbit org
subscribe` so its pinned tree and index sit in the cache as they would for a team.
Whole-process wall times, alternating the two setups every round (see
`timing.samples_alternating`), medians in ms and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import measure as timing
from benchlib import store

TARGET = "services/billing/mod7/handlers.py"  # as scripts/bench.py asks


def _git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
    }
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def build(base: Path, org_count: int, project_count: int) -> tuple[Path, Path, dict[str, str]]:
    """(a subscriber with `project_count` learnings reading `org_count` org ones, a
    project-only store of the same total size, the environment both run in)."""
    env = {**os.environ, "ORBIT_ORG_CACHE": str(base / "cache"), "ORBIT_USER_HOME": str(base / "u")}
    org = base / "org"
    org.mkdir()
    store.generate(org, org_count, seed=3, prefix="O")
    (org / ".orbit" / "config.yaml").write_text("id_prefix: O\n")
    _git(org, "init", "-q", "-b", "main")
    _git(org, "add", "-A")
    _git(org, "commit", "-q", "-m", "org")
    _git(base, "clone", "-q", "--bare", str(org), str(base / "org.git"))
    subscriber = base / "subscriber"
    subscriber.mkdir()
    store.generate(subscriber, project_count, seed=5)
    done = subprocess.run(
        [str(store.ORBIT), "org", "subscribe", str(base / "org.git")],
        cwd=subscriber,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    alone = base / "alone"
    alone.mkdir()
    store.generate(alone, org_count + project_count, seed=5)
    for root in (subscriber, alone, base / "x"):
        root.mkdir(exist_ok=True)
        (root / TARGET).parent.mkdir(parents=True, exist_ok=True)
        (root / TARGET).write_text("def handler():\n    return 1\n")
    return subscriber, alone, env


def measure(subscriber: Path, alone: Path, env: dict[str, str], rounds: int) -> dict[str, object]:
    counter = iter(range(10**9))

    def hook(root: Path) -> None:
        payload = store.read_payload(root, TARGET, session=f"s{next(counter)}")
        timing.run_process([str(store.ORBIT), "hook", "claude-code"], root, payload, env)

    def listing(root: Path) -> None:
        timing.run_process(
            [str(store.ORBIT), "learning", "list", "--path", TARGET], root, None, env
        )

    actions = {
        "hook org+project": lambda: hook(subscriber),
        "hook project only": lambda: hook(alone),
        "list org+project": lambda: listing(subscriber),
        "list project only": lambda: listing(alone),
    }
    samples = timing.samples_alternating(actions, rounds)
    medians = {name: round(statistics.median(values), 1) for name, values in samples.items()}
    ratios = {
        what: round(medians[f"{what} org+project"] / medians[f"{what} project only"], 3)
        for what in ("hook", "list")
    }
    return {"medians_ms": medians, "ratios": ratios}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org", type=int, default=5000)
    parser.add_argument("--project", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="orbit-bench-org-") as folder:
        subscriber, alone, env = build(Path(folder), args.org, args.project)
        for root in (subscriber, alone):  # warm: each index built once before timing
            timing.run_process([str(store.ORBIT), "learning", "list"], root, None, env)
        result = measure(subscriber, alone, env, args.rounds)
    result |= {"org": args.org, "project": args.project, "rounds": args.rounds}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        medians, ratios = result["medians_ms"], result["ratios"]
        assert isinstance(medians, dict) and isinstance(ratios, dict)
        for name, value in medians.items():
            print(f"{name:20s} {value:8.1f} ms")
        for name, value in ratios.items():
            print(f"{name} ratio (org+project / project only): {value:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
