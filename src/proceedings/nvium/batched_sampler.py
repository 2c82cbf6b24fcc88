"""Exact deferred sampling for a batch of sequences at once (spec §2.3 batched; §9 left it open).

Every sequence draws its own exits, so after a few tokens the sequences of a batch owe their upper
layers chunks of different lengths. Per layer j the sampler keeps, for every sequence, the positions
layer j still owes (`pending[j]`, a padded buffer, and `owed[j]`, how many are real). A layer call
serves exactly the sequences whose newest token climbs through that layer, each with its whole
pending chunk padded to the longest; `RaggedKVCache` gives every sequence its own positions and
causal mask, so padding is never attended to. Sequence b drawing with seed s_b makes exactly the
decisions `DeferredSampler` makes with seed s_b, and emits the same tokens (tests/nvium/test_batched_sampler.py).
On a single-exit model this is plain batched KV-cached decoding: the matched baseline's engine.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.model import NviumForCausalLM, RaggedKVCache
from proceedings.nvium.sampler import RandomDraws, sample_tokens


@dataclass
class BatchGeneration:
    """One continuation per sequence, and how long the batch took."""

    tokens: list[list[int]]  # per sequence, the new tokens
    exits: list[list[int]]  # per sequence, the exit each token was sampled from
    step_seconds: list[float] = field(default_factory=list)  # wall time of each step (one token per sequence)
    flush_seconds: float = 0.0
    chunk_sizes: Counter = field(default_factory=Counter)  # layer calls by padded chunk length

    @property
    def decode_seconds(self) -> float:
        return sum(self.step_seconds) + self.flush_seconds


class BatchedDeferredSampler:
    """`DeferredSampler` for B sequences that share one set of layer calls per step."""

    def __init__(self, model: NviumForCausalLM, max_pending: int = 16) -> None:
        if max_pending < 1:
            raise ProceedingsError(f"max_pending must be >= 1, got {max_pending}")
        self.model, self.max_pending = model.eval(), max_pending
        param = next(model.parameters())
        self.device, self.dtype = param.device, param.dtype
        self.last_exit = model.config.n_exits - 1

    def _reset(self, batch: int, max_len: int) -> None:
        config = self.model.config
        if max_len > config.max_seq_len:
            raise ProceedingsError(f"prompt + new tokens = {max_len} positions exceeds max_seq_len={config.max_seq_len}")
        # a layer's chunk can collect what every layer below it owed: bounded by the flush rule
        room = min(max_len, config.n_layer * (self.max_pending + 1)) + 1
        self.caches = [RaggedKVCache(config, batch, max_len, self.device, self.dtype, slack=room)
                       for _ in self.model.layers]
        self.pending = [torch.zeros(batch, room, config.d_model, device=self.device, dtype=self.dtype)
                        for _ in self.model.layers]
        self.owed = [torch.zeros(batch, dtype=torch.long) for _ in self.model.layers]
        self.length = 0  # positions whose embedding exists (the same for every sequence)
        self.chunk_sizes = Counter()

    def _run_layer(self, j: int, rows: torch.Tensor) -> torch.Tensor:
        """Layer j on the pending chunks of `rows`; returns each row's newest output (rows, d)."""
        counts = self.owed[j][rows]
        cache = self.caches[j]
        # the invariant that makes deferral exact: layer j's cache holds every earlier position
        assert bool((cache.lengths[rows] + counts == self.length).all()), "a position would attend to a missing key"
        width = int(counts.max())
        cache.select(rows, counts)
        out = self.model.layers[j](self.pending[j][rows, :width], self.model.rotary, cache)  # (rows, width, d)
        self.chunk_sizes[width] += 1
        self.owed[j][rows] = 0
        if j + 1 < len(self.model.layers):
            real = torch.arange(width)[None] < counts[:, None]
            r, i = real.nonzero(as_tuple=True)
            self.pending[j + 1][rows[r], self.owed[j + 1][rows[r]] + i] = out[r, i]
            self.owed[j + 1][rows] += counts
        return out[torch.arange(len(rows)), counts - 1]

    def _prefill(self, prompts: torch.Tensor) -> None:
        """Every layer over the prompts (but their last token, which the first step feeds)."""
        if prompts.shape[1] == 0:
            return
        x = self.model.embed(prompts.to(self.device))
        everyone = torch.arange(prompts.shape[0])
        for layer, cache in zip(self.model.layers, self.caches):
            cache.select(everyone, torch.full_like(everyone, prompts.shape[1]))
            x = layer(x, self.model.rotary, cache)
        self.length = prompts.shape[1]

    def _step(self, tokens: torch.Tensor, u: torch.Tensor, temperature: float) -> tuple[torch.Tensor, torch.Tensor]:
        """One token for every sequence; u (B, N) holds each sequence's gate uniforms, then its token's."""
        batch = len(tokens)
        everyone = torch.arange(batch)
        self.pending[0][everyone, self.owed[0]] = self.model.embed(tokens.to(self.device))
        self.owed[0] += 1
        self.length += 1
        next_tokens, exits = torch.empty(batch, dtype=torch.long), torch.empty(batch, dtype=torch.long)
        climbing = everyone
        for j in range(len(self.model.layers)):
            hidden = self._run_layer(j, climbing)
            e = self.model.exit_of_layer.get(j + 1)
            if e is None:
                continue
            if e == self.last_exit:
                stop = torch.ones(len(climbing), dtype=torch.bool)
            else:  # stop at e when u < g_e, as `halts` decides for one sequence
                stop = u[climbing, e] < torch.sigmoid(self.model.gate_logit(e, hidden).double()).cpu()
            stopped = climbing[stop]
            if len(stopped):
                logits = self.model.exit_logits(e, hidden[stop.to(hidden.device)])
                next_tokens[stopped] = sample_tokens(logits, temperature, u[stopped, -1]).cpu()
                exits[stopped] = e
            climbing = climbing[~stop]
            if not len(climbing):
                break
        over = torch.stack(self.owed).max(0).values > self.max_pending
        if over.any():
            self.flush(over.nonzero().flatten())
        return next_tokens, exits

    def flush(self, rows: torch.Tensor | None = None) -> None:
        """Complete every deferred layer for `rows` (default: all); their caches are then full depth."""
        rows = torch.arange(len(self.owed[0])) if rows is None else rows
        for j in range(len(self.model.layers)):
            waiting = rows[self.owed[j][rows] > 0]
            if len(waiting):
                self._run_layer(j, waiting)

    @torch.inference_mode()
    def generate(self, prompts: list[list[int]], max_new_tokens: int, temperature: float = 1.0,
                 seeds: list[int] | None = None) -> BatchGeneration:
        """`max_new_tokens` tokens after each prompt (all of one length); sequence b draws with seeds[b]."""
        if temperature <= 0:
            raise ProceedingsError(f"temperature must be > 0 for sampling (got {temperature})")
        if not prompts or not prompts[0] or len({len(p) for p in prompts}) != 1 or max_new_tokens < 1:
            raise ProceedingsError("batched decoding needs non-empty prompts of one length and >= 1 new token")
        seeds = list(range(len(prompts))) if seeds is None else seeds
        if len(seeds) != len(prompts):
            raise ProceedingsError(f"{len(prompts)} prompts but {len(seeds)} seeds; give one seed per prompt")
        ids = torch.tensor(prompts)
        self._reset(len(prompts), ids.shape[1] + max_new_tokens)
        self._prefill(ids[:, :-1])
        draws = [RandomDraws(self.model.config.n_exits, seed) for seed in seeds]
        out = BatchGeneration(tokens=[[] for _ in prompts], exits=[[] for _ in prompts])
        tokens = ids[:, -1]
        for _ in range(max_new_tokens):
            start = time.perf_counter()
            u = torch.stack([d.uniforms() for d in draws])
            tokens, exits = self._step(tokens, u, temperature)
            out.step_seconds.append(time.perf_counter() - start)
            for b, (token, e) in enumerate(zip(tokens.tolist(), exits.tolist())):
                out.tokens[b].append(token)
                out.exits[b].append(e)
        start = time.perf_counter()
        self.flush()
        out.flush_seconds = time.perf_counter() - start
        out.chunk_sizes = self.chunk_sizes
        return out
