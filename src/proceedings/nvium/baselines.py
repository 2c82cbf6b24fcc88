"""What N-vium is compared against: the standard transformer, matched in every way but the exits.

The baseline is the same architecture with one exit after the last layer, starting from the very
same initial weights (copied), trained by the same loop on the same batches (spec §2.2). The exits
add one norm vector per intermediate exit and one router unit (d + 1 numbers) per gate: 0.02 % of the
small model, reported next to the baseline's count rather than trimmed away.
"""

from __future__ import annotations

from dataclasses import replace

from proceedings.nvium.model import NviumConfig, NviumForCausalLM


def standard_transformer_config(config: NviumConfig) -> NviumConfig:
    """The same shape with a single exit at the top: a plain decoder-only transformer."""
    return replace(config, exits=(config.n_layer,))


def matched_baseline(nvium: NviumForCausalLM) -> NviumForCausalLM:
    """A standard transformer holding exactly N-vium's trunk, embedding and final norm weights."""
    baseline = NviumForCausalLM(standard_transformer_config(nvium.config))
    shared = {name: value for name, value in nvium.state_dict().items() if name in baseline.state_dict()}
    final_norm = f"exit_norms.{nvium.config.n_exits - 1}.weight"  # N-vium's last exit is the baseline's only one
    shared["exit_norms.0.weight"] = nvium.state_dict()[final_norm]
    baseline.load_state_dict(shared)
    return baseline.to(next(nvium.parameters()).device)
