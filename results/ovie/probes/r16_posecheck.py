"""Cheap pre-run check: sampled pseudo-pose statistics (old vs pitch law) beside the test poses, oracle depth."""
import time
import numpy as np, torch
from proceedings.ovie.camera import intrinsics
from proceedings.ovie.diagnostics import pose_statistics
from proceedings.ovie.experiment import TRAINING_PITCH_DEG, TEST_SEED
from proceedings.ovie.geometry import PoseSampler, sample_pose, unproject
from proceedings.ovie.worlds import RenderSpec, render_set
K = intrinsics(32)
for w in "AB":
    test = render_set(RenderSpec(w, 200, 32, TEST_SEED, pairs=True))
    pts = unproject(torch.as_tensor(test["depth"]).double(), K).numpy()
    print(w, "test  ", {k: round(v, 2) for k, v in pose_statistics(test["T"]).items()})
    for name, s in (("old   ", PoseSampler()), ("law   ", PoseSampler(pitch_deg=TRAINING_PITCH_DEG))):
        rng = np.random.default_rng(1)
        t0 = time.process_time()
        pick = rng.integers(200, size=200)
        T = np.stack([sample_pose(pts[i], test["valid"][i], rng, s) for i in pick])
        dt = time.process_time() - t0
        print(w, name, {k: round(v, 2) for k, v in pose_statistics(T).items()}, f"{1e3*dt/200:.3f} ms CPU/pose")
