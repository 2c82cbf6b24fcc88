"""Editing hyperparameters: one dataclass for every editor, with presets per model family.

Values marked "paper" come from the public NAS / MEMIT / AlphaEdit hyperparameter files
(spec §2.4); the SmolLM2 and tiny presets are ours: layers at about the first quarter of depth (like
[4..8] of 32 in Llama-3-8B), and for SmolLM2 a value solve a CPU affords (MEMIT's lr 0.5, under which
requests converge in 10-21 steps, capped at 25; one generated context template besides the bare prompt).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    from transformers import PreTrainedModel

METHODS = ("memit", "alphaedit", "rome")


@dataclass(frozen=True)
class EditHparams:
    method: str = "memit"  # memit | alphaedit | rome
    layers: tuple[int, ...] = (4, 5, 6, 7, 8)  # paper: Llama-3-8B [4..8]
    # value solve (compute_z), paper §2.1 step 2
    v_num_grad_steps: int = 25  # paper; a cap: each request stops once its NLL is below early_stop_nll
    v_lr: float = 0.1  # paper (NAS); MEMIT uses 0.5
    v_weight_decay: float = 0.5  # paper (NAS)
    clamp_norm_factor: float = 0.75  # paper (NAS); MEMIT uses 4
    kl_factor: float = 0.0625  # paper
    early_stop_nll: float = 0.05  # ROME/MEMIT's stopping loss, here per request on the target NLL
    context_prefixes: tuple[str, ...] = ("The", "Therefore", "Because", "I", "You")  # ROME/MEMIT
    context_length: int = 10  # tokens generated per context prefix
    # the per-layer solve
    mom2_update_weight: float = 15000.0  # lambda, paper (MEMIT)
    nullspace_threshold: float = 2e-2  # AlphaEdit, paper
    l2: float = 10.0  # AlphaEdit alpha, paper
    # NAS, paper §2.3
    nas: bool = True
    nas_n_ref: int = 1000  # requests solved on the unedited model to estimate rho (paper code)
    nas_trim_quantile: float = 0.95  # drop the top 5 % of norms before averaging
    nas_skip_factor: float | None = 2.0  # skip an edit whose raw ||v*|| > factor * rho; None disables
    nas_eps: float = 1e-8
    nas_rho: float | None = None  # a given reference norm; None measures it (`--rho auto`)
    # C_0 statistics
    stats_tokens: int = 100_000  # paper uses 100k Wikipedia samples; we count tokens
    stats_seq_len: int = 128
    rewrite_module_tmp: str | None = None  # override the module template table (model_layout.py)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ProceedingsError(f"unknown editing method '{self.method}'; choose one of: {', '.join(METHODS)}")
        if self.nas_rho is not None and not self.nas_rho > 0:
            raise ProceedingsError(f"--rho {self.nas_rho:g}: the reference norm must be > 0 (or 'auto')")
        if self.v_num_grad_steps < 0:
            raise ProceedingsError(f"v_num_grad_steps {self.v_num_grad_steps}: the step cap must be >= 0")
        if not self.layers:
            raise ProceedingsError("hparams.layers is empty; give at least one edit layer")
        if self.method == "rome" and len(self.layers) != 1:
            raise ProceedingsError(f"ROME edits one layer; got layers {list(self.layers)}")
        object.__setattr__(self, "layers", tuple(sorted(int(layer) for layer in self.layers)))

    @classmethod
    def for_model(cls, model: "PreTrainedModel", **overrides) -> "EditHparams":
        """The preset that fits `model` (by depth), with `overrides` applied."""
        from proceedings.nas.model_layout import num_layers

        n_layers = num_layers(model)
        if n_layers <= 8:  # tiny test models
            preset = cls(layers=tuple(range(max(0, n_layers // 2 - 1), n_layers // 2 + 1)),
                         v_num_grad_steps=10, nas_n_ref=16, stats_tokens=2_000, stats_seq_len=64)
        elif n_layers <= 32 and model.config.hidden_size <= 1024:  # SmolLM2-135M class, sized for a CPU
            preset = cls(layers=(3, 4, 5, 6, 7), v_num_grad_steps=25, v_lr=0.5, context_prefixes=("The",),
                         context_length=5, nas_n_ref=32, stats_tokens=30_000)
        else:  # 7-8B class: the paper's configuration
            preset = cls()
        if overrides.get("method") == "rome" and "layers" not in overrides:
            overrides["layers"] = (preset.layers[len(preset.layers) // 2],)
        return replace(preset, **overrides)

    def with_(self, **changes) -> "EditHparams":
        return replace(self, **changes)

    def value_solve_key(self) -> str:
        """A hash of everything that changes the solved value vectors (for the rho cache)."""
        keys = ("layers", "v_num_grad_steps", "v_lr", "v_weight_decay", "clamp_norm_factor", "kl_factor",
                "early_stop_nll", "context_prefixes", "context_length", "rewrite_module_tmp")
        payload = {k: asdict(self)[k] for k in keys}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]
