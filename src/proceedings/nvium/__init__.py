"""N-vium: a mixture-of-exits transformer, sampled exactly with deferred upper layers (NeurIPS 2026).

Prediction heads at several depths; the next-token distribution is a learned, token-adaptive mixture
over them. Sampling picks an exit, then a token, computing only the layers below that exit; the skipped
upper layers run later, batched with the next tokens, so every cache ends up complete and the samples
are exactly the mixture's.

    from proceedings.nvium import NviumConfig, NviumForCausalLM, DeferredSampler
    model = NviumForCausalLM(NviumConfig(n_layer=8, d_model=128, exits=(2, 4, 6, 8)))
    out = DeferredSampler(model).generate(list(b"ROMEO:"), max_new_tokens=64, seed=0)

The public names are imported on first use, so `import proceedings.nvium` does not import torch.
"""

from proceedings.core.lazy import lazy_exports

_PUBLIC = {
    "NviumConfig": "model", "NviumForCausalLM": "model",
    "DeferredSampler": "sampler", "FullDepthSampler": "sampler", "Generation": "sampler",
    "TrainConfig": "training", "train": "training",
    "matched_baseline": "baselines",
    "prepare_corpus": "data", "Corpus": "data", "ByteTokenizer": "data",
    "evaluate": "evaluation",
    "retrofit_llama": "retrofit", "load_retrofit": "retrofit",
    "benchmark_models": "speed",
    "reproduce": "experiment",
}
__all__ = list(_PUBLIC)
__getattr__ = lazy_exports(__name__, _PUBLIC)
