"""Round 18 (issue 29): CPU-s per training step at 32 vs 64 px (MV, and OVIE with the GAN on), batch 32, same load:
the cost side of the 64 px lever. Untrained feature net and oracle depth: the same compute as the real arms.
Run: `nice -n 10 python results/ovie/probes/r18_step_cost.py` (its last line is round18_step_cost.json)."""
import json
import time

import torch

from proceedings.ovie.camera import intrinsics
from proceedings.ovie.depth import OracleDepth, TinyDepth
from proceedings.ovie.geometry import PoseSampler, SKY_DEPTH_M
from proceedings.ovie.networks import NovelViewNet
from proceedings.ovie.pairs import PseudoPairs, TruePairs
from proceedings.ovie.train import TrainConfig, Trainer
from proceedings.ovie.worlds import RenderSpec, render_set
out = {}
for size, radius in ((32, 0), (64, 1)):
    singles = render_set(RenderSpec("A", 48, size, 7777), cache=False)
    pairs = render_set(RenderSpec("A", 48, size, 7778, pairs=True), cache=False)
    feats = TinyDepth().requires_grad_(False).features
    depth, valid = OracleDepth().estimate(singles)
    for arm, data, gan in (("mv", TruePairs(pairs), 0.0),
                           ("ovie", PseudoPairs(singles["rgb"], depth, valid, intrinsics(size), PoseSampler(), radius, True, SKY_DEPTH_M), 0.1)):
        torch.manual_seed(0)
        t = Trainer(TrainConfig(steps=6, batch=32, gan_weight=gan, gan_start=0.0, warmup=1), NovelViewNet(size, intrinsics(size)), data, feats)
        t.train_step()  # warm-up step not timed
        c0, w0 = time.process_time(), time.time()
        for _ in range(4):
            t.train_step()
        out[f"{arm}_{size}px"] = {"cpu_s_per_step": (time.process_time() - c0) / 4, "wall_s_per_step": (time.time() - w0) / 4}
        print(arm, size, out[f"{arm}_{size}px"], flush=True)
print(json.dumps(out))
