"""Data for training and measuring the diffusion view.

tiny: a 4-layer Llama trained on a mixed grammar (`core.pattern_lm`): half the sequences repeat a short
motif (P-EAGLE's pattern grammar, periodic by construction), half count upwards in steps of 1 or 2 modulo
the 61 ordinary ids, which does not repeat a 4-gram within 61 tokens. The counting half matters: the
verdict measures tau only on prompts whose greedy AR output does not loop (4-gram repeat <= 0.5), and a
periodic text would flatter any drafter. Training sequences are prompts with the target's own greedy
continuations (self-distillation), exactly the labels consensus decoding checks drafts against.
small and beyond: ShareGPT first turns with the base's own greedy responses (`core.selfdistill`, the file
P-EAGLE caches; built if absent).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from proceedings.core.pattern_lm import FIRST_ID, TinyTargetConfig, pattern_sequences

LOOP_NGRAM, LOOP_LIMIT = 4, 0.5  # issue 20: prompts whose AR output repeats more 4-grams than this loop


def counting_sequences(count: int, length: int, vocab: int, generator: torch.Generator) -> torch.Tensor:
    """(count, length): x_{t+1} = x_t + d over the ids FIRST_ID..vocab-1 (cyclic), d in {1, 2} per row."""
    span = vocab - FIRST_ID
    starts = torch.randint(0, span, (count, 1), generator=generator)
    steps = torch.randint(1, 3, (count, 1), generator=generator)
    return FIRST_ID + (starts + steps * torch.arange(length)[None]) % span


def mixed_sequences(count: int, length: int, vocab: int, generator: torch.Generator, noise: float = 0.05) -> torch.Tensor:
    """Half motif repeats (with `noise` flips), half counting, rows interleaved."""
    motifs = pattern_sequences(count - count // 2, length, vocab, generator, noise)
    counts = counting_sequences(count // 2, length, vocab, generator)
    rows = torch.cat([motifs, counts])
    order = torch.randperm(count, generator=generator)
    return rows[order]


def mixed_prompts(count: int, length: int, vocab: int, seed: int) -> list[list[int]]:
    """Noise-free prompts of the mixed grammar from their own seed (training and held-out sets differ)."""
    return mixed_sequences(count, length, vocab, torch.Generator().manual_seed(seed), noise=0.0).tolist()


TINY_TARGET = TinyTargetConfig(train_steps=600)


def tiny_base(seed: int = 0):
    """The tiny frozen base of the tests and the tiny preset (trained once, cached; `make setup` builds it)."""
    from proceedings.core.pattern_lm import tiny_target

    return tiny_target(TINY_TARGET, seed, grammar=mixed_sequences)


def warm_up() -> str:
    tiny_base()
    return "orthrus: tiny mixed-grammar base cached"


def repeated_ngram_share(tokens: list[int], n: int = LOOP_NGRAM) -> float:
    """Share of the n-grams of `tokens` that already occurred earlier in it (0: no repeat, near 1: a loop)."""
    grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    if not grams:
        return 0.0
    seen, repeats = set(), 0
    for gram in grams:
        repeats += gram in seen
        seen.add(gram)
    return repeats / len(grams)


def loops(tokens: list[int]) -> bool:
    return repeated_ngram_share(tokens) > LOOP_LIMIT


@dataclass
class Workload:
    """The frozen base and its self-distillation data, as token ids."""

    base: object
    tokenizer: object
    eos: int | None
    train: list[tuple[list[int], int]]  # (prompt + response, prompt length)
    bench_prompts: list[list[int]]
