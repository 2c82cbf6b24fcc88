"""Where the edit sites live in each architecture: a module-template table (spec §6).

An edit site is an MLP output projection: its input is the key k (d_ff), its output the value
(d). Llama-family models (Llama, Qwen2, Mistral, Gemma, ...) call it `model.layers.{}.mlp.down_proj`;
GPT-2 calls it `transformer.h.{}.mlp.c_proj` and stores the weight transposed (Conv1D: in x out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


@dataclass(frozen=True)
class ModuleLayout:
    layer_tmp: str  # the decoder block; its output is the residual stream h
    mlp_out_tmp: str  # the MLP output projection that is rewritten
    weight_transposed: bool = False  # Conv1D stores (in, out) instead of Linear's (out, in)


_LLAMA = ModuleLayout("model.layers.{}", "model.layers.{}.mlp.down_proj")
LAYOUTS: dict[str, ModuleLayout] = {
    "llama": _LLAMA, "mistral": _LLAMA, "qwen2": _LLAMA, "qwen3": _LLAMA, "gemma": _LLAMA,
    "gemma2": _LLAMA, "phi3": _LLAMA,
    "gpt2": ModuleLayout("transformer.h.{}", "transformer.h.{}.mlp.c_proj", weight_transposed=True),
    "gptj": ModuleLayout("transformer.h.{}", "transformer.h.{}.mlp.fc_out"),
    "gpt_neox": ModuleLayout("gpt_neox.layers.{}", "gpt_neox.layers.{}.mlp.dense_4h_to_h"),
}


def layout_for(model: "PreTrainedModel", rewrite_module_tmp: str | None = None) -> ModuleLayout:
    """The layout of `model`; `rewrite_module_tmp` (e.g. 'model.layers.{}.mlp.down_proj') overrides it."""
    model_type = getattr(model.config, "model_type", "?")
    if rewrite_module_tmp is not None:
        if "{}" not in rewrite_module_tmp:
            raise ProceedingsError(f"module template '{rewrite_module_tmp}' has no '{{}}' for the layer index")
        layer_tmp = rewrite_module_tmp.split("{}")[0] + "{}"
        base = LAYOUTS.get(model_type)
        layout = ModuleLayout(layer_tmp, rewrite_module_tmp, base.weight_transposed if base else False)
    elif model_type in LAYOUTS:
        layout = LAYOUTS[model_type]
    else:
        raise ProceedingsError(
            f"no module template for model type '{model_type}' (known: {', '.join(LAYOUTS)}); pass "
            f"--rewrite-module-tmp, e.g. one of: {', '.join(_mlp_like_names(model)[:6]) or 'no MLP modules found'}"
        )
    module(model, layout.mlp_out_tmp.format(0))  # fail now, with the list of names, if it is wrong
    return layout


def module(model: "PreTrainedModel", name: str) -> "torch.nn.Module":
    """The sub-module called `name`, or a one-line error listing similar valid names."""
    modules = dict(model.named_modules())
    if name in modules:
        return modules[name]
    raise ProceedingsError(
        f"model has no module '{name}'; valid MLP module names look like: "
        f"{', '.join(_mlp_like_names(model)[:8]) or ', '.join(list(modules)[:8])}"
    )


def check_layers(model: "PreTrainedModel", layers: tuple[int, ...]) -> None:
    n_layers = num_layers(model)
    bad = [layer for layer in layers if not 0 <= layer < n_layers]
    if bad:
        raise ProceedingsError(f"edit layer(s) {bad} out of range: the model has layers 0..{n_layers - 1}")


def num_layers(model: "PreTrainedModel") -> int:
    config = model.config
    return getattr(config, "num_hidden_layers", None) or config.n_layer


def edit_weight(model: "PreTrainedModel", layout: ModuleLayout, layer: int) -> "torch.Tensor":
    """The rewritten weight as a (d, d_ff) view (output x input), whatever its storage."""
    weight = module(model, layout.mlp_out_tmp.format(layer)).weight
    return weight.T if layout.weight_transposed else weight


def _mlp_like_names(model: "PreTrainedModel") -> list[str]:
    names = [name for name, _ in model.named_modules() if ".mlp." in name or name.endswith(".mlp")]
    return [name for name in names if ".0." in name or name.endswith(".0")] or names
