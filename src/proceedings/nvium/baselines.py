"""What N-vium is compared against: the standard transformer, matched in every way but the exits.

The baseline is the same architecture with one exit after the last layer, starting from the very
same initial weights (copied), trained by the same loop on the same batches (spec §2.2). The exits
add one norm vector per intermediate exit and one router unit (d + 1 numbers) per gate: 0.02 % of the
small model, reported next to the baseline's count rather than trimmed away.

A second reference answers "is depth worth anything at this budget?": a standard transformer only as
deep as N-vium's first exit (its first layers, same initial weights), trained the same way. If it were
as good as the deep baseline, skipping layers would be no achievement; N-vium must beat it on quality.
"""

from __future__ import annotations

from dataclasses import replace

from proceedings.nvium.model import NviumConfig, NviumForCausalLM


def standard_transformer_config(config: NviumConfig, n_layer: int | None = None) -> NviumConfig:
    """A plain decoder-only transformer: the same shape (or its first n_layer layers), one exit at the top."""
    n_layer = n_layer or config.n_layer
    return replace(config, n_layer=n_layer, exits=(n_layer,))


def matched_baseline(nvium: NviumForCausalLM, n_layer: int | None = None) -> NviumForCausalLM:
    """A standard transformer holding exactly N-vium's embedding, (first n_layer) layers and final norm."""
    baseline = NviumForCausalLM(standard_transformer_config(nvium.config, n_layer))
    wanted = baseline.state_dict()
    shared = {name: value for name, value in nvium.state_dict().items() if name in wanted}
    final_norm = f"exit_norms.{nvium.config.n_exits - 1}.weight"  # N-vium's last exit is the baseline's only one
    shared["exit_norms.0.weight"] = nvium.state_dict()[final_norm]
    baseline.load_state_dict(shared)
    return baseline.to(next(nvium.parameters()).device)
