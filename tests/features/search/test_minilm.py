"""The torch-free MiniLM: the same vectors sentence-transformers gives, offline."""

from __future__ import annotations

import pytest

from orbit_learnings.retrieval import minilm, semantic

pytestmark = pytest.mark.skipif(
    not semantic.available(), reason="the optional semantic extra is not installed"
)


def test_reproduces_the_reference_similarities() -> None:
    """The numbers sentence-transformers' documentation prints for all-MiniLM-L6-v2."""
    model = minilm.MiniLM(minilm.model_dir() or "")
    vectors = model.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    similarity = vectors @ vectors.T
    assert similarity[0, 1] == pytest.approx(0.6660, abs=2e-3)
    assert similarity[0, 2] == pytest.approx(0.1046, abs=2e-3)
    assert similarity[1, 2] == pytest.approx(0.1411, abs=2e-3)


def test_batches_sorted_by_length_keep_the_callers_order() -> None:
    model = minilm.MiniLM(minilm.model_dir() or "")
    texts = ["a much longer sentence about database migrations and locks", "short", "mid size"]
    together = model.embed(texts, batch=2)
    one_by_one = [model.embed([text])[0] for text in texts]
    for row, single in zip(together, one_by_one, strict=True):
        assert float(abs(row - single).max()) < 1e-5
    assert together.dtype.name == "float32" and together.shape == (3, minilm.DIMENSION)
