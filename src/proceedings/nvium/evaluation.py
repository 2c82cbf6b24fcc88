"""Validation bits per byte of the mixture, and where the router puts its mass (spec §5.2)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.data import Corpus
from proceedings.nvium.mixture import exit_log_likelihoods, expected_depth, mix_exit_likelihoods
from proceedings.nvium.model import NviumForCausalLM


@dataclass
class Evaluation:
    bpb: float  # bits per byte of the mixture on the held-out works
    nll: float  # nats per token
    tokens: int
    exit_mass: list[float]  # mean pi_e over positions: the expected exit histogram
    mean_depth: float  # mean sum_e pi_e l_e / L
    exit_bpb: list[float]  # each exit's head alone, for reading the mixture


@torch.inference_mode()
def evaluate(model: NviumForCausalLM, corpus: Corpus, seq_len: int, max_tokens: int | None = None,
             batch_size: int = 8) -> Evaluation:
    """Score every held-out token once (non-overlapping windows of seq_len)."""
    corpus.check_tokenizer(model.config.tokenizer, model.config.vocab_size)
    corpus.check_fits(seq_len)
    model.eval()
    device = next(model.parameters()).device
    windows = list(corpus.validation_windows(seq_len, max_tokens))
    if not windows:
        raise ProceedingsError(f"the first {max_tokens} validation tokens hold no window of {seq_len}; "
                               "score more tokens or use a shorter --seq-len")
    total_nll, exit_nll, mass, depth, tokens = 0.0, None, None, 0.0, 0
    for i in range(0, len(windows), batch_size):
        x = torch.cat([w[0] for w in windows[i:i + batch_size]]).to(device)
        y = torch.cat([w[1] for w in windows[i:i + batch_size]]).to(device)
        out = model(x)
        per_exit = exit_log_likelihoods(out.exit_logits, y)  # (B, T, N)
        log_p = mix_exit_likelihoods(out.log_weights, per_exit)
        total_nll -= log_p.sum().item()
        batch_exit_nll = -per_exit.sum((0, 1))
        batch_mass = out.log_weights.exp().sum((0, 1))
        exit_nll = batch_exit_nll if exit_nll is None else exit_nll + batch_exit_nll
        mass = batch_mass if mass is None else mass + batch_mass
        depth += expected_depth(out.log_weights, model.config.depth_fractions()).sum().item()
        tokens += y.numel()
    bits_per_token = 1.0 / (math.log(2) * corpus.val_bytes_per_token())
    return Evaluation(
        bpb=total_nll / tokens * bits_per_token,
        nll=total_nll / tokens,
        tokens=tokens,
        exit_mass=(mass / tokens).tolist(),
        mean_depth=depth / tokens,
        exit_bpb=(exit_nll / tokens * bits_per_token).tolist(),
    )


def unigram_bpb(corpus: Corpus) -> float:
    """Bits per byte of the held-out works under the training split's token frequencies (add-one):
    the model that knows no context, which every trained model must beat (the verdict's first gate)."""
    import numpy as np

    counts = np.bincount(np.asarray(corpus.train), minlength=corpus.meta.vocab_size) + 1.0
    log2_p = np.log2(counts / counts.sum())
    bits = -log2_p[np.asarray(corpus.val)[1:]].mean()  # the first token is never predicted
    return float(bits / corpus.val_bytes_per_token())
