"""A trained drafter on disk: one safetensors file (weights, frozen head rows, draft map; the config in the
metadata), and the export to the directory layout vLLM's EAGLE-3 loader reads (issue 19: "export").

The export follows the speculators / vLLM EAGLE-3 convention: `config.json` (architecture
`LlamaForCausalLMEagle3`, `draft_vocab_size`, the target's auxiliary layer ids) and `model.safetensors` with
the first layer as `midlayer.*` (`input_layernorm` normalises the token embedding, `hidden_norm` the
projected features, in that concatenation order), `fc`, `norm`, `lm_head` (the V_d head rows), `d2t` as
offsets (target id - draft id) and `t2d` as a boolean mask over the target vocabulary. P-EAGLE's two learnt
inputs are written as `mask_hidden` and `mask_embedding` beside them. Nothing here runs vLLM (no GPU, no
network): the layout is checked by reading it back.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_bytes, atomic_write_text
from proceedings.peagle.drafter import Drafter, DrafterConfig

LAYER_NAMES = {"embed_norm": "input_layernorm", "input_norm": "hidden_norm", "q": "self_attn.q_proj",
               "k": "self_attn.k_proj", "v": "self_attn.v_proj", "o": "self_attn.o_proj",
               "post_norm": "post_attention_layernorm", "gate": "mlp.gate_proj", "up": "mlp.up_proj",
               "down": "mlp.down_proj"}


def save_drafter(drafter: Drafter, path: Path | str) -> Path:
    """Atomically write the drafter's state as safetensors, its config in the metadata."""
    from safetensors.torch import save

    tensors = {name: t.detach().contiguous().cpu() for name, t in drafter.state_dict().items()}
    return atomic_write_bytes(path, save(tensors, metadata={"drafter_config": json.dumps(drafter.cfg.to_dict())}))


def load_drafter(path: Path | str, target) -> Drafter:
    """The drafter saved at `path`, on the target it was trained for (refused on another: `proposer.check_fits`)."""
    from safetensors import SafetensorError, safe_open

    from proceedings.peagle.proposer import check_fits

    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"no drafter file '{path}'; train one with `proceedings peagle train`")
    try:
        with safe_open(path, "pt") as handle:
            metadata = handle.metadata() or {}
            tensors = {name: handle.get_tensor(name) for name in handle.keys()}
        stored = json.loads(metadata["drafter_config"])
        cfg = DrafterConfig(**{**stored, "feature_layers": tuple(stored["feature_layers"])})
    except (SafetensorError, KeyError, TypeError, json.JSONDecodeError, OSError) as err:
        raise ProceedingsError(f"'{path}' is not a drafter file ({type(err).__name__}: {err})") from err
    check_fits(cfg, target)
    drafter = Drafter(cfg, target.get_input_embeddings().weight, tensors["head"], tensors["draft_to_target"])
    drafter.load_state_dict(tensors)
    return drafter.eval()


def export_vllm(drafter: Drafter, directory: Path | str, max_positions: int = 8192) -> list[Path]:
    """`config.json` + `model.safetensors` in vLLM's EAGLE-3 layout (module docstring)."""
    from safetensors.torch import save

    cfg, directory = drafter.cfg, Path(directory)
    tensors = {"fc.weight": drafter.fc.weight, "norm.weight": drafter.norm.weight, "lm_head.weight": drafter.head,
               "d2t": drafter.draft_to_target - torch.arange(cfg.draft_vocab),
               "t2d": torch.zeros(cfg.target_vocab, dtype=torch.bool).index_fill_(0, drafter.draft_to_target, True)}
    for i, layer in enumerate(drafter.layers):
        prefix = "midlayer" if i == 0 else f"layers.{i - 1}"
        for name, module in layer.named_children():
            tensors[f"{prefix}.{LAYER_NAMES[name]}.weight"] = module.weight
    if drafter.parallel:
        tensors.update({"mask_hidden": drafter.mask_hidden, "mask_embedding": drafter.mask_embedding})
    config = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "speculators_method": cfg.method,
              "hidden_size": cfg.hidden_size, "target_hidden_size": cfg.hidden_size,
              "num_attention_heads": cfg.num_heads, "num_key_value_heads": cfg.num_heads,
              "intermediate_size": cfg.intermediate_size, "num_hidden_layers": cfg.layers, "vocab_size": cfg.target_vocab,
              "draft_vocab_size": cfg.draft_vocab, "rms_norm_eps": cfg.rms_eps, "rope_theta": cfg.rope_theta,
              "max_position_embeddings": max_positions, "eagle_aux_hidden_state_layer_ids": list(cfg.feature_layers),
              "parallel_draft_positions": cfg.k_train if drafter.parallel else None, "target_hash": cfg.target_hash,
              "torch_dtype": "float32"}
    weights = save({name: t.detach().contiguous().cpu() for name, t in tensors.items()})
    return [atomic_write_bytes(directory / "model.safetensors", weights),
            atomic_write_text(directory / "config.json", json.dumps(config, indent=2) + "\n")]
