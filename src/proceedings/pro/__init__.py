"""PRO: precise and robust watermarking embedded in open-source LLM weights (NeurIPS 2026).

A watermark policy (frozen context encoder -> MLP -> per-token scores) is trained jointly with the
LLM, so the pattern the released weights learn is the one the detector checks; a perturbation-aware
regularizer keeps it through fine-tuning, merging and quantization.  Baseline: KGW distillation.

    from proceedings.pro import WatermarkTrainer, TrainConfig, PolicyConfig, Detector, attacks

The names are imported on first use, so `proceedings list` (which looks this package up) never
imports torch.
"""

import importlib

_PUBLIC = {
    "KGWConfig": "proceedings.pro.config", "PolicyConfig": "proceedings.pro.config",
    "TrainConfig": "proceedings.pro.config", "Detector": "proceedings.pro.detector",
    "Score": "proceedings.pro.detector", "WatermarkTrainer": "proceedings.pro.training",
    "attacks": "proceedings.pro.attacks",
}
__all__ = list(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'proceedings.pro' has no attribute '{name}'")
    module = importlib.import_module(_PUBLIC[name])
    return module if name == "attacks" else getattr(module, name)
