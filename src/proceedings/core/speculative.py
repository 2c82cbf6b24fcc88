"""Lossless speculative decoding: draft k tokens, verify them in one target forward, keep what the target
would have produced itself (shared by P-EAGLE and Orthrus; spec peagle §2.1).

Per round, with the committed tokens x_1..x_n and the target's KV cache covering x_1..x_{n-1}:
1. the drafter proposes d_1..d_k;
2. the target runs one forward over [x_n, d_1..d_k] (k + 1 positions) on its cache;
3. greedy: the longest prefix with d_i == argmax p(.|x_<=n, d_<i) is accepted and the target's own
   prediction at the first mismatch (or after d_k) is the *bonus* token (`greedy_accept`); sampling:
   d_i is accepted with probability min(1, p(d_i)/q(d_i)), a rejection draws from
   normalize(max(0, p - q)), and when all are accepted the bonus is drawn from p (`rejection_accept`;
   Leviathan et al. 2023, Chen et al. 2023): the output distribution is exactly the target's;
4. the cache is rolled back to the accepted length (`rollback`). The acceptance length tau is
   accepted drafts + 1 (the bonus), averaged over rounds (EAGLE's definition).

A drafter is any object with `propose(verified, k) -> Draft` and `reset()`; `verified` hands it the
target's hidden states at the positions committed since its last call and the tokens that follow
them, which is all an EAGLE-style drafter needs (one that ignores them, like prompt lookup, works too),
and the target's KV cache, read-only, for a drafter that attends to it (Orthrus's diffusion view).
`autoregressive_decode` is the reference: one target forward per token, same sampler.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

from proceedings.core.bench import DecodeTrace, FunctionDecoder, decoder
from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    import torch


@dataclass
class Verified:
    """What the target committed since the drafter's last call: its hidden states at those positions
    (every layer, as `output_hidden_states` gives them; empty when the drafter does not ask for them)
    and, per position, the token that follows it (the last one is the newest, not yet verified token)."""

    hidden_states: tuple  # of (1, m, H) tensors, index 0 = embeddings, i = after layer i
    next_tokens: list[int]
    start: int  # position of the first of the m positions in the sequence
    cache: object = None  # the target's KV cache (every committed position but the newest); never to be written


@dataclass
class Draft:
    """d_1..d_k as target token ids, and for sampling the drafter's distributions q_i over the target
    vocabulary ((k, V); None for a deterministic drafter, which has q = one-hot)."""

    tokens: list[int]
    probs: "torch.Tensor | None" = None


class Drafter(Protocol):
    name: str
    needs_hidden_states: bool  # the target returns every layer's hidden states when True

    def reset(self) -> None: ...

    def propose(self, verified: Verified, k: int) -> Draft: ...


@dataclass
class SpeculativeStats:
    rounds: int = 0
    accepted: list[int] = field(default_factory=list)  # accepted drafts per round (bonus not counted)
    drafted: list[int] = field(default_factory=list)  # drafts proposed per round
    draft_s: float = 0.0  # wall seconds in the drafter
    verify_s: float = 0.0  # wall seconds in the target's verification forwards (prefill not counted)
    draft_cpu_s: float = 0.0  # the same two spans in process CPU seconds (load-robust on a shared host)
    verify_cpu_s: float = 0.0

    @property
    def tau(self) -> float:
        """Mean acceptance length: accepted drafts + 1 per round."""
        return sum(a + 1 for a in self.accepted) / max(self.rounds, 1)

    def as_extras(self) -> dict:
        return {"rounds": self.rounds, "accepted": self.accepted, "drafted": self.drafted,
                "draft_s": self.draft_s, "verify_s": self.verify_s, "draft_cpu_s": self.draft_cpu_s,
                "verify_cpu_s": self.verify_cpu_s, "tau": self.tau}


def greedy_accept(drafts: Sequence[int], target_argmax: Sequence[int]) -> tuple[int, int]:
    """(accepted drafts, bonus): the longest prefix of `drafts` equal to the target's argmaxes, and the
    target's token at the first mismatch (or after the last draft). `target_argmax` has len(drafts) + 1."""
    if len(target_argmax) != len(drafts) + 1:
        raise ProceedingsError(f"verification needs {len(drafts) + 1} target predictions for {len(drafts)} "
                               f"drafts, got {len(target_argmax)}")
    accepted = 0
    while accepted < len(drafts) and drafts[accepted] == target_argmax[accepted]:
        accepted += 1
    return accepted, int(target_argmax[accepted])


def rejection_accept(drafts: Sequence[int], q: "torch.Tensor", p: "torch.Tensor",
                     generator: "torch.Generator | None" = None) -> tuple[int, int]:
    """(accepted drafts, next token) by speculative rejection sampling: q (k, V) the drafter's
    distributions the drafts were sampled from, p (k + 1, V) the target's. The emitted tokens are
    distributed exactly as k + 1 draws from the target (Leviathan et al. 2023, Theorem 1)."""
    import torch

    if q.shape[0] != len(drafts) or p.shape[0] != len(drafts) + 1 or q.shape[1] != p.shape[1]:
        raise ProceedingsError(f"rejection sampling needs q of shape ({len(drafts)}, V) and p of shape "
                               f"({len(drafts) + 1}, V), got {tuple(q.shape)} and {tuple(p.shape)}")
    for i, d in enumerate(drafts):
        u = torch.rand((), generator=generator).item()
        if q[i, d] > 0 and u * q[i, d].item() < p[i, d].item():  # u < p/q without dividing by zero
            continue
        residual = (p[i] - q[i]).clamp_min(0)
        total = residual.sum()
        residual = residual / total if total > 0 else p[i]  # p == q: a rejection has probability 0
        return i, int(torch.multinomial(residual, 1, generator=generator))
    return len(drafts), int(torch.multinomial(p[len(drafts)], 1, generator=generator))


def draft_probs_in_target_vocab(probs: "torch.Tensor", draft_to_target: "torch.Tensor", vocab_size: int) -> "torch.Tensor":
    """A drafter's distributions over its reduced vocabulary (k, V_d), placed at the target ids
    `draft_to_target` (V_d,) of a (k, vocab_size) tensor; tokens outside the draft vocabulary get q = 0."""
    import torch

    full = torch.zeros(probs.shape[0], vocab_size, dtype=probs.dtype, device=probs.device)
    return full.index_copy_(1, draft_to_target.to(probs.device), probs)


def target_probs(logits: "torch.Tensor", temperature: float, top_k: int | None = None,
                 top_p: float | None = None) -> "torch.Tensor":
    """Softmax of logits / temperature over the top_k largest (all when None), then over the smallest set
    of most likely tokens whose mass reaches top_p (nucleus; all when None): the sampling distribution
    every decoder here shares, so a speculative arm and its reference sample from the same p."""
    import torch

    logits = logits.float() / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    if top_p is not None and top_p < 1:
        sorted_probs, order = probs.sort(dim=-1, descending=True)
        outside = sorted_probs.cumsum(-1) - sorted_probs >= top_p  # the mass before a token already reaches top_p
        probs = probs.scatter(-1, order, sorted_probs.masked_fill(outside, 0.0))
        probs = probs / probs.sum(-1, keepdim=True)
    return probs


def rollback(cache, drop: int) -> None:
    """Remove the last `drop` positions from a Hugging Face KV cache (transformers 5: `crop` takes a
    negative count; the old positive crop-to-length form is refused)."""
    if drop < 0:
        raise ProceedingsError(f"cannot roll a KV cache back by {drop} positions")
    if drop:
        cache.crop(-drop)


def _choose(logits: "torch.Tensor", temperature: float, top_k: int | None, generator, top_p: float | None = None) -> int:
    import torch

    if temperature == 0:
        return int(logits.argmax())
    return int(torch.multinomial(target_probs(logits, temperature, top_k, top_p), 1, generator=generator))


def _check_request(target, prompt_ids: Sequence[int], max_new_tokens: int, k: int = 1, temperature: float = 0.0,
                   top_p: float | None = None) -> None:
    context = getattr(target.config, "max_position_embeddings", None)
    if not prompt_ids:
        raise ProceedingsError("cannot decode from an empty prompt")
    if max_new_tokens < 1:
        raise ProceedingsError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
    if k < 1:
        raise ProceedingsError(f"the number of drafts per round must be at least 1, got {k}")
    if temperature < 0:
        raise ProceedingsError(f"temperature must be >= 0, got {temperature}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ProceedingsError(f"top_p must lie in (0, 1], got {top_p}")
    if context is not None and len(prompt_ids) + max_new_tokens + k > context:
        raise ProceedingsError(f"prompt ({len(prompt_ids)} tokens) + {max_new_tokens} new tokens + {k} drafts exceed "
                               f"the target's context of {context}")


def _truncate_at_eos(tokens: list[int], eos_token_id: int | None) -> list[int]:
    if eos_token_id is not None and eos_token_id in tokens:
        return tokens[:tokens.index(eos_token_id) + 1]
    return tokens


def autoregressive_decode(target, prompt_ids: Sequence[int], max_new_tokens: int, temperature: float = 0.0,
                          top_k: int | None = None, eos_token_id: int | None = None, seed: int = 0,
                          top_p: float | None = None) -> DecodeTrace:
    """The reference: one target forward per token on a KV cache, greedy or sampled with `target_probs`."""
    import torch
    from transformers import DynamicCache

    _check_request(target, prompt_ids, max_new_tokens, temperature=temperature, top_p=top_p)
    generator = torch.Generator().manual_seed(seed)
    device = next(target.parameters()).device
    cache, tokens, step_s = DynamicCache(), [], []
    start = time.perf_counter()
    with torch.inference_mode():
        inputs = torch.tensor([list(prompt_ids)], device=device)
        while len(tokens) < max_new_tokens:
            t0 = time.perf_counter()
            logits = target(input_ids=inputs, cache=cache, use_cache=True).logits[0, -1]
            tokens.append(_choose(logits.cpu(), temperature, top_k, generator, top_p))
            step_s.append(time.perf_counter() - t0)
            if tokens[-1] == eos_token_id:
                break
            inputs = torch.tensor([[tokens[-1]]], device=device)
    return DecodeTrace(tokens, step_s, time.perf_counter() - start)


def speculative_decode(target, drafter: Drafter, prompt_ids: Sequence[int], max_new_tokens: int, k: int,
                       temperature: float = 0.0, top_k: int | None = None, eos_token_id: int | None = None,
                       seed: int = 0, top_p: float | None = None) -> DecodeTrace:
    """Draft k tokens, verify them in one target forward, keep the target's own choice (see the module
    docstring). Greedy (temperature 0) emits exactly `autoregressive_decode`'s tokens; sampling emits the
    same distribution. The trace's extras hold the round statistics (`SpeculativeStats`)."""
    import torch
    from transformers import DynamicCache

    _check_request(target, prompt_ids, max_new_tokens, k, temperature, top_p)
    generator = torch.Generator().manual_seed(seed)
    device = next(target.parameters()).device
    hidden = drafter.needs_hidden_states
    stats, cache, step_s = SpeculativeStats(), DynamicCache(), []
    drafter.reset()
    start = time.perf_counter()
    with torch.inference_mode():
        t0 = time.perf_counter()
        out = target(input_ids=torch.tensor([list(prompt_ids)], device=device), cache=cache,
                     use_cache=True, output_hidden_states=hidden)
        tokens = [_choose(out.logits[0, -1].cpu(), temperature, top_k, generator, top_p)]
        step_s.append(time.perf_counter() - t0)
        verified = Verified(out.hidden_states if hidden else (), list(prompt_ids[1:]) + tokens, 0, cache)
        while len(tokens) < max_new_tokens and tokens[-1] != eos_token_id:
            t0, c0 = time.perf_counter(), time.process_time()
            budget = min(k, max_new_tokens - len(tokens) - 1)  # never draft past the token budget
            draft = drafter.propose(verified, budget) if budget else Draft([])
            t1, c1 = time.perf_counter(), time.process_time()
            n = cache.get_seq_length()
            out = target(input_ids=torch.tensor([[tokens[-1], *draft.tokens]], device=device), cache=cache,
                         use_cache=True, output_hidden_states=hidden)
            logits = out.logits[0].float().cpu()
            if temperature == 0:
                accepted, bonus = greedy_accept(draft.tokens, logits.argmax(-1).tolist())
            else:
                q = draft.probs if draft.probs is not None else \
                    torch.nn.functional.one_hot(torch.tensor(draft.tokens, dtype=torch.long), logits.shape[-1]).float()
                accepted, bonus = rejection_accept(draft.tokens, q.float().cpu(),
                                                   target_probs(logits, temperature, top_k, top_p), generator)
            rollback(cache, len(draft.tokens) - accepted)
            t2, c2 = time.perf_counter(), time.process_time()
            new = _truncate_at_eos([*draft.tokens[:accepted], bonus], eos_token_id)
            tokens += new
            stats.rounds += 1
            stats.accepted.append(accepted)
            stats.drafted.append(len(draft.tokens))
            stats.draft_s += t1 - t0
            stats.verify_s += t2 - t1
            stats.draft_cpu_s += c1 - c0
            stats.verify_cpu_s += c2 - c1
            step_s += [(t2 - t0) / len(new)] * len(new)
            verified = Verified(tuple(h[:, :accepted + 1] for h in out.hidden_states) if hidden else (),
                                [*draft.tokens[:accepted], bonus], n, cache)
    return DecodeTrace(tokens, step_s, time.perf_counter() - start, extras=stats.as_extras())


def greedy_decoder(target, eos_token_id: int | None, name: str = "ar") -> FunctionDecoder:
    """Plain greedy decoding of `target` as a benchmark arm: the reference of a lossless comparison."""
    return decoder(name, lambda prompt, n, seed: autoregressive_decode(target, prompt, n, eos_token_id=eos_token_id))


def speculative_decoder(name: str, target, drafter: Drafter, k: int, eos_token_id: int | None) -> FunctionDecoder:
    """Greedy speculative decoding of `target` with `drafter`, k drafts per round, as a benchmark arm."""
    return decoder(name, lambda prompt, n, seed: speculative_decode(target, drafter, prompt, n, k,
                                                                   eos_token_id=eos_token_id))


def tau_cell(arm) -> str:
    """A benchmark table cell (`BenchmarkReport.markdown`): an arm's tau over the rounds of its first repeat
    (accepted drafts + 1 per round), '-' when it does not draft."""
    accepted = [a for trace in arm.traces if "accepted" in trace.extras for a in trace.extras["accepted"]]
    return f"{sum(a + 1 for a in accepted) / len(accepted):.2f}" if accepted else "-"
