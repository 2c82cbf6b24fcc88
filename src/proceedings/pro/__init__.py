"""PRO: precise and robust watermarking embedded in open-source LLM weights (NeurIPS 2026).

A watermark policy (frozen context encoder -> MLP -> per-token scores) is trained jointly with the
LLM, so the pattern the released weights learn is the one the detector checks; a perturbation-aware
regularizer keeps it through fine-tuning, merging and quantization.  Baseline: KGW distillation.

    from proceedings.pro import WatermarkTrainer, TrainConfig, PolicyConfig, Detector, attacks

The names are imported on first use, so `proceedings list` (which looks this package up) never
imports torch.
"""

from proceedings.core.lazy import lazy_exports

_PUBLIC = {
    "KGWConfig": "config", "PolicyConfig": "config", "TrainConfig": "config",
    "Detector": "detector", "Score": "detector", "WatermarkTrainer": "training",
}
__all__ = [*_PUBLIC, "attacks"]
__getattr__ = lazy_exports(__name__, _PUBLIC, modules=("attacks",))
