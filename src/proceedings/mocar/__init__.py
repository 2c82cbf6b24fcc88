"""MoCAR: motion-code coordinate-aware autoregression for trajectory forecasting, on SUMO traffic.

A VAE turns endpoint-normalised 0.5 s segments into continuous codes that also carry the move of the
agent's local frame; a decoder-only transformer predicts the next code under temporal, map, agent and
mode attention, and its rollout keeps predicted codes in latent memory while decoded transitions move
the frame. Compared with SMART-lite (discrete tokens), QCNet-lite (one-shot) and CV/CTRV on SUMO
cities A (training) and B (zero-shot). Public names: `generate`, `SimSpec`, `load`, `Tokenizer`,
`MoCAR`, `MoCARConfig`, `save_pretrained`, `from_pretrained`.
"""

from proceedings.core.lazy import lazy_exports

_EXPORTS = {"generate": "sim", "SimSpec": "sim", "load": "scenarios", "Tokenizer": "tokenizer", "MoCAR": "model",
            "MoCARConfig": "model", "save_pretrained": "pretrained", "from_pretrained": "pretrained"}
__all__ = list(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
