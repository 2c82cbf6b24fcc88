"""Weight-level modifications a user of open weights makes, and that a watermark must survive.

In memory, each attack returns a *new* model and leaves its input untouched; `attack_dir` does the
same for model directories and writes a manifest (what, with which parameters, from which input
and its weight digest), checking afterwards that the input's digest did not change (spec §7).
  - `finetune`: continued language-model training on clean text (durability study of Gloaguen et al.);
  - `merge`: linear merge theta = (1 - alpha) theta_A + alpha theta_B (the paper's 0.5-ratio merge);
  - `quantize`: int8 per-output-channel round trip of every Linear weight (what int8 weight
    quantization keeps; a standard HF directory, any torch, any device);
  - `prune`: unstructured magnitude pruning of every Linear weight;
  - `noise`: Gaussian noise relative to each tensor's std.
"""

from __future__ import annotations

import copy
from pathlib import Path

import torch
from torch import nn

from proceedings.core.errors import ProceedingsError

ATTACKS = ("finetune", "merge", "quantize", "prune", "noise")


def merge(model_a, model_b, alpha: float):
    """(1 - alpha) A + alpha B, parameter by parameter; A and B must share the architecture."""
    if not 0.0 <= alpha <= 1.0:
        raise ProceedingsError(f"merge ratio alpha={alpha} must lie in [0, 1]")
    state_b = model_b.state_dict()
    merged = copy.deepcopy(model_a)
    with torch.no_grad():
        for name, tensor in merged.named_parameters():  # tied weights appear once here
            if name not in state_b or state_b[name].shape != tensor.shape:
                raise ProceedingsError(f"cannot merge: parameter '{name}' is missing or has another shape in model B")
            if tensor.is_floating_point():
                tensor.mul_(1 - alpha).add_(state_b[name].to(tensor), alpha=alpha)
    return merged


def _linear_weights(model):
    seen = set()
    for module in model.modules():
        if isinstance(module, nn.Linear) and id(module.weight) not in seen:
            seen.add(id(module.weight))
            yield module.weight


def quantize(model, bits: int = 8):
    """Symmetric per-output-channel round trip (quantize -> dequantize) of every Linear weight."""
    if not 2 <= bits <= 8:
        raise ProceedingsError(f"bits={bits}; weight quantization supports 2..8 bits")
    levels = 2 ** (bits - 1) - 1
    quantized = copy.deepcopy(model)
    with torch.no_grad():
        for weight in _linear_weights(quantized):
            scale = weight.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / levels
            weight.copy_(torch.round(weight / scale).clamp(-levels, levels) * scale)
    return quantized


def prune(model, fraction: float):
    """Zero the `fraction` smallest-magnitude entries of every Linear weight."""
    if not 0.0 <= fraction < 1.0:
        raise ProceedingsError(f"pruning fraction {fraction} must lie in [0, 1)")
    pruned = copy.deepcopy(model)
    with torch.no_grad():
        for weight in _linear_weights(pruned):
            k = int(fraction * weight.numel())
            if k:
                threshold = weight.abs().flatten().kthvalue(k).values
                weight.masked_fill_(weight.abs() <= threshold, 0.0)
    return pruned


def noise(model, relative_std: float, seed: int = 0):
    noisy = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for weight in _linear_weights(noisy):
            draw = torch.randn(weight.shape, generator=generator).to(weight)  # seeded alike on any device
            weight.add_(draw * relative_std * weight.std())
    return noisy


def finetune(model, blocks: torch.Tensor, steps: int, lr: float = 1e-5, batch_size: int = 4,
             train_layers: int | None = None, seed: int = 0):
    """Continued next-token training on clean (N, T) blocks: the user's fine-tune that forgets."""
    from proceedings.core.progress import progress_bar

    from proceedings.pro.objectives import language_model_loss

    tuned = copy.deepcopy(model)
    layers = tuned.get_decoder().layers
    tuned.requires_grad_(False)
    for layer in layers[len(layers) - (train_layers or len(layers)) :]:
        layer.requires_grad_(True)
    params = [p for p in tuned.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    generator = torch.Generator().manual_seed(seed)
    device = next(tuned.parameters()).device
    for _ in progress_bar(range(steps), desc="attack: fine-tune", leave=False):
        batch = blocks[torch.randint(len(blocks), (batch_size,), generator=generator)].to(device)
        loss = language_model_loss(tuned(input_ids=batch).logits, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    tuned.requires_grad_(False)
    return tuned.eval()


def attack_dir(kind: str, source: Path | str, out: Path | str, other: Path | str | None = None,
               corpus: str = "pydoc", **params) -> Path:
    """Apply attack `kind` to the model directory `source` and write the result to `out`."""
    from proceedings.pro.release import load_model_dir, save_model_dir, weights_digest

    if kind not in ATTACKS:
        raise ProceedingsError(f"unknown attack '{kind}'; choose one of: {', '.join(ATTACKS)}")
    if kind == "merge" and other is None:
        raise ProceedingsError("merge needs a second model: `attack merge SOURCE OTHER --alpha 0.5`")
    source, out = Path(source), Path(out)
    if out.resolve() in (source.resolve(), Path(other).resolve() if other else None):
        raise ProceedingsError(f"attack output '{out}' is one of its inputs; attacks never modify their input")
    before = weights_digest(source)
    model, tokenizer = load_model_dir(source)
    if kind == "merge":
        attacked = merge(model, load_model_dir(other)[0], params.get("alpha", 0.5))
    elif kind == "finetune":
        from proceedings.pro.data import read_documents, token_blocks

        blocks = token_blocks(read_documents(corpus), tokenizer, params.pop("seq_len", 128))
        attacked = finetune(model, blocks, **params)
    else:
        attacked = {"quantize": quantize, "prune": prune, "noise": noise}[kind](model, **params)
    manifest = {"made_by": f"proceedings pro attack {kind}", "attack": kind, "params": params,
                "source": str(source), "source_digest": before, "other": str(other) if other else None}
    save_model_dir(attacked, tokenizer, out, manifest)
    if weights_digest(source) != before:
        raise ProceedingsError(f"attack changed its input '{source}'; this is a bug, please report it")
    return out
