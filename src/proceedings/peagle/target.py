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
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
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
    with torch.inference_mode(), head_input(target) as final:
        for tokens, prompt_len in progress_bar(sequences, desc=progress or "features", disable=progress is None):
            ids = torch.tensor([list(tokens)], device=device)
            result = target(input_ids=ids, output_hidden_states=True)
            features = torch.cat([result.hidden_states[i][0] for i in feature_layers], -1)
            out.append(FeatureSequence(ids[0].cpu(), prompt_len, features.half().cpu(), final.pop()[0].half().cpu(),
                                       result.logits[0].argmax(-1).cpu()))
    return out


@contextmanager
def head_input(target):
    """Collects what the target's LM head reads (its final normed hidden state, (1, L, H) per forward): the loss
    target is recomputed from exactly that. (transformers 5 already returns hidden_states[-1] normed, so
    normalising it again would train the drafter on another distribution than the target's.)"""
    seen: list[torch.Tensor] = []
    hook = target.get_output_embeddings().register_forward_pre_hook(lambda module, args: seen.append(args[0]))
    try:
        yield seen
    finally:
        hook.remove()


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


SHARD_FIELDS = ("tokens", "features", "final_hidden", "argmax")
FEATURES_FORMAT = 2  # 2: final_hidden is the LM head's input (format 1 normalised transformers 5's already normed state again)


def save_feature_shard(path: Path | str, sequences: Sequence[FeatureSequence]) -> Path:
    """Atomically write sequences as one safetensors shard (`<i>.<field>` tensors, prompt lengths in the metadata)."""
    from safetensors.torch import save

    from proceedings.core.runtime import atomic_write_bytes

    tensors = {f"{i}.{name}": getattr(s, name).contiguous() for i, s in enumerate(sequences) for name in SHARD_FIELDS}
    return atomic_write_bytes(path, save(tensors, metadata={"prompt_lens": json.dumps([s.prompt_len for s in sequences])}))


def load_feature_shard(path: Path | str) -> list[FeatureSequence]:
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(Path(path), "pt") as handle:
            lens = json.loads((handle.metadata() or {})["prompt_lens"])
            return [FeatureSequence(handle.get_tensor(f"{i}.tokens"), n, handle.get_tensor(f"{i}.features"),
                                    handle.get_tensor(f"{i}.final_hidden"), handle.get_tensor(f"{i}.argmax"))
                    for i, n in enumerate(lens)]
    except (SafetensorError, KeyError, json.JSONDecodeError, OSError) as err:
        raise ProceedingsError(f"feature shard '{path}' is damaged ({type(err).__name__}); delete it and run "
                               "`proceedings peagle extract` again to rebuild it") from err


def extract_feature_shards(target, sequences: Sequence[tuple[Sequence[int], int]], feature_layers: Sequence[int],
                           directory: Path | str, shard_size: int = 32, progress: str | None = None) -> list[Path]:
    """`extract_features` in shards of `shard_size` sequences under `directory`, with a `features.json` naming
    the target (hash) and layers; shards already written are kept, so an interrupted run resumes."""
    from proceedings.core.progress import progress_bar
    from proceedings.core.runtime import atomic_write_text

    directory = Path(directory)
    meta = {"target_hash": target_hash(target), "feature_layers": list(feature_layers), "sequences": len(sequences),
            "shard_size": shard_size, "format": FEATURES_FORMAT}
    index = directory / "features.json"
    if index.exists() and json.loads(index.read_text()) != meta:
        raise ProceedingsError(f"'{directory}' holds features of another target, layer set, data or format ({index}); "
                               "pass another directory")
    atomic_write_text(index, json.dumps(meta, indent=2) + "\n")
    paths = []
    starts = range(0, len(sequences), shard_size)
    for number, start in enumerate(progress_bar(starts, desc=progress or "features", disable=progress is None, unit="shard")):
        path = directory / f"shard-{number:05d}.safetensors"
        if not path.exists():
            save_feature_shard(path, extract_features(target, sequences[start:start + shard_size], feature_layers))
        paths.append(path)
    return paths


def load_feature_shards(directory: Path | str, target) -> tuple[list[FeatureSequence], tuple[int, ...]]:
    """Every shard of `directory` and its feature layers; refused when they were extracted from another target
    or the extraction is incomplete."""
    directory = Path(directory)
    index = directory / "features.json"
    if not index.exists():
        raise ProceedingsError(f"'{directory}' has no features.json; run `proceedings peagle extract` first")
    meta = json.loads(index.read_text())
    if meta.get("format") != FEATURES_FORMAT:
        raise ProceedingsError(f"features in '{directory}' have format {meta.get('format', 1)}, not {FEATURES_FORMAT}; "
                               "run `proceedings peagle extract` into a new directory")
    if meta["target_hash"] != target_hash(target):
        raise ProceedingsError(f"features in '{directory}' come from target {meta['target_hash']}, not this one "
                               f"({target_hash(target)})")
    shards = -(-meta["sequences"] // meta["shard_size"])
    missing = [n for n in range(shards) if not (directory / f"shard-{n:05d}.safetensors").exists()]
    if missing:
        raise ProceedingsError(f"'{directory}' misses {len(missing)} of {shards} shards (first: {missing[0]}); "
                               "run `proceedings peagle extract` again to finish it")
    sequences = [s for n in range(shards) for s in load_feature_shard(directory / f"shard-{n:05d}.safetensors")]
    return sequences, tuple(meta["feature_layers"])
