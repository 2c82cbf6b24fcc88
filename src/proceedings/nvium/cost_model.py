"""Predicting the deferral speed-up from measured chunk costs (spec §2.3, §5.1).

A token that stops at exit e costs the layer calls below l_e, each run on its pending chunk, plus the
gates it passes and one head:  T(token) = sum_{j <= l_e} T_layer(n_j) + (#gates) T_gate + T_head + T_embed.
`measure_costs` times those pieces on the model itself; `simulate_chunks` replays the per-layer
frontier bookkeeping of `DeferredSampler` on a sequence of exits (counts only, no tensors), so the
prediction needs nothing but the exit sequence. The ideal speed-up 1 / mean depth assumes
T_layer(n) = T_layer(1); the prediction prices the chunks at what they really cost here.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

import torch

from proceedings.nvium.model import KVCache, NviumForCausalLM
from proceedings.nvium.sampler import halts, sample_token


@dataclass
class ChunkCosts:
    """Seconds per call, measured on one model in one process."""

    layer_s: dict[int, float]  # chunk size n -> one layer on n positions
    gate_s: float  # one halting decision
    head_s: float  # one exit head plus drawing the token
    embed_s: float
    bulk_s: float  # one layer per position on a chunk of BULK positions: its arithmetic, overhead amortised

    @property
    def overhead_share(self) -> float:
        """Share of a one-position layer call that is not arithmetic: 1 - T_layer(BULK)/BULK / T_layer(1)."""
        return max(0.0, 1 - self.bulk_s / self.layer_s[1])

    def layer(self, n: int) -> float:
        """T_layer(n); beyond the measured sizes, extrapolated linearly from the two largest."""
        if n in self.layer_s:
            return self.layer_s[n]
        sizes = sorted(self.layer_s)
        a, b = sizes[-2], sizes[-1]
        slope = (self.layer_s[b] - self.layer_s[a]) / (b - a)
        return self.layer_s[b] + slope * (n - b)


def _time(fn, repeats: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats


BULK = 64  # positions per call at which a layer's fixed per-call overhead is amortised


@torch.inference_mode()
def measure_costs(model: NviumForCausalLM, max_chunk: int = 8, context: int = 128, repeats: int = 20,
                  layers: list | None = None) -> ChunkCosts:
    """T_layer(n) for n = 1..max_chunk (and BULK) after `context` cached positions, and the per-token extras.

    A layer is timed the way decoding meets it: one sweep through every layer (each with its own weights
    and cache), divided by the number of layers, so weights are not unrealistically hot in cache.
    `layers` (default: the model's) may be the same layers compiled (sampler.compiled_layers).
    """
    model.eval()
    layers = list(model.layers) if layers is None else layers
    param = next(model.parameters())
    caches = [KVCache(model.config, context + max(max_chunk, BULK), param.device, param.dtype) for _ in layers]
    d = model.config.d_model
    layer_s = {}
    for n in [*range(1, max_chunk + 1), BULK]:
        x = torch.randn(1, n, d, device=param.device, dtype=param.dtype)

        def sweep() -> None:
            for layer, cache in zip(layers, caches):
                cache.length = context
                layer(x, model.rotary, cache)

        layer_s[n] = _time(sweep, repeats) / len(layers)
    hidden = torch.randn(1, d, device=param.device, dtype=param.dtype)
    token = torch.tensor([[0]], device=param.device)
    gate_s = _time(lambda: halts(model.gate_logit(0, hidden), 0.5), 10 * repeats) if model.gates else 0.0
    head_s = _time(lambda: sample_token(model.exit_logits(0, hidden), 1.0, 0.5), 10 * repeats)
    embed_s = _time(lambda: model.embed(token), 10 * repeats)
    bulk_s = layer_s.pop(BULK) / BULK if BULK > max_chunk else layer_s[BULK] / BULK
    return ChunkCosts(layer_s, gate_s, head_s, embed_s, bulk_s)


def simulate_chunks(exits_taken: list[int], exits: tuple[int, ...], n_layer: int, max_pending: int) -> Counter:
    """Layer calls by chunk size that DeferredSampler makes for this exit sequence (final flush included)."""
    pending, calls = [0] * n_layer, Counter()

    def run(j: int) -> None:
        calls[pending[j]] += 1
        if j + 1 < n_layer:
            pending[j + 1] += pending[j]
        pending[j] = 0

    for e in exits_taken:
        pending[0] += 1
        for j in range(exits[e]):
            run(j)
        if max(pending) > max_pending:
            for j in range(n_layer):
                if pending[j]:
                    run(j)
    for j in range(n_layer):
        if pending[j]:
            run(j)
    return calls


def predict_seconds(exits_taken: list[int], exits: tuple[int, ...], n_layer: int, max_pending: int,
                    costs: ChunkCosts) -> float:
    """Predicted decode time of the sequence: chunked layer calls + gates passed + heads + embeddings."""
    calls = simulate_chunks(exits_taken, exits, n_layer, max_pending)
    layers = sum(count * costs.layer(n) for n, count in calls.items())
    last = len(exits) - 1
    gates = sum(min(e + 1, last) for e in exits_taken)  # a token passing exit e decided at e+1 gates
    return layers + gates * costs.gate_s + len(exits_taken) * (costs.head_s + costs.embed_s)
