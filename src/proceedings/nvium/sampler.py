"""Exact sampling from the mixture over exits, with the skipped upper layers deferred (spec §2.3).

To emit a token, `DeferredSampler` climbs the layers one at a time. At each exit e it draws u_e and
stops with probability g_e; at the last exit it always stops. Stopping at e happens with probability
g_e prod_{j<e}(1 - g_j) = pi_e, and the token is then drawn from p_e: an exact sample of the mixture.

The layers above the stopping point are not skipped, only deferred. Each layer j keeps a *pending*
chunk: the positions whose layer-(j-1) output exists but which layer j has not processed yet. The next
time a token climbs through layer j, the layer runs once on the whole pending chunk (causally inside
the chunk, attending to its cache for earlier positions), so every position ends up with exactly the
keys and values a full-depth pass gives it. A chunk of 2-3 positions costs little more than one on
hardware that is not saturated by one token, which is where the speed comes from.

`FullDepthSampler` is the reference: every layer for every token, every exit evaluated, then the same
random draws decide the exit and the token. With shared draws both samplers emit the same tokens
(tests/nvium/test_sampler.py); greedy decoding (argmax of the mixture) needs every head, so it exists
only here.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.model import KVCache, NviumForCausalLM
from proceedings.nvium.mixture import log_mixture_weights


class RandomDraws:
    """The uniforms one token consumes, N per token (one per gate, one for the token).

    Both samplers draw the same number per token whatever exit is taken, so with one seed they see
    the same uniforms at every step.
    """

    def __init__(self, n_exits: int, seed: int) -> None:
        self.n_exits = n_exits
        self.generator = torch.Generator().manual_seed(seed)  # on the CPU: the same draws whatever the device

    def uniforms(self) -> torch.Tensor:
        """The next token's N uniforms (float64, on the CPU): one per gate, then the token's."""
        return torch.rand(self.n_exits, generator=self.generator, dtype=torch.float64, device="cpu")

    def next(self) -> tuple[list[float], float]:
        u = self.uniforms().tolist()
        return u[:-1], u[-1]


def halts(gate_logit: torch.Tensor, u: float) -> bool:
    """Stop at this exit when u < g = sigmoid(z)."""
    return u < torch.sigmoid(gate_logit.double()).item()


def sample_tokens(logits: torch.Tensor, temperature: float, u: torch.Tensor) -> torch.Tensor:
    """Inverse-CDF samples of softmax(logits / T), one per row: logits (rows, vocab), u (rows,) -> (rows,)."""
    probs = torch.softmax(logits.double() / temperature, dim=-1)
    cdf = probs.cumsum(-1)
    target = u.to(device=cdf.device, dtype=torch.float64)[:, None] * cdf[:, -1:]
    return torch.searchsorted(cdf, target).squeeze(-1).clamp(max=probs.shape[-1] - 1)


def sample_token(logits: torch.Tensor, temperature: float, u: float) -> int:
    """Inverse-CDF sample of softmax(logits / T) with the uniform u."""
    return int(sample_tokens(logits.reshape(1, -1), temperature, torch.tensor([u], dtype=torch.float64))[0])


@dataclass
class Generation:
    """One generated continuation and how it was computed."""

    tokens: list[int]  # the new tokens
    exits: list[int]  # the exit index e each token was sampled from
    token_seconds: list[float] = field(default_factory=list)  # wall time of each token
    prefill_seconds: float = 0.0
    flush_seconds: float = 0.0  # completing the deferred layers after the last token
    chunk_sizes: Counter = field(default_factory=Counter)  # layer calls by chunk size, flushes included

    def exit_counts(self, n_exits: int) -> list[int]:
        counts = Counter(self.exits)
        return [counts.get(e, 0) for e in range(n_exits)]

    @property
    def decode_seconds(self) -> float:
        """Time to produce the tokens with complete caches: per-token times plus the final flush."""
        return sum(self.token_seconds) + self.flush_seconds


def compiled_layers(model: NviumForCausalLM) -> list:
    """The model's layers under torch.compile (inductor, dynamic shapes): a layer call runs generated code
    instead of dispatching its ~30 operators one by one from Python, the cache write included. Chunk
    sizes and cache lengths are symbolic, so a decode compiles a few graphs, not one per position."""
    return [torch.compile(layer, dynamic=True) for layer in model.layers]


class _CachedDecoder:
    """What both samplers share: one KV cache per layer, prompt prefill, and the timing loop.

    compile=True runs the layers through `compiled_layers` (same weights, same caches, same draws)."""

    def __init__(self, model: NviumForCausalLM, cache_type: type[KVCache] = KVCache, compile: bool = False) -> None:
        self.model, self.cache_type = model.eval(), cache_type
        self.layers = compiled_layers(model) if compile else list(model.layers)
        param = next(model.parameters())
        self.device, self.dtype = param.device, param.dtype
        self.caches: list[KVCache] = []
        self.length = 0  # positions whose embedding exists

    def _reset(self, max_len: int) -> None:
        if max_len > self.model.config.max_seq_len:
            raise ProceedingsError(
                f"prompt + new tokens = {max_len} positions exceeds max_seq_len={self.model.config.max_seq_len}"
            )
        self.caches = [self.cache_type(self.model.config, max_len, self.device, self.dtype) for _ in self.model.layers]
        self.length = 0
        self.chunk_sizes = Counter()

    def _prefill(self, ids: list[int]) -> None:
        """Every layer over the prompt (but its last token, which the first step feeds)."""
        if not ids:
            return
        x = self.model.embed(torch.tensor([ids], device=self.device))
        for layer, cache in zip(self.layers, self.caches):
            x = layer(x, self.model.rotary, cache)
        self.length = len(ids)

    @staticmethod
    def _check_request(prompt: list[int], max_new_tokens: int) -> None:
        if not prompt:
            raise ProceedingsError("the prompt is empty; give at least one token")
        if max_new_tokens < 1:
            raise ProceedingsError(f"the number of new tokens must be >= 1, got {max_new_tokens}")

    def _check_temperature(self, temperature: float) -> None:
        if temperature <= 0:
            raise ProceedingsError(
                f"temperature must be > 0 for sampling (got {temperature}); greedy decoding of a mixture "
                "needs every exit, use FullDepthSampler.greedy (CLI: --greedy)"
            )

    @torch.inference_mode()
    def generate(self, prompt: list[int], max_new_tokens: int, temperature: float = 1.0, seed: int = 0,
                 stop_token: int | None = None) -> Generation:
        """Sample up to `max_new_tokens` tokens after `prompt`; caches are complete on return."""
        self._check_temperature(temperature)
        self._check_request(prompt, max_new_tokens)
        self._reset(len(prompt) + max_new_tokens)
        t0 = time.perf_counter()
        self._prefill(prompt[:-1])
        out = Generation(tokens=[], exits=[], prefill_seconds=time.perf_counter() - t0)
        draws, token = RandomDraws(self.model.config.n_exits, seed), prompt[-1]
        for _ in range(max_new_tokens):
            start = time.perf_counter()
            token, exit_index = self._step(token, draws, temperature)
            out.token_seconds.append(time.perf_counter() - start)
            out.tokens.append(token)
            out.exits.append(exit_index)
            if token == stop_token:
                break
        start = time.perf_counter()
        self.flush()
        out.flush_seconds = time.perf_counter() - start
        out.chunk_sizes = self.chunk_sizes
        return out

    def _run_layer(self, j: int, x: torch.Tensor) -> torch.Tensor:
        self.chunk_sizes[x.shape[1]] += 1
        return self.layers[j](x, self.model.rotary, self.caches[j])

    def flush(self) -> None:
        """Bring every layer's cache up to the last position (a no-op without deferral)."""

    def _step(self, token: int, draws: RandomDraws, temperature: float) -> tuple[int, int]:
        raise NotImplementedError


class DeferredSampler(_CachedDecoder):
    """Exact mixture sampling that computes only the layers below the sampled exit, deferring the rest.

    `max_pending` bounds a chunk: when any layer has more waiting positions, everything is flushed
    (spec §2.3, P_max = 16). On a single-exit model this is plain KV-cached decoding, which makes it
    the matched baseline's engine too.
    """

    def __init__(self, model: NviumForCausalLM, max_pending: int = 16, cache_type: type[KVCache] = KVCache,
                 compile: bool = False) -> None:
        super().__init__(model, cache_type, compile)
        if max_pending < 1:
            raise ProceedingsError(f"max_pending must be >= 1, got {max_pending}")
        self.max_pending = max_pending
        self.last_exit = model.config.n_exits - 1

    def _reset(self, max_len: int) -> None:
        super()._reset(max_len)
        self.pending: list[list[torch.Tensor]] = [[] for _ in self.model.layers]  # inputs layer j owes

    def _take_pending(self, j: int) -> torch.Tensor:
        chunk = self.pending[j][0] if len(self.pending[j]) == 1 else torch.cat(self.pending[j], dim=1)
        self.pending[j] = []
        # the invariant that makes deferral exact: layer j's cache holds every earlier position
        assert self.caches[j].length + chunk.shape[1] == self.length, "a position would attend to a missing key"
        return chunk

    def _step(self, token: int, draws: RandomDraws, temperature: float) -> tuple[int, int]:
        u_gates, u_token = draws.next()
        self.pending[0].append(self.model.embed(torch.tensor([[token]], device=self.device)))
        self.length += 1
        n_layer = len(self.model.layers)
        for j in range(n_layer):
            out = self._run_layer(j, self._take_pending(j))
            if j + 1 < n_layer:
                self.pending[j + 1].append(out)
            e = self.model.exit_of_layer.get(j + 1)
            if e is None:
                continue
            hidden = out[:, -1]  # the newest position, the one that predicts the next token
            if e == self.last_exit or halts(self.model.gate_logit(e, hidden), u_gates[e]):
                next_token = sample_token(self.model.exit_logits(e, hidden), temperature, u_token)
                break
        if max(sum(t.shape[1] for t in chunks) for chunks in self.pending) > self.max_pending:
            self.flush()
        return next_token, e

    def flush(self) -> None:
        """Run every deferred chunk up through the last layer; afterwards all caches are complete."""
        for j in range(len(self.model.layers)):
            if self.pending[j]:
                out = self._run_layer(j, self._take_pending(j))
                if j + 1 < len(self.model.layers):
                    self.pending[j + 1].append(out)


class FullDepthSampler(_CachedDecoder):
    """The reference: all layers for every token, every exit's gate and head, then one draw."""

    def _full_depth(self, token: int) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """log pi (N,) and every exit's logits for the newest position."""
        x = self.model.embed(torch.tensor([[token]], device=self.device))
        self.length += 1
        exit_logits, gate_logits = [], []
        for j in range(len(self.model.layers)):
            x = self._run_layer(j, x)
            e = self.model.exit_of_layer.get(j + 1)
            if e is not None:
                exit_logits.append(self.model.exit_logits(e, x[:, -1]))
                if e < self.model.config.n_exits - 1:
                    gate_logits.append(self.model.gate_logit(e, x[:, -1]))
        gates = torch.stack(gate_logits, dim=-1) if gate_logits else x.new_zeros(1, 0)
        return gates, exit_logits

    def _step(self, token: int, draws: RandomDraws, temperature: float) -> tuple[int, int]:
        u_gates, u_token = draws.next()
        gates, exit_logits = self._full_depth(token)
        chosen = next((e for e, u in enumerate(u_gates) if halts(gates[0, e], u)), len(exit_logits) - 1)
        return sample_token(exit_logits[chosen], temperature, u_token), chosen

    @torch.inference_mode()
    def greedy(self, prompt: list[int], max_new_tokens: int, stop_token: int | None = None) -> list[int]:
        """Argmax of the mixture p(y) = sum_e pi_e p_e(y) at every step."""
        self._check_request(prompt, max_new_tokens)
        self._reset(len(prompt) + max_new_tokens)
        self._prefill(prompt[:-1])
        tokens, token = [], prompt[-1]
        for _ in range(max_new_tokens):
            gates, exit_logits = self._full_depth(token)
            log_weights = log_mixture_weights(gates.float())[0]  # (N,)
            log_probs = torch.stack([logits[0].float().log_softmax(-1) for logits in exit_logits])
            token = int((log_weights[:, None] + log_probs).logsumexp(0).argmax())
            tokens.append(token)
            if token == stop_token:
                break
        return tokens
