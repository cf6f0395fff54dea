#!/usr/bin/env python3
"""Retrieval quality on the labelled set in tests/eval/: recall@5 and MRR.

python scripts/eval_search.py           # BM25 (and hybrid, where the extra is installed)
python scripts/eval_search.py --json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build_store(root: Path) -> None:
    from tests.eval.dataset import LEARNINGS

    from orbit_learnings.core.scope import Scope
    from orbit_learnings.store import bundles as store
    from orbit_learnings.store.bundles import NewLearning
    from orbit_learnings.store.setup import init_store
    from orbit_learnings.store.workspace import Workspace

    init_store(root)
    ws = Workspace(root)
    for summary, tags, paths, body in LEARNINGS:
        store.create_learning(ws, NewLearning(summary, Scope(paths, tags), body))


def embed(root: Path) -> None:
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.retrieval import semantic
    from orbit_learnings.store.workspace import Workspace

    with open_fresh(Workspace(root)) as fresh:
        semantic.embed(fresh.conn)


def evaluate(root: Path, k: int = 5) -> dict[str, float]:
    from tests.eval.dataset import QUERIES

    from orbit_learnings.retrieval import queries
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(root)
    hits_at_k = 0
    reciprocal = 0.0
    misses = []
    for text, expected in QUERIES:
        ranked = [h.id for h in queries.search_text(ws, text, limit=20).hits]
        if any(e in ranked[:k] for e in expected):
            hits_at_k += 1
        else:
            misses.append(text)
        rank = next((i + 1 for i, r in enumerate(ranked) if r in expected), None)
        reciprocal += 1.0 / rank if rank else 0.0
    return {
        "queries": len(QUERIES),
        f"recall@{k}": round(hits_at_k / len(QUERIES), 3),
        "mrr": round(reciprocal / len(QUERIES), 3),
        "misses": misses,  # type: ignore[dict-item]
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import os

    from orbit_learnings.retrieval import semantic

    with tempfile.TemporaryDirectory() as tmp:
        build_store(Path(tmp))
        os.environ["ORBIT_SEMANTIC"] = "0"
        result = {"bm25": evaluate(Path(tmp))}
        if semantic.available():
            os.environ["ORBIT_SEMANTIC"] = "1"
            embed(Path(tmp))
            result["hybrid"] = evaluate(Path(tmp))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for mode, scores in result.items():
            print(
                f"{mode}: recall@5 {scores['recall@5']:.3f}  MRR {scores['mrr']:.3f}  "
                f"({scores['queries']} queries)"
            )
            for miss in scores["misses"]:  # type: ignore[union-attr]
                print(f"  missed: {miss}")
        if "hybrid" not in result:
            print("hybrid: not measured (the optional semantic extra is not installed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
