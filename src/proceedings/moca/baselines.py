"""The arms of the comparison (issue 27): the same CompositionalDiT, only the cross block's key set differs.

- Full: PartCrafter-style global attention over every component's tokens, O((N·T)^2);
- MoCA: top-k routed components in full + every other component's compressed tokens (k = 4, σ = 8);
- Top-k-drop: the same routing, unselected components discarded (no compression);
- Local-only: each component attends to itself only (no cross-component information).
Same data, steps, batch, optimiser, seed and width; the learned router adds 2·d² weights per cross
block to MoCA and Top-k-drop (parameter counts are recorded).
"""

from __future__ import annotations

from dataclasses import replace

from proceedings.moca.model import DiTConfig

ARMS = {
    "full": "Full (PartCrafter-style global attention)",
    "moca": "MoCA (top-k routing + compressed distant components)",
    "topk-drop": "Top-k-drop (routing, distant components discarded)",
    "local": "Local-only (no cross-component attention)",
}


def arm_config(base: DiTConfig, arm: str) -> DiTConfig:
    """The shared model configuration with the cross block of `arm`."""
    return replace(base, attention=arm)
