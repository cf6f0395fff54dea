#!/usr/bin/env python3
"""Retrieval quality on the labelled sets in tests/eval/, reported by kind of case.

    python scripts/eval_search.py                 # the realistic set, every mode installed
    python scripts/eval_search.py --json
    python scripts/eval_search.py --set heldout   # the held-out set: report, never tune
    python scripts/eval_search.py --set tuning2   # the second tuning store (a game studio)
    python scripts/eval_search.py --set tuning    # every tuning store, never the held-out set
    python scripts/eval_search.py --set both      # the tuning stores, then held-out (`make eval`)
    python scripts/eval_search.py --set small     # the first 40-query set
    python scripts/eval_search.py --misses        # list what each kind got wrong
    python scripts/eval_search.py --fit [--mode semantic]  # refit confidence on the tuning stores

Search: recall@5 and MRR per query kind; for unanswerable queries, how often the
top result is below the confident-match threshold (nothing would be shown), and
for answerable ones how often the answer is in the top 5 *and* confident.
Injection: of the learnings each task must receive, the share `inject` delivered
(recall), and the share of what it injected that was neither must nor acceptable
(noise). Modes: `bm25` (ORBIT_SEMANTIC=0) and `semantic` where an embedding
model is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
K = 5
# The measuring machine's own personal store (~/.local/share/orbit-learnings) must not
# take part: every run searches the labelled set and nothing else.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="orbit-eval-home-")


def _load_set(name: str) -> Any:
    if name == "small":
        from tests.eval.dataset import LEARNINGS, QUERIES
        from tests.eval.realistic import EvalLearning, EvalQuery, EvalSet

        learnings = [
            EvalLearning(f"L-{n:04d}", s, b, p, t) for n, (s, t, p, b) in enumerate(LEARNINGS, 1)
        ]
        return EvalSet(learnings, [EvalQuery(q, "mixed", e) for q, e in QUERIES], [])
    if name == "heldout":
        from tests.eval.heldout import load as load_heldout

        return load_heldout()
    from tests.eval.realistic import load

    return load(ROOT / "tests" / "eval" / name) if name.startswith("tuning") else load()


def _confident(hit: Any) -> bool:
    value = getattr(hit, "match_confidence", None)
    if value is None:  # a version without match confidence: any result is taken as an answer
        return True
    from orbit_learnings.retrieval import confidence

    return bool(value >= confidence.THRESHOLD)


def evaluate_search(root: Path, data: Any, ids: dict[str, str]) -> dict[str, Any]:
    from orbit_learnings.retrieval import queries
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(root)
    by_kind: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"queries": 0, "hits": 0, "rr": 0.0, "kept": 0, "misses": []}
    )
    for query in data.queries:
        hits = queries.search_text(ws, query.text, limit=20).hits
        ranked = [h.id for h in hits]
        row = by_kind[query.kind]
        row["queries"] += 1
        confident = bool(hits) and _confident(hits[0])
        if not query.expected:
            row["kept"] += 0 if confident else 1  # recognised as unanswerable
            if confident:
                row["misses"].append(f"{query.text[:70]!r} -> {ranked[0]}")
            continue
        expected = {ids[key] for key in query.expected}
        rank = next((i + 1 for i, r in enumerate(ranked) if r in expected), None)
        found = rank is not None and rank <= K
        row["hits"] += found
        row["kept"] += found and confident
        row["rr"] += 1.0 / rank if rank else 0.0
        if not found:
            row["misses"].append(f"{query.text[:70]!r} rank {rank}")
    return _summarise_search(by_kind)


def _summarise_search(by_kind: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"by_kind": {}}
    totals = {"queries": 0, "hits": 0, "rr": 0.0, "kept": 0}
    for kind, row in sorted(by_kind.items()):
        n = row["queries"]
        if kind == "noanswer":
            out["noanswer"] = {"queries": n, "recognised": round(row["kept"] / n, 3)}
            out["noanswer_misses"] = row["misses"]
            continue
        out["by_kind"][kind] = {
            "queries": n,
            f"recall@{K}": round(row["hits"] / n, 3),
            "mrr": round(row["rr"] / n, 3),
            "kept_confident": round(row["kept"] / n, 3),
            "misses": row["misses"],
        }
        for key in totals:
            totals[key] += row[key]
    n = totals["queries"] or 1
    out["answerable"] = {
        "queries": totals["queries"],
        f"recall@{K}": round(totals["hits"] / n, 3),
        "mrr": round(totals["rr"] / n, 3),
        "kept_confident": round(totals["kept"] / n, 3),
        # what the gate alone hides: of the queries whose answer is in the top 5
        "kept_of_found": round(totals["kept"] / (totals["hits"] or 1), 3),
    }
    return out


def feature_rows(
    root: Path, queries: list[Any], ids: dict[str, str]
) -> list[tuple[dict[str, float], int, bool]]:
    """(confidence features of the top result, 1 if the top 5 answer the query, whether it
    is unanswerable) per query: the rows `confidence_fit` fits on."""
    from orbit_learnings.retrieval import confidence
    from orbit_learnings.retrieval import queries as reads
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(root)
    rows = []
    for query in queries:
        expected = {ids[key] for key in query.expected}
        hits = reads.search_text(ws, query.text, limit=K, explain=True).hits
        if not hits:
            continue
        features = (hits[0].explain or {}).get("confidence_features", {})
        assert isinstance(features, dict)  # explain is loosely typed: name -> float here
        found = any(h.id in expected for h in hits)
        row = {n: float(features[n]) for n in confidence.FEATURES}
        rows.append((row, int(found), not query.expected))
    return rows


def evaluate_injection(
    root: Path, data: Any, ids: dict[str, str], *, with_text: bool = True
) -> dict[str, Any]:
    import inspect

    from orbit_learnings.core.scope import Scope
    from orbit_learnings.push import inject
    from orbit_learnings.store.workspace import Workspace

    ws = Workspace(root)
    takes_text = "task_text" in inspect.signature(inject.select).parameters
    must_total = must_found = shown_total = noise = 0
    misses = []
    for task in data.tasks:
        extra = {"task_text": task.text} if takes_text and with_text else {}
        chosen = inject.select(
            ws, Scope(task.context_files, task.tags), limit=K, record=False, **extra
        )
        shown = {h.id for h in chosen.hits}
        must = {ids[k] for k in task.must}
        fine = must | {ids[k] for k in task.acceptable}
        must_total += len(must)
        must_found += len(must & shown)
        shown_total += len(shown)
        noise += len(shown - fine)
        if must - shown:
            misses.append(f"{task.title[:60]!r}: missing {sorted(must - shown)}")
    return {
        "tasks": len(data.tasks),
        "reads_task_text": takes_text,
        "must_recall": round(must_found / max(must_total, 1), 3),
        "noise": round(noise / max(shown_total, 1), 3),
        "shown_per_task": round(shown_total / max(len(data.tasks), 1), 2),
        "misses": misses,
    }


def embed(root: Path) -> None:
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.retrieval import semantic
    from orbit_learnings.store.workspace import Workspace

    with open_fresh(Workspace(root)) as fresh:
        semantic.embed(fresh.conn)


def run(set_name: str, only: str | None = None) -> dict[str, Any]:
    from tests.eval.realistic import build_store

    from orbit_learnings.retrieval import semantic

    data = _load_set(set_name)
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ids = build_store(Path(tmp), data.learnings)
        modes = ["bm25", *(["semantic"] if semantic.available() else [])]
        modes = [m for m in modes if only in (None, m)]
        for mode in modes:
            os.environ["ORBIT_SEMANTIC"] = "1" if mode == "semantic" else "0"
            if mode == "semantic":
                embed(Path(tmp))
            result[mode] = {"search": evaluate_search(Path(tmp), data, ids)}
            if data.tasks:
                result[mode]["injection"] = evaluate_injection(Path(tmp), data, ids)
                result[mode]["injection_files_only"] = evaluate_injection(
                    Path(tmp), data, ids, with_text=False
                )
    return result


def print_report(result: dict[str, Any], *, show_misses: bool) -> None:
    for mode, parts in result.items():
        search = parts["search"]
        print(f"== {mode}")
        print(f"{'kind':<12}{'n':>5}{'recall@5':>10}{'MRR':>8}{'kept':>7}")
        for kind, row in search["by_kind"].items():
            figures = f"{row['recall@5']:>10.3f}{row['mrr']:>8.3f}{row['kept_confident']:>7.3f}"
            print(f"{kind:<12}{row['queries']:>5}{figures}")
            for miss in row["misses"] if show_misses else []:
                print(f"    missed: {miss}")
        total = search["answerable"]
        row = f"{total['queries']:>5}{total['recall@5']:>10.3f}{total['mrr']:>8.3f}"
        print(f"{'answerable':<12}{row}")
        print(
            f"answerable queries keeping a confident answer: {total['kept_confident']:.3f}"
            f" ({total['kept_of_found']:.3f} of those answered in the top 5)"
        )
        if "noanswer" in search:
            print(
                f"unanswerable recognised: {search['noanswer']['recognised']:.3f}"
                f" ({search['noanswer']['queries']} queries)"
            )
            for miss in search["noanswer_misses"] if show_misses else []:
                print(f"    confident on: {miss}")
        for key, label in (("injection", "task text + files"), ("injection_files_only", "files")):
            if key not in parts:
                continue
            inj = parts[key]
            print(
                f"injection ({label}): must-recall {inj['must_recall']:.3f},"
                f" noise {inj['noise']:.3f}, {inj['shown_per_task']} shown per task"
                f" ({inj['tasks']} tasks)"
            )
            for miss in inj["misses"] if show_misses else []:
                print(f"    {miss}")


# The stores the confidence model is fitted on (each a folder of tests/eval/); the held-out
# set is never one of them.
TUNING = ("realistic", "tuning2", "tuning3")


def store_rows(set_name: str, mode: str | None) -> list[tuple[dict[str, float], int, bool]]:
    """One store's fitting rows: its queries and its tuning-only extra ones
    (`queries_extra.yaml`, where the store has that file)."""
    from tests.eval.realistic import build_store, extra_queries

    data = _load_set(set_name)
    folder = ROOT / "tests" / "eval" / set_name
    has_extra = (folder / "queries_extra.yaml").exists()
    queries = data.queries + (extra_queries(folder) if has_extra else [])
    os.environ["ORBIT_SEMANTIC"] = "1" if mode == "semantic" else "0"
    with tempfile.TemporaryDirectory() as tmp:
        ids = build_store(Path(tmp), data.learnings)
        if mode == "semantic":
            embed(Path(tmp))
        return feature_rows(Path(tmp), queries, ids)


def fit(set_name: str, mode: str | None) -> int:
    """Fit on the tuning stores pooled (`--set tuning`) or on one; print the coefficients,
    calibrated on held-out folds, those folds' figures by store and, pooled, each store's
    model judged on the other."""
    import confidence_fit

    from orbit_learnings.retrieval import confidence

    names_of_sets = TUNING if set_name == "tuning" else (set_name,)
    per_store = {name: store_rows(name, mode) for name in names_of_sets}
    rows = [row for store in per_store.values() for row in store]
    stores = [name for name, store in per_store.items() for _ in store]
    names = confidence_fit.SEMANTIC_FITTED if mode == "semantic" else confidence_fit.FITTED
    runs = confidence_fit.held_out_probabilities(rows, names)
    cut = confidence_fit.balanced_cut(rows, runs)
    model = confidence_fit.calibrated(
        confidence_fit.fit(rows, names), cut["cut"], confidence.THRESHOLD
    )
    print(json.dumps(model, indent=2))
    summary: dict[str, Any] = {"rows": len(rows), "unanswerable": sum(1 for r in rows if r[2])}
    summary["held_out_at_the_cut"] = cut
    summary["by_store"] = confidence_fit.by_store(rows, stores, runs, cut["cut"])
    for train, test in ((a, b) for a in per_store for b in per_store if a != b):
        summary[f"fit_on_{train}_judged_on_{test}"] = confidence_fit.cross_store(
            per_store[train], per_store[test], names
        )
    if len(per_store) > 2:  # each store judged by a model fitted on all the others
        for test, rows_of_test in per_store.items():
            rest = [r for name, s in per_store.items() if name != test for r in s]
            summary[f"fit_on_the_others_judged_on_{test}"] = confidence_fit.cross_store(
                rest, rows_of_test, names
            )
    print(json.dumps(summary, indent=2), file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--set",
        choices=(*TUNING, "tuning", "heldout", "both", "small"),
        help="tuning = every tuning store (what --fit pools); both = those and heldout",
    )
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument("--mode", choices=("bm25", "semantic"), help="measure one mode only")
    parser.add_argument(
        "--fit", action="store_true", help="fit the match-confidence coefficients (of --mode)"
    )
    args = parser.parse_args()
    if args.fit:
        if args.set in ("heldout", "both"):  # the held-out set is never tuned on
            parser.error("--fit fits on the tuning sets only (--set tuning or one of them)")
        return fit(args.set or "tuning", args.mode)
    groups = {"tuning": TUNING, "both": (*TUNING, "heldout")}
    names = groups.get(args.set or "realistic", (args.set or "realistic",))
    results = {name: run(name, args.mode) for name in names}
    if args.json:
        print(json.dumps(results if len(names) > 1 else results[names[0]], indent=2))
        return 0
    for name, result in results.items():
        if len(results) > 1:
            print(f"#### {name} set")
        print_report(result, show_misses=args.misses and name != "heldout")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
