"""Why OVIE misses its gate (README, small reading): do the sampled pseudo-poses cover the test poses,
and does each trained arm learn the pseudo-pair task itself?

- `pose_statistics`: mean rotation angle, |roll| (how far the target camera's x axis leaves the source's
  horizontal plane: a tilted horizon) and translation of a stack of relative poses.
- `diagnose`: on the A and B test pairs of a finished `reproduce` run (its arms' checkpoints), those
  statistics for the test poses and for poses the training sampler draws from the same sources; the PSNR
  of pseudo-targets built with the *true* pose (how good OVIE's targets are); and each arm's masked PSNR
  on sampled pseudo-pairs beside copying the source (the ablation rows too when the run trained them).
"""

from __future__ import annotations

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import load_checkpoint

ABLATION_ARMS = ("ovie_no_gan", "ovie_A_only", "ovie_no_mask")


def pose_statistics(T: np.ndarray) -> dict[str, float]:
    """(N, 4, 4) T_src->tgt -> mean rotation (deg), mean |roll| (deg) and mean translation (m)."""
    R = np.asarray(T, dtype=float)[:, :3, :3]
    cos = np.clip((np.trace(R, axis1=1, axis2=2) - 1) / 2, -1, 1)
    roll = np.degrees(np.arcsin(np.clip(R[:, 0, 1], -1, 1)))  # row 0 = the target's x axis in the source frame
    return {"rotation_deg": float(np.degrees(np.arccos(cos)).mean()), "abs_roll_deg": float(np.abs(roll).mean()),
            "translation_m": float(np.linalg.norm(np.asarray(T, dtype=float)[:, :3, 3], axis=1).mean())}


@torch.no_grad()
def diagnose(scale: str = "small", seed: int = 0, samples: int = 200) -> dict:
    """The numbers of the README's diagnosis table, per test world."""
    from proceedings.ovie.camera import intrinsics
    from proceedings.ovie.depth import load_estimator
    from proceedings.ovie.experiment import datasets, experiment_config, run_folder
    from proceedings.ovie.metrics import psnr
    from proceedings.ovie.networks import NovelViewNet
    from proceedings.ovie.pairs import PseudoPairs

    cfg = experiment_config(scale, seed)
    K, nets = intrinsics(cfg.size), {}
    for arm in ("mv", "ovie", *ABLATION_ARMS):
        state = load_checkpoint(run_folder(cfg, seed) / f"{arm}.pt")
        if state is None and arm in ABLATION_ARMS:
            continue  # ablation rows only when the run trained them (`ablations=True`)
        if state is None:
            raise ProceedingsError(f"no trained '{arm}' arm for scale {scale}, seed {seed}; run "
                                   f"`proceedings reproduce ovie --scale {scale}` first")
        nets[arm] = NovelViewNet(cfg.size, K, cfg.arch)
        nets[arm].load_state_dict(state["ema"])
        nets[arm].eval()
    estimator, sets, out = load_estimator(cfg.depth, cfg.estimator), datasets(cfg, seed), {}
    for w in "AB":
        test = sets[f"test_{w}"]
        depth, valid = estimator.estimate(test)
        pairs = PseudoPairs(test["rgb"], depth, valid, K, cfg.sampler, cfg.radius, sky_depth=cfg.sky_depth_m)
        sampled = pairs.batch(np.random.default_rng(seed + 1), samples)
        true_pose = pairs.pseudo_pair(np.arange(len(pairs)), torch.as_tensor(test["T"]))
        target, source = torch.as_tensor(test["tgt_rgb"]), torch.as_tensor(test["rgb"])
        masked = {arm: net(sampled.source, sampled.T) for arm, net in nets.items()}
        masked["copy"] = sampled.source
        out[w] = {"test_poses": pose_statistics(test["T"]), "sampled_poses": pose_statistics(sampled.T.numpy()),
                  "true_pose_pseudo_target_psnr": float(np.nanmean(psnr(true_pose.target, target, true_pose.mask))),
                  "copy_psnr_on_that_mask": float(np.nanmean(psnr(source, target, true_pose.mask))),
                  "masked_psnr_on_sampled_pseudo_pairs": {k: float(np.nanmean(psnr(p, sampled.target, sampled.mask)))
                                                          for k, p in masked.items()}}
    return out
