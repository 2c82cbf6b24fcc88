"""Round 20 (issue 29, lead): where check 5's 32 px batch-1 time goes. `python r20_speed_profile.py` times, on one
thread and the CPU clock (fastest of 7 rounds of 200 calls), OVIE's pass and its parts (UNet body, Plücker map) beside
the pipeline's stages and the estimator's UNet alone, on one B test view with its true pose, using the small preset's
cached tiny estimator and an untrained NovelViewNet (compute does not depend on the weights)."""
import json
import time

import torch

from proceedings.ovie import experiment as e
from proceedings.ovie.baselines import inpaint, lift, warp
from proceedings.ovie.camera import intrinsics
from proceedings.ovie.depth import load_estimator
from proceedings.ovie.geometry import plucker, pose_encoding
from proceedings.ovie.networks import NovelViewNet
from proceedings.ovie.worlds import RenderSpec, render_set

torch.set_num_threads(1)


def ms_per_call(fn, calls: int = 200, rounds: int = 7) -> float:
    fn()
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls)
    return round(1e3 * best, 3)


cfg = e.experiment_config("small", 0)
size, K = cfg.size, intrinsics(cfg.size)
estimator = load_estimator(cfg.depth, cfg.estimator)
net = NovelViewNet(size, K).eval()
views = render_set(RenderSpec("B", 1, size, e.TEST_SEED, pairs=True))
view = {"rgb": torch.as_tensor(views["rgb"][:1])}
rgb, T = view["rgb"], torch.as_tensor(views["T"][:1])
x, pose = torch.cat([rgb, plucker(T, K, size)], dim=1), pose_encoding(T)
points, valid, normals = lift(estimator, view, K)
warped, visible = warp(rgb, points, valid, normals, K, T)
with torch.no_grad():
    out = {"ovie_pass": ms_per_call(lambda: net(rgb, T)), "ovie_unet_body": ms_per_call(lambda: net.body(x, pose)),
           "ovie_plucker_map": ms_per_call(lambda: plucker(T, K, size)),
           "pipeline_depth_stage": ms_per_call(lambda: lift(estimator, view, K)),
           "estimator_unet_alone": ms_per_call(lambda: estimator.estimate(view)),
           "pipeline_splat": ms_per_call(lambda: warp(rgb, points, valid, normals, K, T)),
           "pipeline_inpaint": ms_per_call(lambda: inpaint(warped, visible))}
out["pipeline_total"] = round(out["pipeline_depth_stage"] + out["pipeline_splat"] + out["pipeline_inpaint"], 3)
out["ratio"] = round(out["pipeline_total"] / out["ovie_pass"], 3)
print(json.dumps({"size": size, "batch": 1, "cpu_ms_per_call": out}, indent=1))
