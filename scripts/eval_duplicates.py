#!/usr/bin/env python3
"""Near-duplicate detection on two labelled sets, by the measure `add` uses.

    python scripts/eval_duplicates.py            # both sets
    python scripts/eval_duplicates.py --sweep    # the tuning set at several thresholds

`tuning.yaml` (the team's own pairs, the issue's named cases first) picks the threshold;
`pairs.yaml` (60 learnings of a monorepo, 40 paraphrases, 60 close-but-distinct rules,
written by someone who never saw the code) is only measured. Caught: the paraphrase's best
match is its original and scores at or above the threshold. False duplicate: a distinct
rule scores at or above the threshold against any learning of the store.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
SETS = ROOT / "tests" / "eval" / "duplicates"


def _yaml(name: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((SETS / name).read_text(encoding="utf-8"))


def tuning(threshold: float) -> dict[str, float]:
    from orbit_learnings.core.fts import Glossary
    from orbit_learnings.retrieval.similar import likeness

    data, glossary = _yaml("tuning.yaml"), Glossary()
    caught = sum(likeness(a, b, glossary) >= threshold for a, b in data["duplicates"])
    false = sum(likeness(a, b, glossary) >= threshold for a, b in data["distinct"])
    return {"caught": caught / len(data["duplicates"]), "false": false / len(data["distinct"])}


def independent(threshold: float) -> dict[str, Any]:
    from orbit_learnings.core.fts import Glossary
    from orbit_learnings.retrieval.similar import likeness

    data, glossary = _yaml("pairs.yaml"), Glossary()
    store = {entry["id"]: entry["summary"] for entry in data["store"]}

    def best(summary: str) -> tuple[str, float]:
        return max(((i, likeness(summary, s, glossary)) for i, s in store.items()),
                   key=lambda pair: pair[1])  # fmt: skip

    by_kind: dict[str, list[int]] = {}
    for item in data["duplicates"]:
        found, score = best(item["summary"])
        hit = found == item["same_as"] and score >= threshold
        by_kind.setdefault(item["kind"], [0, 0])
        by_kind[item["kind"]][0] += hit
        by_kind[item["kind"]][1] += 1
    false = sum(best(item["summary"])[1] >= threshold for item in data["distinct"])
    caught = sum(v[0] for v in by_kind.values())
    return {
        "caught": round(caught / len(data["duplicates"]), 2),
        "false": round(false / len(data["distinct"]), 2),
        "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_kind.items())},
    }


def main() -> int:
    from orbit_learnings.retrieval.similar import SIMILARITY

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    if args.sweep:
        for step in range(30, 75, 5):
            print(f"{step / 100:.2f}", tuning(step / 100))
        return 0
    print(f"threshold {SIMILARITY}")
    print("tuning     ", tuning(SIMILARITY))
    print("independent", independent(SIMILARITY))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
