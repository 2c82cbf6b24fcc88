"""PRO's watermark policy: frozen context encoder -> MLP -> per-token watermark scores (paper §3.1).

For the token after position t the policy looks at the last n tokens x_{t-n+1..t}, encodes them with
a frozen encoder E and maps the code through a trainable MLP M_phi to one score per vocabulary
entry, squashed to (-1, 1).  The watermarked teacher adds delta (1 + M) / 2 to the original logits; the
detector calls token v green when M[v] > 0.  Unlike KGW's hash, M is a smooth function of the
context that is trained *with* the LLM, so the pattern the LLM learns is the one the detector checks.

Encoder `tokbag` (spec §2.1, inferred): the original model's input embeddings projected once by a
fixed random matrix to `feature_dim`, normalised, and concatenated over the n context positions.
It is frozen and stored in the key, so fine-tuning the released model cannot move it.
"""

from __future__ import annotations

import torch
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.pro.config import PolicyConfig


def unit_bias(scores: torch.Tensor) -> torch.Tensor:
    """(1 + M) / 2: PRO's bias per unit of delta, from 0 (red) to 1 (green) like KGW's green indicator
    (delta * M would span 2 delta).  Equal ranges are still not equal strength: see `strength.py`."""
    return (1 + scores) / 2


class TokenBagEncoder(nn.Module):
    """E(x_{t-n+1..t}): concatenated frozen per-token features, zeros before the text starts."""

    def __init__(self, table: torch.Tensor, n: int):
        super().__init__()
        self.n = n
        self.register_buffer("table", table)  # (V, feature_dim), frozen

    @classmethod
    def from_embeddings(cls, embeddings: torch.Tensor, config: PolicyConfig) -> "TokenBagEncoder":
        generator = torch.Generator().manual_seed(config.seed)
        projection = torch.randn(embeddings.shape[1], config.feature_dim, generator=generator)
        table = embeddings.detach().float().cpu() @ projection
        table = (table - table.mean(0)) / (table.std(0) + 1e-6)  # unit-scale features
        return cls(table, config.n)

    @property
    def out_dim(self) -> int:
        return self.n * self.table.shape[1]

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        features = self.table[input_ids]  # (B, T, F)
        parts = [features]
        for back in range(1, self.n):
            shifted = torch.zeros_like(features)
            shifted[:, back:] = features[:, :-back]
            parts.append(shifted)
        return torch.cat(parts, dim=-1)  # (B, T, n*F)


class WatermarkPolicy(nn.Module):
    """M_phi(E(context)) in (-1, 1)^V for the token after every position.

    Output `full` (default, spec §2.1): an unconstrained hidden -> |V| layer (25 M parameters for
    SmolLM2's vocabulary), so the colours of a context's likely tokens are as independent as KGW's.
    Output `embedding` (ablation): M = tanh(table @ u / sqrt(F)) with u = MLP(context) and `table` the
    encoder's frozen token features, a fixed linear image of the model's own embeddings.  The student
    can produce such a pattern exactly by moving its final hidden state, but similar tokens get
    similar scores, and a context's likely continuations are similar: at SmolLM2's step 0, 91 % of
    the top-10 tokens took the top-1's colour, and the teacher's KL was half the full output's.
    """

    def __init__(self, encoder: TokenBagEncoder, vocab_size: int, config: PolicyConfig):
        super().__init__()
        if config.output not in ("embedding", "full"):
            raise ProceedingsError(f"unknown policy output '{config.output}'; choose 'embedding' or 'full'")
        self.config, self.vocab_size = config, vocab_size
        self.encoder = encoder
        width = encoder.table.shape[1] if config.output == "embedding" else vocab_size
        self.mlp = nn.Sequential(nn.Linear(encoder.out_dim, config.hidden), nn.GELU(),
                                 nn.Linear(config.hidden, width))
        generator = torch.Generator().manual_seed(config.seed + 1)
        for layer in self.mlp[::2]:
            nn.init.normal_(layer.weight, std=layer.in_features**-0.5, generator=generator)
            nn.init.zeros_(layer.bias)

    @classmethod
    def for_model(cls, model, config: PolicyConfig) -> "WatermarkPolicy":
        """A fresh policy whose frozen encoder comes from `model`'s input embeddings."""
        embeddings = model.get_input_embeddings().weight
        encoder = TokenBagEncoder.from_embeddings(embeddings, config)
        return cls(encoder, embeddings.shape[0], config)

    def _direction(self, input_ids: torch.Tensor) -> torch.Tensor:
        out = self.mlp(self.encoder(input_ids))
        return out / out.shape[-1] ** 0.5 if self.config.output == "embedding" else out

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T) token ids -> (B, T, V) scores for the next token, in fp32 even under bf16 autocast:
        the watermark is the sign of small scores, and the balance terms average V of them."""
        with torch.autocast(input_ids.device.type, enabled=False):
            out = self._direction(input_ids)
            return torch.tanh(out @ self.encoder.table.T if self.config.output == "embedding" else out)

    def token_scores(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T-1) score M(context_t)[x_{t+1}] of each observed next token (what detection reads)."""
        context, target = input_ids[:, :-1], input_ids[:, 1:]
        if self.config.output == "embedding":
            out = self._direction(context)  # (B, T-1, F)
            return torch.tanh((out * self.encoder.table[target]).sum(-1))
        # only the observed token's row of the |V|-wide last layer: O(hidden) per token, not O(hidden |V|)
        hidden, last = self.mlp[:-1](self.encoder(context)), self.mlp[-1]  # (B, T-1, hidden)
        return torch.tanh((hidden * last.weight[target]).sum(-1) + last.bias[target])


class PolicyLogitsProcessor:
    """Hugging Face logits processor: PRO's teacher at decoding time, delta (1 + M) / 2 added to the
    logits for the current context (the decoding-time counterpart of the distilled watermark)."""

    def __init__(self, policy: WatermarkPolicy, delta: float):
        self.policy, self.delta = policy, delta

    @torch.no_grad()
    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        context = input_ids[:, -self.policy.config.n :]
        bias = self.delta * unit_bias(self.policy(context)[:, -1])  # (B, V)
        return scores + bias[:, : scores.shape[-1]].to(scores.dtype)
