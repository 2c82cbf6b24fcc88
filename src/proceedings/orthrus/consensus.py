"""One Orthrus round (spec §2.2) on the shared lossless loop of `core.speculative`.

State: committed tokens x_1..x_n, the AR cache holding positions < n. The diffusion view proposes
d_1..d_{B-1} in one pass over [x_n, MASK x (B-1)] at positions n..n+B-1, reading the AR cache and writing
nothing to it (`DiffusionDrafter`); `core.speculative.speculative_decode` then runs the AR verify pass
over [x_n, d_1..d_{B-1}], applies the consensus (greedy longest prefix + bonus, or speculative sampling
with q = the diffusion view's filtered probabilities, p = the AR view's) and rolls the cache back.
"""

from __future__ import annotations

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import Draft, Verified, target_probs
from proceedings.orthrus.dual_view import DiffusionView, cache_layers
from proceedings.orthrus.training import dual_pass_mask

DRAFT_STREAM = 7_919  # the drafter's generator is seeded seed + this: its draws never mirror the verifier's


def cache_checksum(cache) -> tuple[int, float]:
    """(length, sum of every cached number): what a diffusion pass must leave unchanged."""
    return cache.get_seq_length(), float(sum(k.double().sum() + v.double().sum() for k, v in cache_layers(cache)))


def diffusion_block_logits(base, view: DiffusionView, cache, last_token: int, block_size: int):
    """The diffusion pass: logits (B, V) over [x_n, MASK x (B-1)] at positions n.., n = cached length. The block
    sees the whole cache and itself (no mask), or, for a `first_slot_causal` view, the dual-pass mask of one
    anchor at n with slot 0 kept from the masks after it."""
    n = cache.get_seq_length()
    device = view.mask_embedding.device
    embeddings = view.block_embeddings(base, torch.tensor([last_token], device=device), block_size)
    positions = torch.arange(n, n + block_size, device=device)
    mask = (dual_pass_mask(torch.tensor([n], device=device), block_size, n, first_slot_causal=True)
            if view.first_slot_causal else None)
    return view(base, embeddings, positions, cache_layers(cache), mask, block_size)


class DiffusionDrafter:
    """`core.speculative.Drafter` from the diffusion view: all B - 1 drafts from one pass."""

    needs_hidden_states = False

    def __init__(self, base, view: DiffusionView, block_size: int | None = None, temperature: float = 0.0,
                 top_k: int | None = None, top_p: float | None = None, seed: int = 0, check_cache: bool = False,
                 name: str | None = None):
        from proceedings.orthrus.dual_view import check_block_size

        self.base, self.view = base, view.eval()
        self.block_size = check_block_size(block_size or view.block_size)
        self.temperature, self.top_k, self.top_p, self.seed = temperature, top_k, top_p, seed
        self.check_cache = check_cache  # debug mode: assert the pass leaves the cache as it found it
        self.name = name or f"orthrus-b{self.block_size}"
        self.reset()

    @property
    def drafts_per_round(self) -> int:
        return self.block_size - 1

    def reset(self) -> None:
        self.generator = torch.Generator().manual_seed(self.seed + DRAFT_STREAM)
        self.extra_cache_bytes = 0  # peak over the rounds of this decode

    def propose(self, verified: Verified, k: int) -> Draft:
        if verified.cache is None:
            raise ProceedingsError("the diffusion view drafts from the AR cache; the decoding loop passed none")
        before = cache_checksum(verified.cache) if self.check_cache else None
        with torch.inference_mode():
            out = diffusion_block_logits(self.base, self.view, verified.cache, verified.next_tokens[-1], self.block_size)
        logits = out.logits[:min(k, self.drafts_per_round)].float().cpu()  # slot i drafts d_{i+1}
        self.extra_cache_bytes = max(self.extra_cache_bytes, out.extra_cache_bytes)
        if before is not None and cache_checksum(verified.cache) != before:
            raise ProceedingsError(f"the diffusion pass changed the AR cache ({before} -> {cache_checksum(verified.cache)})")
        if self.temperature == 0:
            return Draft(logits.argmax(-1).tolist())
        q = target_probs(logits, self.temperature, self.top_k, self.top_p)  # the same filter as the AR view
        return Draft(torch.multinomial(q, 1, generator=self.generator)[:, 0].tolist(), q)
