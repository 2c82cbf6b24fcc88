"""The target model's side of EAGLE: which hidden states feed the drafter, its draft vocabulary, and the
per-position features a drafter trains on (spec §2.2, issue "Features").

A `FeatureSequence` holds one prompt + response: the tokens, the concatenated hidden states of the
feature layers (float16), the target's final normed hidden state (float16; the loss target is recomputed
from it through the frozen head rows, never stored as 49k-wide logits) and the target's argmax per
position (to drop positions whose token lies outside the draft vocabulary, as EAGLE-3 does).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import torch

from proceedings.core.errors import ProceedingsError


def default_feature_layers(num_layers: int) -> tuple[int, int, int]:
    """EAGLE-3's low/mid/high layers (2, L//2, L-3) as indices of the target's hidden_states: SmolLM2 (30
    layers) -> (2, 15, 27)."""
    if num_layers < 6:
        raise ProceedingsError(f"a {num_layers}-layer target has no distinct low/mid/high layers (2, L//2, L-3); "
                               "pass the feature layers explicitly")
    return 2, num_layers // 2, num_layers - 3


def target_hash(target) -> str:
    """A short hash of the target's config and LM head: a drafter trained on one target is refused on another."""
    head = target.get_output_embeddings().weight
    config = {k: v for k, v in target.config.to_dict().items() if not k.startswith("_") and k not in ("dtype", "torch_dtype")}
    probe = head[:: max(1, head.shape[0] // 64)].detach().float().sum(1)
    text = json.dumps(config, sort_keys=True, default=str) + ",".join(f"{x:.4f}" for x in probe.tolist())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class FeatureSequence:
    tokens: torch.Tensor  # (L,) long
    prompt_len: int
    features: torch.Tensor  # (L, len(layers) * H) float16
    final_hidden: torch.Tensor  # (L, H) float16, after the target's final norm
    argmax: torch.Tensor  # (L,) long: the target's greedy token after each position

    def loss_valid(self, in_draft_vocab: torch.Tensor) -> torch.Tensor:
        """(L,) bool: positions whose target distribution is a training target: they predict a response
        token, and the target's top token is in the draft vocabulary."""
        positions = torch.arange(len(self.tokens))
        return (positions >= self.prompt_len - 1) & in_draft_vocab[self.argmax]


def extract_features(target, sequences: Sequence[tuple[Sequence[int], int]], feature_layers: Sequence[int],
                     progress: str | None = None) -> list[FeatureSequence]:
    """One target forward per (tokens, prompt_len) sequence, keeping the feature layers' hidden states."""
    from proceedings.core.progress import progress_bar

    if max(feature_layers) > target.config.num_hidden_layers:
        raise ProceedingsError(f"feature layers {tuple(feature_layers)} do not exist in a "
                               f"{target.config.num_hidden_layers}-layer target")
    device = next(target.parameters()).device
    out = []
    with torch.inference_mode():
        for tokens, prompt_len in progress_bar(sequences, desc=progress or "features", disable=progress is None):
            ids = torch.tensor([list(tokens)], device=device)
            result = target(input_ids=ids, output_hidden_states=True)
            final = target.model.norm(result.hidden_states[-1])[0]
            features = torch.cat([result.hidden_states[i][0] for i in feature_layers], -1)
            out.append(FeatureSequence(ids[0].cpu(), prompt_len, features.half().cpu(), final.half().cpu(),
                                       result.logits[0].argmax(-1).cpu()))
    return out


def draft_vocabulary(sequences: Sequence[FeatureSequence], size: int, target_vocab: int) -> torch.Tensor:
    """The `size` most frequent response tokens (ties by id), topped up by the lowest unused ids:
    the draft-to-target map d2t (spec §2.2)."""
    if size > target_vocab:
        raise ProceedingsError(f"draft vocabulary {size} is larger than the target's vocabulary {target_vocab}")
    counts = Counter(t for s in sequences for t in s.tokens[s.prompt_len:].tolist())
    chosen = [t for t, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))][:size]
    taken = set(chosen)
    chosen += [t for t in range(target_vocab) if t not in taken][:size - len(chosen)]
    return torch.tensor(chosen, dtype=torch.long)


def in_vocabulary(draft_to_target: torch.Tensor, target_vocab: int) -> torch.Tensor:
    """t2d: (target_vocab,) bool, True for tokens the drafter can propose."""
    mask = torch.zeros(target_vocab, dtype=torch.bool)
    mask[draft_to_target] = True
    return mask
