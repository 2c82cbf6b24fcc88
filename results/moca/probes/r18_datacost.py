"""Round 18: the paper preset's data stage, CPU cost per sample: grammar generation and encoding by a paper-width VAE
(random weights: the cost does not depend on them). Run with `nice -n 10 .venv/bin/python results/moca/probes/r18_datacost.py`."""
import time, torch, numpy as np
torch.set_num_threads(1)
from proceedings.moca.experiment import experiment_config
from proceedings.moca.data.procedural import generate
from proceedings.moca.latents import LatentCodec
from proceedings.moca.vae import ComponentVAE
cfg = experiment_config("paper")
torch.manual_seed(0)
codec = LatentCodec(ComponentVAE(cfg.vae).eval().requires_grad_(False), 1.0)
for kind in cfg.classes:
    n = 8 if kind.startswith("scene") else 20
    t = time.process_time()
    assemblies = generate(kind, n, cfg.components[kind], cfg.model.points, seed=0)
    gen = (time.process_time() - t) / n
    parts = sum(a.n for a in assemblies)
    t = time.process_time()
    z = codec.encode(assemblies)
    enc = (time.process_time() - t) / parts
    print(f"{kind}: {n} samples, {parts/n:.1f} parts/sample, generate {gen*1e3:.1f} CPU-ms/sample, encode {enc*1e3:.2f} CPU-ms/component, max N {max(a.n for a in assemblies)}", flush=True)
