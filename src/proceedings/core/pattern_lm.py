"""A pattern grammar and a tiny Llama trained on it: the fast stand-in target of the decoding systems
(P-EAGLE, Orthrus) in tests and at the tiny scale.

Pattern grammar: a sequence repeats a random motif of 2-6 tokens, every motif token drawn from ids
3..vocab-1, with one motif token replaced by a random one now and then (so the continuation is learnable
but not trivial). The tiny target is a 4-layer Llama trained on such sequences (~30 CPU-s, once: its
weights are cached under $PROCEEDINGS_CACHE and built by `make setup`), so its greedy continuations
follow the grammar and a drafter has something to learn.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.core.runtime import load_checkpoint, save_checkpoint

FIRST_ID = 3  # ids 0..2 are left for special tokens
CACHE_DIR = "peagle"  # where P-EAGLE, which built it first, caches it: warm caches stay valid


@dataclass(frozen=True)
class TinyTargetConfig:
    vocab: int = 64
    hidden: int = 128
    layers: int = 4
    heads: int = 4
    kv_heads: int = 2
    ffn: int = 256
    train_steps: int = 300
    batch: int = 16
    seq_len: int = 64
    lr: float = 3e-3


def motif_library(count: int, vocab: int, seed: int = 0) -> list[torch.Tensor]:
    """`count` motifs of 2, 3, 4, 5, 6, 2, ... tokens, consecutive slices of one random permutation of ids
    3..vocab-1: no token occurs in two motifs."""
    periods = [2 + i % 5 for i in range(count)]
    if sum(periods) > vocab - FIRST_ID:
        raise ProceedingsError(f"{count} motifs need {sum(periods)} distinct tokens; the vocabulary has "
                               f"{vocab - FIRST_ID} (ids {FIRST_ID}..{vocab - 1})")
    tokens = FIRST_ID + torch.randperm(vocab - FIRST_ID, generator=torch.Generator().manual_seed(seed))
    return list(torch.split(tokens[:sum(periods)], periods))


def pattern_sequences(count: int, length: int, vocab: int, generator: torch.Generator, noise: float = 0.05,
                      library: list[torch.Tensor] | None = None) -> torch.Tensor:
    """(count, length) token ids of the pattern grammar (module docstring): a fresh random motif per row, or
    a motif of `library` starting at a random phase."""
    rows = []
    for _ in range(count):
        if library is None:
            period = int(torch.randint(2, 7, (), generator=generator))
            motif = torch.randint(FIRST_ID, vocab, (period,), generator=generator)
        else:
            motif = library[int(torch.randint(len(library), (), generator=generator))]
            period = len(motif)
            motif = motif.roll(int(torch.randint(period, (), generator=generator)))
        row = motif.repeat(length // period + 1)[:length].clone()
        flips = torch.rand(length, generator=generator) < noise
        row[flips] = torch.randint(FIRST_ID, vocab, (int(flips.sum()),), generator=generator)
        rows.append(row)
    return torch.stack(rows)


def tiny_target(cfg: TinyTargetConfig = TinyTargetConfig(), seed: int = 0, grammar=pattern_sequences):
    """A small Llama trained on `grammar` (a function like `pattern_sequences`), in eval mode, float32;
    trained once, then cached."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=cfg.vocab, hidden_size=cfg.hidden, intermediate_size=cfg.ffn,
                         num_hidden_layers=cfg.layers, num_attention_heads=cfg.heads, num_key_value_heads=cfg.kv_heads,
                         max_position_embeddings=512, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2,
                         pad_token_id=0)
    model = LlamaForCausalLM(config)
    named = {} if grammar is pattern_sequences else {"grammar": f"{grammar.__module__}.{grammar.__qualname__}"}
    key = hashlib.sha256(json.dumps({**asdict(cfg), "seed": seed, **named}, sort_keys=True).encode()).hexdigest()[:16]
    path = cache_root() / CACHE_DIR / f"tiny-target-{key}.pt"
    cached = load_checkpoint(path)
    if cached is None:
        generator = torch.Generator().manual_seed(seed)
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        model.train()
        for _ in range(cfg.train_steps):
            batch = grammar(cfg.batch, cfg.seq_len, cfg.vocab, generator)
            loss = model(input_ids=batch, labels=batch).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        save_checkpoint(path, model.state_dict())
    else:
        model.load_state_dict(cached)
    return model.eval()


def pattern_prompts(count: int, length: int, vocab: int, seed: int,
                    library: list[torch.Tensor] | None = None) -> list[list[int]]:
    """Prompts of the pattern grammar without noise, from their own seed (training and held-out sets differ)."""
    generator = torch.Generator().manual_seed(seed)
    return pattern_sequences(count, length, vocab, generator, noise=0.0, library=library).tolist()
