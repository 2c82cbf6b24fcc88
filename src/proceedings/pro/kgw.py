"""KGW: the decoding-time watermark of Kirchenbauer et al. (2023) and its z-test.

A secret key and the previous k tokens seed a pseudo-random split of the vocabulary into a green
list (fraction gamma) and a red list; decoding adds delta to green logits, and the detector counts
green tokens: z = (|s|_G - gamma T) / sqrt(T gamma (1 - gamma)).  It is the closed-source reference
of the paper and the teacher of the KGW-distillation baseline (Gu et al., ICLR 2024).

The green list is a keyed hash of (context, token) rather than the reference code's `randperm`
seeded per context: the same pseudo-random function, but vectorised over a whole batch of positions
and the vocabulary at once (a training step needs B*T green lists).
"""

from __future__ import annotations

import torch

from proceedings.pro.config import KGWConfig

_MASK32 = 0xFFFFFFFF
# Odd multipliers below 2**31, so 32-bit x multiplier never leaves int64 (no signed overflow).
_MIX = (0x2C1B3C6D, 0x297A2D39, 0x5851F42D)


def _mix32(x: torch.Tensor) -> torch.Tensor:
    """A 32-bit integer finaliser (xorshift-multiply rounds, as in murmur3) on int64 tensors."""
    x = x & _MASK32
    for multiplier in _MIX:
        x = x ^ (x >> 15)
        x = (x * multiplier) & _MASK32
    return x ^ (x >> 16)


def context_hash(input_ids: torch.Tensor, k: int, hash_key: int) -> torch.Tensor:
    """(B, T) hash of the k tokens ending at each position; positions with < k tokens get -1."""
    ids = input_ids.long()
    seed = torch.full_like(ids, hash_key & _MASK32)
    for back in range(k):
        shifted = torch.roll(ids, shifts=back, dims=1)
        seed = _mix32(seed ^ (shifted & _MASK32))
    seed[:, : max(k - 1, 0)] = -1
    return seed


def green_mask(context: torch.Tensor, vocab_size: int, gamma: float) -> torch.Tensor:
    """(…, V) bool: is token v green after a context with hash `context` (…)."""
    vocab = torch.arange(vocab_size, device=context.device)
    mixed = _mix32(context.unsqueeze(-1) * 0x9E3779B ^ vocab)  # (…, V)
    return mixed < int(gamma * 2**32)


class KGWWatermark:
    """Green lists, the decoding-time bias and the z-test for one KGW key."""

    def __init__(self, config: KGWConfig, vocab_size: int):
        self.config, self.vocab_size = config, vocab_size

    def green(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T, V) green lists for the token *after* each position.

        Hashed once per distinct context (text repeats contexts: with k = 1 a 4 x 64 batch has about
        half as many contexts as positions), which halves the baseline's step cost at SmolLM2's V.
        """
        contexts, where = torch.unique(context_hash(input_ids, self.config.k, self.config.hash_key),
                                       return_inverse=True)
        return green_mask(contexts, self.vocab_size, self.config.gamma)[where]

    def bias(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T, V) logit bias delta * green: what the watermarked teacher adds."""
        return self.green(input_ids).float() * self.config.delta

    def is_green(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T-1) bool: was token t+1 green given the context ending at t."""
        contexts = context_hash(input_ids, self.config.k, self.config.hash_key)[:, :-1]
        vocab = input_ids[:, 1:].long()
        return _mix32(contexts * 0x9E3779B ^ vocab) < int(self.config.gamma * 2**32)


class KGWLogitsProcessor:
    """Hugging Face logits processor: adds delta to the green list of the current context."""

    def __init__(self, watermark: KGWWatermark):
        self.watermark = watermark

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        k = self.watermark.config.k
        context = context_hash(input_ids[:, -k:], k, self.watermark.config.hash_key)[:, -1]  # (B,)
        green = green_mask(context, scores.shape[-1], self.watermark.config.gamma)
        return scores + self.watermark.config.delta * green.to(scores.dtype)
