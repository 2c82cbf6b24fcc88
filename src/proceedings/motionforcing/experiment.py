"""Motion Forcing's comparison (issue 30): the presets, `reproduce(scale)` and the verdict.

Arms, all one UNet family, trained on the same clips in the same batch order with the same schedule:
MF+MPR (stage 1 with Masked Point Recovery, stage 2), MF without MPR (stage 1 on full points, the same
stage 2), B1+MPR (direct points -> RGB, parameters matched to stage 1 + stage 2 within 5 %, steps =
stage-1 + stage-2 steps, the same masks), copy-I0, and oracle depth -> stage 2 (upper bound); the run
itself is `comparison.py`. Gates G1 (the evaluators work on ground truth) and G2 (every arm learned to
follow points) first, then the paper's claims. This module imports nothing heavy, so the paper scale
(the CogVideoX backend) stops in well under 5 s without local weights (`preflight`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from proceedings.core.errors import ProceedingsError
from proceedings.core.results import Result
from proceedings.core.runtime import check_scale
from proceedings.motionforcing.cogvideox import require_weights

CLAIM = ("Decomposing controllable driving-video generation into sparse points -> dynamic depth -> appearance, "
         "trained with Masked Point Recovery, follows sparse 2D controls and recovers masked or future motion "
         "better than a direct points -> video model of equal capacity, without hurting the fully observed case.")
PAPER = {"fvmd_arxiv_summary": 205.2}
PAPER_SOURCE = "spec §1: FVMD 205.2 quoted in a public summary of arXiv 2603.10408; the abstract states no number"
MPR_RATIO, HIERARCHY_RATIO, MPR_SLACK_PX, FULL_SLACK_PX, PSNR_SLACK_DB = 0.9, 0.9, 0.2, 0.25, 1.0  # issue 30
G2_COPY_RATIO, G2_HIT, G2_ABS_REL = 0.5, 0.6, 0.2
G1_LOCALISER_PX, G1_HIT, G1_EGO_EPE, G1_FVMD_RATIO = 0.5, 0.95, 0.3, 0.2


@dataclass
class ExperimentConfig:
    size: int
    frames: int
    train_clips: int
    test_clips: int
    ego_scenes: int  # x 4 ego paths
    width_stage1: int
    width_stage2: int
    steps_stage1: int
    steps_stage2: int
    localiser_steps: int
    localiser_batch: int = 64
    localiser_width: int = 16
    batch: int = 8
    lr: float = 1e-3
    agents: tuple[int, int] = (2, 5)
    stage2_gt_fraction: float = 0.5  # spec §5: stage 2 on a 50/50 mix of GT and frozen stage-1 depth
    bootstrap: int = 2000
    backend: str = "unet"


CONFIGS = {
    # issue 30 tiny: 24 px, T = 6, 128 clips, ~80 steps per model; same rule, not expected to pass.
    "tiny": ExperimentConfig(size=24, frames=6, train_clips=128, test_clips=16, ego_scenes=2, width_stage1=8,
                             width_stage2=8, steps_stage1=60, steps_stage2=40, localiser_steps=80,
                             localiser_batch=32, localiser_width=8, agents=(2, 4), bootstrap=1000),
    # laptop scale: 32 px, T = 8, >= 300 test clips per suite. Each MF network 1,500 steps, B1 their sum (3,000):
    # raised from 500 / 300 after G2 failed (round 5 probes, README: stage 2 at 300 steps left even ground-truth
    # depth at 3.70 px, 1,500 steps 2.21; stage 1 at 1,500 steps AbsRel 0.46 -> 0.26), the same rule for every arm.
    "small": ExperimentConfig(size=32, frames=8, train_clips=1500, test_clips=300, ego_scenes=75, width_stage1=16,
                              width_stage2=16, steps_stage1=1500, steps_stage2=1500, localiser_steps=400),
    # paper scale: the CogVideoX-5B-I2V backend with the released Motion Forcing transformer (GPU, local weights).
    "paper": ExperimentConfig(size=480, frames=49, train_clips=0, test_clips=300, ego_scenes=75, width_stage1=0,
                              width_stage2=0, steps_stage1=0, steps_stage2=0, localiser_steps=400,
                              backend="cogvideox"),
}
# long: small with 6,000 steps per MF network and B1 their sum (12,000), chosen after G2 failed at 1,500 (README,
# round 17: the MPR arm's stage-1 AbsRel 0.259; 0.180 in a one-seed 6,000-step probe); ~48 min, past small's 20.
CONFIGS["long"] = replace(CONFIGS["small"], steps_stage1=6000, steps_stage2=6000)
OPTIONAL_SCALES = ("long",)  # core/runtime.py: the scales beyond tiny / small / paper this system offers
BUDGET_ENV = "PROCEEDINGS_MOTIONFORCING_MAX_MINUTES"  # staged runs: pause (checkpointed) after this many minutes
WEIGHTS_ENV = ("PROCEEDINGS_MOTIONFORCING_BASE", "PROCEEDINGS_MOTIONFORCING_TRANSFORMER")  # paper scale's weights


def preflight(scale: str) -> None:
    """Stop before torch loads when the scale cannot run: paper needs local CogVideoX weights (spec §8 check 8)."""
    if CONFIGS[check_scale(scale)].backend == "cogvideox":
        require_weights(*(os.environ.get(name) for name in WEIGHTS_ENV), names=tuple(f"${n}" for n in WEIGHTS_ENV))
        raise ProceedingsError("paper scale found its CogVideoX weights; the comparison on the released transformer "
                               "(point and depth-warp latents, a GPU) is not wired in this build (README)")


def reproduce(scale: str, seed: int = 0) -> Result:
    """Data -> stage 1 (MPR / full) -> stage 2 -> B1 -> frozen evaluators -> suites -> verdict (`comparison.run`)."""
    preflight(scale)
    from proceedings.motionforcing.comparison import run

    return run(scale, seed)


def contrasts(metrics: dict, baseline: dict) -> dict[str, float]:
    """The paired recovery differences behind the clip CIs, one number per seed: MF+MPR minus MF without MPR and
    MF+MPR minus B1+MPR on masked points. Every arm is scored on the same clips, so each is the mean over clips of
    the paired differences that `comparison.paired_bootstrap` resamples; over seeds the verdict reads their
    Student-t seed interval (`core.seeds.combine` stores them as `metrics.contrasts`)."""
    return {"mpr_minus_no_mpr_recovery": metrics["recovery_err"] - metrics["no_mpr"]["recovery_err"],
            "mf_minus_direct_recovery": metrics["recovery_err"] - baseline["recovery_err"]}


def recovery_margin_below_zero(metrics: dict, intervals: dict | None, name: str) -> bool:
    """Issue 30's paired 95 % CI over test clips lies below 0. Several seeds (`intervals`; rule set in round 19,
    after seeds 0 and 1 were measured): every seed's clip CI (`mean_record` keeps them as {"per_seed": [...]})
    and the Student-t seed interval of the per-seed paired difference (`contrasts`) lie below 0."""
    clip = metrics["ci"][name]
    highs = [ci[1] for ci in clip["per_seed"]] if isinstance(clip, dict) else [clip[1]]
    if intervals:
        path = f"metrics.contrasts.{name}"
        if path not in intervals:
            raise ProceedingsError(f"a several-seed record without {path}: combine the seeds with `proceedings "
                                   "combine motionforcing`, which adds each seed's paired differences")
        highs.append(intervals[path][1])
    return all(high < 0 for high in highs)


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates G1 and G2 first, then issue 30's claims 2-6; every threshold fixed in the issue before measuring.
    Several seeds: every number is the seeds' mean, and the two clip-CI margins also need their seed interval
    (`recovery_margin_below_zero`)."""
    m, b = metrics, baseline
    trained = [(m["control_err_full"], m["hit_full"]), (m["no_mpr"]["control_err_full"], m["no_mpr"]["hit_full"]),
               (b["control_err_full"], b["hit_full"])]
    copy = m["copy"]["control_err_full"]
    return {
        f"G1: the localiser on GT is within {G1_LOCALISER_PX} px on average, hit rate (<= 1.5 px) >= {G1_HIT}":
            m["localiser_gt_err"] <= G1_LOCALISER_PX and m["localiser_gt_hit"] >= G1_HIT,
        f"G1: ego-flow EPE on GT <= {G1_EGO_EPE} px": m["ego_epe_gt"] <= G1_EGO_EPE,
        f"G1: FVMD-proxy(GT, GT') < {G1_FVMD_RATIO} x FVMD-proxy(GT, copy-I0)":
            m["fvmd_gt_twin"] < G1_FVMD_RATIO * m["fvmd_gt_copy"],
        f"G2: on full points every trained arm's control error <= {G2_COPY_RATIO} x copy-I0's, hit rate >= {G2_HIT}":
            all(err <= G2_COPY_RATIO * copy and hit >= G2_HIT for err, hit in trained),
        f"G2: stage-1 depth AbsRel on agents <= {G2_ABS_REL}": m["abs_rel_full"] <= G2_ABS_REL,
        f"MPR: recovery error on masked points <= {MPR_RATIO} x MF without MPR's, paired CI of the difference < 0":
            m["recovery_err"] <= MPR_RATIO * m["no_mpr"]["recovery_err"]
            and recovery_margin_below_zero(m, intervals, "mpr_minus_no_mpr_recovery"),
        f"MPR is free: full-points control error <= MF without MPR's + {MPR_SLACK_PX} px":
            m["control_err_full"] <= m["no_mpr"]["control_err_full"] + MPR_SLACK_PX,
        f"hierarchy where depth matters: recovery error <= {HIERARCHY_RATIO} x B1+MPR's (paired CI < 0) and a lower "
        "FVMD-proxy on the future-cut split":
            m["recovery_err"] <= HIERARCHY_RATIO * b["recovery_err"]
            and recovery_margin_below_zero(m, intervals, "mf_minus_direct_recovery")
            and m["fvmd_future"] < b["fvmd_future"],
        f"hierarchy non-inferior on full points: control error <= B1+MPR's + {FULL_SLACK_PX} px, PSNR >= B1+MPR's "
        f"- {PSNR_SLACK_DB:g} dB":
            m["control_err_full"] <= b["control_err_full"] + FULL_SLACK_PX and m["psnr_full"] >= b["psnr_full"] - PSNR_SLACK_DB,
        f"decoupling on ego-only: ego EPE < B1+MPR's, control error <= {G2_COPY_RATIO} x copy-I0's with hit rate >= {G2_HIT}":
            m["ego_epe_ego_only"] < b["ego_epe_ego_only"]
            and m["control_err_ego_only"] <= G2_COPY_RATIO * m["copy"]["control_err_ego_only"]
            and m["hit_ego_only"] >= G2_HIT,
    }


def notes(metrics: dict, baseline: dict) -> str:
    m, b, n, c = metrics, baseline, metrics["no_mpr"], metrics["copy"]
    return (f"Control error on full points (px): MF+MPR {m['control_err_full']:.2f}, MF w/o MPR {n['control_err_full']:.2f}, "
            f"B1+MPR {b['control_err_full']:.2f}, copy-I0 {c['control_err_full']:.2f}; hit rate {m['hit_full']:.2f} / "
            f"{n['hit_full']:.2f} / {b['hit_full']:.2f}. Recovery error on masked points: {m['recovery_err']:.2f} / "
            f"{n['recovery_err']:.2f} / {b['recovery_err']:.2f} (copy {c['recovery_err']:.2f}); MPR - no MPR 95 % CI "
            f"[{m['ci']['mpr_minus_no_mpr_recovery'][0]:.2f}, {m['ci']['mpr_minus_no_mpr_recovery'][1]:.2f}], MF - B1 "
            f"[{m['ci']['mf_minus_direct_recovery'][0]:.2f}, {m['ci']['mf_minus_direct_recovery'][1]:.2f}]. PSNR "
            f"{m['psnr_full']:.2f} vs B1 {b['psnr_full']:.2f} dB. Ego EPE on ego-only {m['ego_epe_ego_only']:.2f} vs B1 "
            f"{b['ego_epe_ego_only']:.2f} px. Gates on GT: localiser {m['localiser_gt_err']:.2f} px (hit "
            f"{m['localiser_gt_hit']:.2f}), ego EPE {m['ego_epe_gt']:.2f} px, FVMD-proxy GT/GT' {m['fvmd_gt_twin']:.0f} vs "
            f"GT/copy {m['fvmd_gt_copy']:.0f}; stage-1 AbsRel on agents {m['abs_rel_full']:.3f}.")
