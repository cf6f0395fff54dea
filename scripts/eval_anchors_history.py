#!/usr/bin/env python3
"""Anchors judged on the real history of public Python repositories, against a syntax-tree
oracle (tests/fixtures/anchor_oracle.py) that never uses orbit's code.

    python scripts/eval_anchors_history.py                 # the report (clones once, cached)
    python scripts/eval_anchors_history.py --json --misses
    python scripts/eval_anchors_history.py --cache DIR --per-repo 40 --commits 10

For each repository: anchors are recorded with `orbit learning add --anchor` at the parent
of a commit that reformatted the code base with black, then judged with `orbit learning
anchors --json` at that formatter commit and at later commits (descendants touching the
package, evenly spaced), the index kept warm between them as in a real clone. The oracle's
labels are decided from git and `ast` alone (the targets are chosen by those labels too,
a third among code that later changes, before orbit judges anything). Reported: the
confusion matrix, precision and recall of each state and of drift detection (positive =
drifted or broken), moved anchors at the right place, and every anchor reported drifted
or broken at a formatter-only commit (the oracle says the tree did not change).

The repositories are cloned once into the cache folder (default
`~/.cache/orbit-anchor-history`, outside any work tree), from the local mirror under
`--mirrors` when it holds one, else from GitHub.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.anchor_oracle import (  # noqa: E402
    BROKEN,
    DRIFTED,
    STATES,
    Snapshot,
    Target,
    Verdict,
    candidates,
    choose,
    git,
    label,
)
from tests.fixtures.anchor_repo import isolated_env, orbit  # noqa: E402

MISSING = "missing"
ANCHORS_PER_LEARNING = 10


@dataclass(frozen=True)
class Repo:
    """A repository, the commit that reformatted it with black, and its package folder."""

    name: str  # owner/name on GitHub
    formatter: str  # anchors are recorded at its first parent
    package: str


REPOS = (
    Repo("urllib3/urllib3", "f7a4bed0", "src/urllib3"),  # Merge #1619 "blacken", 2019
    Repo("psf/requests", "2a6f290b", "requests"),  # "Add automatic code formatting", 2022
    Repo("pallets/click", "93ba3ba1", "src/click"),  # "apply black", 2020
)


@dataclass(frozen=True)
class Observation:
    repo: str
    commit: str
    target: Target
    expected: Verdict
    state: str
    now: tuple[str, int, int] | None
    formatter: bool

    def line(self) -> str:
        now = f"{self.now[0]}:{self.now[1]}-{self.now[2]}" if self.now else "-"
        where = f"{self.expected.path}:{self.expected.start}-{self.expected.end}"
        return (
            f"{self.repo}@{self.commit[:8]} {self.target.kind} {self.target.spec}"
            f" ({self.target.owner}): expected {self.expected.state} {where},"
            f" got {self.state} {now}"
        )


def clone(repo: Repo, cache: Path, mirrors: Path) -> Path:
    """The cached clone of `repo`, made once."""
    target = cache / repo.name.replace("/", "+")
    if (target / "HEAD").exists() or (target / ".git").exists():
        return target
    mirror = mirrors / repo.name.replace("/", "+") / "repo"
    source = str(mirror) if mirror.exists() else f"https://github.com/{repo.name}.git"
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--bare", source, str(target)], check=True)
    return target


def later_commits(source: Path, repo: Repo, count: int, window: int) -> list[str]:
    """The formatter commit, then `count - 1` descendants touching the package, evenly
    spaced over the first `window` of them."""
    formatter = git(source, "rev-parse", repo.formatter).strip()
    out = git(
        source, "rev-list", "--reverse", "--topo-order", "--ancestry-path",
        f"{formatter}..HEAD", "--", repo.package,
    )  # fmt: skip
    after = out.split()[:window]
    wanted = count - 1
    step = max(len(after) / max(wanted, 1), 1.0)
    picked = [after[min(int(step * (i + 1)) - 1, len(after) - 1)] for i in range(wanted)]
    return [formatter, *dict.fromkeys(picked)]


def pick_targets(
    source: Path, repo: Repo, commits: list[str], count: int, seed: int
) -> list[Target]:
    """Targets in the package at the base commit, chosen by the oracle's labels."""
    base = f"{repo.formatter}^1"
    files = git(source, "ls-tree", "-r", "--name-only", base, "--", repo.package).split()
    pool: list[Target] = []
    base_snapshot = Snapshot(source, base, base)
    for path in files:
        if path.endswith(".py") and (tree := base_snapshot.tree(path)) is not None:
            pool += candidates(path, tree)
    snapshots = [Snapshot(source, base, commit) for commit in commits]
    labels = {t: [label(t, s) for s in snapshots] for t in pool}
    return choose(pool, labels, count, seed=seed)


def record(work: Path, env: dict[str, str], targets: list[Target]) -> list[tuple[str, int]]:
    """Learnings citing the targets, ten anchors each; (ID, position) of every target."""
    orbit(work, env, "init")
    places: list[tuple[str, int]] = []
    for first in range(0, len(targets), ANCHORS_PER_LEARNING):
        group = targets[first : first + ANCHORS_PER_LEARNING]
        args = ["learning", "add", "--summary", f"lesson {first}", "--force", "--json"]
        for target in group:
            args += ["--anchor", target.spec]
        learning_id = str(json.loads(orbit(work, env, *args))["id"])
        places += [(learning_id, position) for position in range(len(group))]
    return places


def judge(work: Path, env: dict[str, str]) -> dict[tuple[str, int], dict[str, Any]]:
    payload = json.loads(orbit(work, env, "learning", "anchors", "--json"))
    reports: dict[tuple[str, int], dict[str, Any]] = {}
    counts: Counter[str] = Counter()
    for entry in payload["anchors"]:
        reports[(entry["id"], counts[entry["id"]])] = entry
        counts[entry["id"]] += 1
    return reports


def now_of(entry: dict[str, Any] | None) -> tuple[str, int, int] | None:
    if not entry or not isinstance(entry.get("now"), dict):
        return None
    start, _, end = str(entry["now"]["lines"]).partition("-")
    return entry["now"]["path"], int(start), int(end or start)


def evaluate_repo(
    repo: Repo,
    source: Path,
    scratch: Path,
    *,
    anchors: int,
    commits: int,
    window: int,
    seed: int = 36,
) -> list[Observation]:
    later = later_commits(source, repo, commits, window)
    targets = pick_targets(source, repo, later, anchors, seed)
    work, home = scratch / repo.name.replace("/", "+"), scratch / "home"
    home.mkdir(exist_ok=True)
    env = isolated_env(home)
    subprocess.run(["git", "clone", "-q", "--shared", str(source), str(work)], check=True)
    git(work, "checkout", "-q", "--detach", f"{repo.formatter}^1")
    places = record(work, env, targets)
    base = git(work, "rev-parse", "HEAD").strip()
    observations: list[Observation] = []
    for commit in later:
        git(work, "checkout", "-q", "--detach", commit)
        reports = judge(work, env)
        snapshot = Snapshot(work, base, commit)
        for target, place in zip(targets, places, strict=True):
            expected = label(target, snapshot)
            if expected is None:
                continue
            entry = reports.get(place)
            observations.append(
                Observation(
                    repo.name,
                    commit,
                    target,
                    expected,
                    str(entry["state"]) if entry else MISSING,
                    now_of(entry),
                    formatter=commit == later[0],
                )
            )
    return observations


def scores(observations: list[Observation]) -> dict[str, Any]:
    confusion = {e: Counter[str]() for e in STATES}
    for o in observations:
        confusion[o.expected.state][o.state] += 1
    per_state: dict[str, dict[str, Any]] = {}
    for state in STATES:
        tp = confusion[state][state]
        reported = sum(confusion[e][state] for e in STATES)
        expected = sum(confusion[state].values())
        per_state[state] = _pr(tp, reported, expected)
    positive = (DRIFTED, BROKEN)
    tp = sum(1 for o in observations if o.expected.state in positive and o.state in positive)
    reported = sum(1 for o in observations if o.state in positive)
    expected = sum(1 for o in observations if o.expected.state in positive)
    moved = [o for o in observations if o.expected.state == "moved" and o.state == "moved"]
    right = [o for o in moved if o.now == (o.expected.path, o.expected.start, o.expected.end)]
    at_formatter = [o for o in observations if o.formatter]
    unchanged = [o for o in at_formatter if o.expected.state not in positive]
    format_false = [o for o in unchanged if o.state in positive]
    return {
        "observations": len(observations),
        "confusion": {e: dict(row) for e, row in confusion.items()},
        "states": per_state,
        "drift": _pr(tp, reported, expected),
        "moved_right_place": f"{len(right)}/{len(moved)}",
        "formatter_commit": {
            "observations": len(at_formatter),
            "unchanged": len(unchanged),
            "drift_raised": len(format_false),
        },
    }


def _pr(tp: int, reported: int, expected: int) -> dict[str, Any]:
    return {
        "n": expected,
        "tp": tp,
        "precision": round(tp / reported, 3) if reported else None,
        "recall": round(tp / expected, 3) if expected else None,
    }


def print_report(report: dict[str, Any]) -> None:
    for name, figures in report["repos"].items():
        print(f"{name}: {figures['anchors']} anchors x {figures['commits']} commits")
    total = report["total"]
    print(f"\n{total['observations']} observations; confusion (expected \\ reported):")
    columns = [*STATES, MISSING]
    print("    " + " " * 10 + "".join(f"{c:>9}" for c in columns))
    for state, row in total["confusion"].items():
        print(f"    {state:<10}" + "".join(f"{row.get(c, 0):>9}" for c in columns))
    print(f"\n    {'':<22}{'n':>6}{'tp':>6}  precision recall")
    for name, row in [*total["states"].items(), ("drift (drifted|broken)", total["drift"])]:
        p = "n/a" if row["precision"] is None else f"{row['precision']:.3f}"
        r = "n/a" if row["recall"] is None else f"{row['recall']:.3f}"
        print(f"    {name:<22}{row['n']:>6}{row['tp']:>6}  {p:>9} {r:>6}")
    fmt = total["formatter_commit"]
    print(f"\nmoved at the right place: {total['moved_right_place']}")
    print(
        f"formatter commits: {fmt['observations']} observations, {fmt['unchanged']} unchanged"
        f" by the oracle, drift raised on {fmt['drift_raised']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    default_cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    parser.add_argument("--cache", type=Path, default=default_cache / "orbit-anchor-history")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--per-repo", type=int, default=40, help="anchors per repository")
    parser.add_argument("--commits", type=int, default=10, help="commits judged per repository")
    parser.add_argument("--window", type=int, default=300, help="later commits to spread over")
    parser.add_argument("--repo", action="append", help="only this owner/name (repeatable)")
    parser.add_argument("--seed", type=int, default=36, help="another seed: other anchors")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list every disagreement")
    args = parser.parse_args()
    chosen = [r for r in REPOS if not args.repo or r.name in args.repo]
    observations: list[Observation] = []
    per_repo: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="orbit-anchor-history-") as tmp:
        for repo in chosen:
            source = clone(repo, args.cache, args.mirrors)
            found = evaluate_repo(
                repo,
                source,
                Path(tmp),
                anchors=args.per_repo,
                commits=args.commits,
                window=args.window,
                seed=args.seed,
            )
            observations += found
            per_repo[repo.name] = {
                "anchors": len({o.target for o in found}),
                "commits": len({o.commit for o in found}),
            }
    report: dict[str, Any] = {"repos": per_repo, "total": scores(observations)}
    misses = [o.line() for o in observations if o.state != o.expected.state]
    if args.json:
        print(json.dumps(report | ({"misses": misses} if args.misses else {}), indent=2))
    else:
        print_report(report)
        if args.misses:
            print("\ndisagreements:")
            for line in misses:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
