"""The comparison run of issue 30 (`experiment.reproduce`): data, every arm, gates, test suites, the record.

Test suites on one set of held-out clips: full points; incomplete (span, future cut at frames 2 and 4,
dropped agent, keyframes only); ego-only (same I0, four ego paths). Frozen evaluators from
`evaluators.py`; margins on masked points as paired bootstrap 95 % CIs over clips; control and recovery
error also per distance bin (spec §9: distant cars are 1-3 px at 32 px).
"""

from __future__ import annotations

import hashlib
import json
import resource
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from proceedings.core.models import cache_root
from proceedings.core.results import Result, artifact_dir, results_root
from proceedings.core.runtime import seed_everything
from proceedings.core.staging import budget_deadline
from proceedings.motionforcing import evaluators as ev
from proceedings.motionforcing.baselines import copy_first_frame, direct, direct_loss, direct_net, matched_direct_width
from proceedings.motionforcing.conditions import mask
from proceedings.motionforcing.dataset import ClipSet, batch, build, metres
from proceedings.motionforcing.ego_flow import ego_epe
from proceedings.motionforcing.experiment import BUDGET_ENV, CLAIM, CONFIGS, PAPER, PAPER_SOURCE, ExperimentConfig, notes, verdict
from proceedings.motionforcing.image_quality import psnr, ssim
from proceedings.motionforcing.masked_point_recovery import batch_sampler
from proceedings.motionforcing.networks import VideoNet, parameters
from proceedings.motionforcing.staged_run import StagedRun, source_digest
from proceedings.motionforcing.stages import (appearance, shape, shape_loss, stage1_net, stage2_loss, stage2_net,
                                              stage2_sampler)
from proceedings.motionforcing.training import TrainConfig, TrainLog, train

TEST_SEED, TWIN_SEED, EGO_SEED = 900_000, 950_000, 980_000  # held-out sets: no training seed reaches these
INCOMPLETE = ("span", "future:2", "future:4", "drop", "keyframes")
EGO_ARMS = ("mf_mpr", "direct_mpr", "copy")  # whose ego EPE is measured on the ego-only suite
DISTANCE_BINS = (0.0, 8.0, 12.0, 1e9)  # metres of the agent's centre depth


def data_folder(name: str, cfg: ExperimentConfig, clips: int, seed: int) -> Path:
    return cache_root() / "motionforcing" / "data" / f"{name}-{cfg.size}px-{cfg.frames}f-{clips}-{seed}-{cfg.agents[1]}"


def datasets(cfg: ExperimentConfig, seed: int, deadline: float | None = None) -> dict[str, ClipSet]:
    """Training clips (per seed), held-out test clips, a disjoint GT' set (the FVMD gate), the ego-only suite."""
    def make(name, clips, first, **kw):
        return build(data_folder(name, cfg, clips, first), clips, cfg.frames, cfg.size, first, agents=cfg.agents,
                     desc=f"render {name}", deadline=deadline, **kw)

    return {"train": make("train", cfg.train_clips, 1000 * cfg.train_clips * seed),
            "test": make("test", cfg.test_clips, TEST_SEED), "twin": make("twin", cfg.test_clips, TWIN_SEED),
            "ego": make("ego", 4 * cfg.ego_scenes, EGO_SEED, ego_variants=True)}


def run_folder(cfg: ExperimentConfig, seed: int) -> Path:
    key = hashlib.sha256(json.dumps([asdict(cfg), seed], default=str).encode()).hexdigest()[:12]
    return cache_root() / "motionforcing" / "runs" / key


@dataclass
class Arms:
    stage1_mpr: VideoNet
    stage1_full: VideoNet
    stage2: VideoNet
    direct: VideoNet
    localiser: ev.Localiser
    logs: dict[str, TrainLog]


def train_arms(cfg: ExperimentConfig, data: ClipSet, seed: int, folder: Path | None = None,
               deadline: float | None = None, temporal: str = "channels") -> Arms:
    """Every network, each from the same seed, on the same (seed, step) batches; checkpointed in the run folder,
    pausing past `deadline` (time.time()). `temporal`: the networks' layout (`networks.py`; the records use
    channels)."""
    folder, logs = folder or run_folder(cfg, seed), {}
    T = cfg.frames
    direct_steps = cfg.steps_stage1 + cfg.steps_stage2  # B1 gets MF's total optimiser steps

    def fit(name: str, net, loss, batches, steps: int, batch_size: int = cfg.batch):
        torch.manual_seed(seed)
        logs[name] = train(net, loss, batches, TrainConfig(steps, batch_size, cfg.lr, seed, checkpoint_every=50),
                           folder / f"{name}.pt", desc=f"train {name}", deadline=deadline)
        return net

    torch.manual_seed(seed)
    s1, s1_full = stage1_net(T, cfg.width_stage1, temporal), stage1_net(T, cfg.width_stage1, temporal)
    s2 = stage2_net(T, cfg.width_stage2, temporal)
    b1 = direct_net(T, matched_direct_width(T, parameters(s1) + parameters(s2), temporal=temporal), temporal)
    masked, full = batch_sampler(data, cfg.batch, seed, masked=True), batch_sampler(data, cfg.batch, seed, masked=False)
    fit("stage1_mpr", s1, shape_loss, masked, cfg.steps_stage1)
    fit("stage1_no_mpr", s1_full, shape_loss, full, cfg.steps_stage1)
    fit("stage2", s2, stage2_loss, stage2_sampler(masked, s1.requires_grad_(False), seed, cfg.stage2_gt_fraction),
        cfg.steps_stage2)
    fit("direct_mpr", b1, direct_loss, masked, direct_steps)
    localiser, logs["localiser"] = ev.train_localiser(
        data, TrainConfig(cfg.localiser_steps, cfg.localiser_batch, 3e-3, seed, 50), folder / "localiser.pt", deadline,
        cfg.localiser_width)
    return Arms(s1, s1_full, s2, b1, localiser, logs)


def suite_masks(data: ClipSet, mode: str) -> np.ndarray:
    """The given-points mask (N, A, T) of a test suite; random parts seeded by (TEST_SEED, clip)."""
    given = data.given_all()
    if mode == "full":
        return given
    for i, row in enumerate(given):
        agents = int(data.present[i].sum())
        row[:agents] &= mask(mode, agents, data.frames, np.random.default_rng([TEST_SEED, i]))
    return given


@torch.no_grad()
def generate(arms: Arms, data: ClipSet, given: np.ndarray, chunk: int = 64) -> dict[str, dict[str, np.ndarray]]:
    """Every arm's videos (N, T, 3, H, W) and the stage-1 depth videos (N, T, H, W) in metres."""
    out: dict[str, dict[str, list]] = {k: {"rgb": [], "depth": []} for k in ("mf_mpr", "mf_no_mpr", "direct_mpr",
                                                                             "oracle", "copy")}
    for first in range(0, len(data), chunk):
        index = np.arange(first, min(first + chunk, len(data)))
        b = batch(data, index, given[index])
        for name, stage1 in (("mf_mpr", arms.stage1_mpr), ("mf_no_mpr", arms.stage1_full)):
            depth = shape(stage1, b)
            out[name]["depth"].append(metres(depth)[:, :, 0].numpy())
            out[name]["rgb"].append(appearance(arms.stage2, b.image0, depth).clamp(0, 1).numpy())
        out["direct_mpr"]["rgb"].append(direct(arms.direct, b).clamp(0, 1).numpy())
        out["oracle"]["rgb"].append(appearance(arms.stage2, b.image0, b.depth).clamp(0, 1).numpy())
        out["copy"]["rgb"].append(copy_first_frame(b).numpy())
    return {arm: {k: np.concatenate(v) for k, v in parts.items() if v} for arm, parts in out.items()}


def _image_scores(video: np.ndarray, data: ClipSet) -> tuple[np.ndarray, np.ndarray]:
    """Per-clip PSNR and SSIM over frames 1..T-1."""
    pred = torch.from_numpy(video[:, 1:]).flatten(0, 1)
    gt = torch.from_numpy(data.rgb[:, 1:]).flatten(0, 1)
    n = len(video)
    return psnr(pred, gt).reshape(n, -1).mean(1).numpy(), ssim(pred, gt).reshape(n, -1).mean(1).numpy()


def score_suite(videos: dict, data: ClipSet, given: np.ndarray, localiser: ev.Localiser) -> dict[str, dict]:
    """Control (given points) and recovery (masked points) errors per arm, image scores, stage-1 AbsRel."""
    scored = ev.scorable(data)
    scored[:, :, 0] = False  # frame 0 is the input image: never scored
    control, recovery = scored & given, scored & ~given
    table = {}
    for arm, v in videos.items():
        errors = ev.placement_errors(ev.localise(localiser, v["rgb"], data.colours, scored), data, scored)
        p, s = _image_scores(v["rgb"], data)
        row = {"control_err": _mean(errors[control]), "hit": _mean(errors[control] <= ev.HIT_PX),
               "recovery_err": _mean(errors[recovery]), "psnr": float(p.mean()), "ssim": float(s.mean()),
               "control_per_clip": _per_clip(errors, control), "recovery_per_clip": _per_clip(errors, recovery),
               "control_by_distance": _by_distance(errors, control, data),
               "recovery_by_distance": _by_distance(errors, recovery, data)}
        if "depth" in v:
            row["abs_rel"] = ev.depth_abs_rel(v["depth"], data)
        table[arm] = row
    table["masked_fraction_per_clip"] = [float(1 - given[i][data.present[i]].mean()) for i in range(len(data))]
    return table


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if np.size(values) else float("nan")


def _per_clip(errors: np.ndarray, where: np.ndarray) -> list[float]:
    return [_mean(e[w]) for e, w in zip(errors, where)]


def _by_distance(errors: np.ndarray, where: np.ndarray, data: ClipSet) -> dict[str, float]:
    depth = data.centre_depth
    return {f"{lo:g}-{hi:g} m" if hi < 1e8 else f">{lo:g} m": _mean(errors[where & (depth >= lo) & (depth < hi)])
            for lo, hi in zip(DISTANCE_BINS[:-1], DISTANCE_BINS[1:])}


def paired_bootstrap(a: list[float], b: list[float], samples: int, seed: int) -> list[float]:
    """95 % interval of mean(a - b) over clips scored in both (clips resampled with replacement)."""
    diff = np.array(a) - np.array(b)
    diff = diff[np.isfinite(diff)]
    if not len(diff):
        return [float("nan"), float("nan")]
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (samples, len(diff)))].mean(1)
    return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]


def gate_numbers(sets: dict[str, ClipSet], localiser: ev.Localiser) -> dict:
    """G1: the frozen evaluators on ground truth (localiser, ego flow, FVMD-proxy of GT vs GT' vs copy-I0)."""
    test = sets["test"]
    scored = ev.scorable(test)
    errors = ev.placement_errors(ev.localise(localiser, test.rgb, test.colours, scored), test, scored)[scored]
    gt_feats = ev.motion_features(test.rgb)
    copy = np.repeat(test.rgb[:, :1], test.frames, 1)
    return {"localiser_gt_err": _mean(errors), "localiser_gt_hit": _mean(errors <= ev.HIT_PX),
            "ego_epe_gt": float(np.nanmean(ego_epe(sets["ego"].rgb, sets["ego"]))),
            "fvmd_gt_twin": ev.frechet(gt_feats, ev.motion_features(sets["twin"].rgb)),
            "fvmd_gt_copy": ev.frechet(gt_feats, ev.motion_features(copy))}


def suite_table(arms: Arms, test: ClipSet, mode: str) -> dict:
    """One incomplete-or-full suite on the test clips: every arm's scores (and FVMD-proxy where the verdict reads it)."""
    given = suite_masks(test, mode)
    videos = generate(arms, test, given)
    table = score_suite(videos, test, given, arms.localiser)
    if mode in ("full", "future:2"):
        gt_feats = ev.motion_features(test.rgb)
        for arm, v in videos.items():
            table[arm]["fvmd"] = ev.frechet(gt_feats, ev.motion_features(v["rgb"]))
    return table


def ego_table(arms: Arms, ego: ClipSet) -> dict:
    """The ego-only suite: every arm's scores, and ego-flow EPE of the arms the verdict reads."""
    videos = generate(arms, ego, ego.given_all())
    table = score_suite(videos, ego, ego.given_all(), arms.localiser)
    for arm in EGO_ARMS:  # the registration costs ~0.04 CPU-s per frame pair: only the arms the verdict reads
        table[arm]["ego_epe"] = float(np.nanmean(ego_epe(videos[arm]["rgb"], ego)))
    return table


def evaluate(arms: Arms, sets: dict[str, ClipSet], cfg: ExperimentConfig, seed: int,
             run: StagedRun | None = None) -> tuple[dict, dict]:
    """Every suite for every arm (each suite a stage of `run` when given); returns the per-suite tables and the
    pooled numbers the verdict reads."""
    stage = run.stage if run else (lambda name, compute: compute())
    tables = {mode: stage(f"suite:{mode}", lambda mode=mode: suite_table(arms, sets["test"], mode))
              for mode in ("full", *INCOMPLETE)}
    tables["ego_only"] = stage("suite:ego_only", lambda: ego_table(arms, sets["ego"]))
    pooled = {}
    for arm in ("mf_mpr", "mf_no_mpr", "direct_mpr", "oracle", "copy"):
        per_clip = sum((tables[m][arm]["recovery_per_clip"] for m in INCOMPLETE), [])
        pooled[arm] = {"recovery_err": _mean(np.array([e for e in per_clip if np.isfinite(e)])),
                       "recovery_units": per_clip}
    pooled["ci"] = {
        "mpr_minus_no_mpr_recovery": paired_bootstrap(pooled["mf_mpr"]["recovery_units"],
                                                      pooled["mf_no_mpr"]["recovery_units"], cfg.bootstrap, seed),
        "mf_minus_direct_recovery": paired_bootstrap(pooled["mf_mpr"]["recovery_units"],
                                                     pooled["direct_mpr"]["recovery_units"], cfg.bootstrap, seed)}
    return tables, pooled


def arm_numbers(tables: dict, pooled: dict, arm: str) -> dict:
    full, ego = tables["full"][arm], tables["ego_only"][arm]
    out = {"control_err_full": full["control_err"], "hit_full": full["hit"], "psnr_full": full["psnr"],
           "ssim_full": full["ssim"], "recovery_err": pooled[arm]["recovery_err"],
           "fvmd_future": tables["future:2"][arm]["fvmd"], "fvmd_full": full["fvmd"],
           "ego_epe_ego_only": ego.get("ego_epe"), "control_err_ego_only": ego["control_err"], "hit_ego_only": ego["hit"]}
    if "abs_rel" in full:
        out["abs_rel_full"] = full["abs_rel"]
    return out


def run(scale: str, seed: int = 0) -> Result:
    """Data -> stage 1 (MPR / full) -> stage 2 -> B1 -> frozen evaluators -> suites -> verdict, in resumable pieces."""
    cfg = CONFIGS[scale]
    seed_everything(seed)
    folder, deadline = run_folder(cfg, seed), budget_deadline(BUDGET_ENV)
    run = StagedRun(folder / f"pieces-{source_digest()}", deadline)
    with run.timed("render"):
        sets = datasets(cfg, seed, deadline)
    with run.timed("train"):
        arms = train_arms(cfg, sets["train"], seed, folder, deadline)
    gates = run.stage("gates", lambda: gate_numbers(sets, arms.localiser))
    tables, pooled = evaluate(arms, sets, cfg, seed, run)
    metrics = {**gates, **arm_numbers(tables, pooled, "mf_mpr"),
               "no_mpr": arm_numbers(tables, pooled, "mf_no_mpr"), "copy": arm_numbers(tables, pooled, "copy"),
               "oracle_depth": arm_numbers(tables, pooled, "oracle"), "ci": pooled["ci"],
               "suites": {mode: {arm: {k: v for k, v in row.items() if not k.endswith("per_clip")}
                                 for arm, row in t.items() if isinstance(row, dict)} for mode, t in tables.items()},
               "parameters": {"stage1": parameters(arms.stage1_mpr), "stage2": parameters(arms.stage2),
                              "direct": parameters(arms.direct)},
               "training": {name: {"steps": len(log.losses), "wall_s": log.wall_s, "cpu_s": log.cpu_s,
                                   "s_per_step": log.wall_s / max(1, len(log.losses)),
                                   "first_loss": log.losses[0] if log.losses else None,
                                   "final_loss": float(np.mean(log.losses[-10:])) if log.losses else None}
                            for name, log in arms.logs.items()},
               "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "staged": run.totals()}
    baseline = {"name": "B1+MPR: direct points -> RGB, parameters matched to stage 1 + stage 2, same masks, "
                        "clips, batch order, schedule and total steps", **arm_numbers(tables, pooled, "direct_mpr")}
    out = artifact_dir("motionforcing", scale)
    artifacts = [plot_recovery(tables, out / "recovery_vs_masked_fraction.png")]
    return Result(
        system="motionforcing", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline), paper=PAPER, paper_source=PAPER_SOURCE,
        config={**asdict(cfg), "direct_width": arms.direct.unet.head.in_channels,
                "matched": "B1+MPR vs MF: the same UNet family, parameters of B1 within 5 % of stage 1 + stage 2, "
                           "optimiser steps of B1 = stage-1 + stage-2 steps, the same clips, (seed, step) batch "
                           "order and MPR masks, AdamW and cosine schedule; MF without MPR differs from MF+MPR only "
                           "in its stage 1 seeing every point (same batches, same stage 2)"},
        seed=seed, notes=notes(metrics, baseline), device="cpu",
        artifacts=[str(p.relative_to(results_root())) for p in artifacts])


def plot_recovery(tables: dict, path: Path) -> Path:
    """Recovery error against the fraction of masked points, per clip of the incomplete suites."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    bins = np.linspace(0, 1, 6)
    for arm, label in (("mf_mpr", "MF+MPR"), ("mf_no_mpr", "MF w/o MPR"), ("direct_mpr", "B1+MPR"), ("copy", "copy-I0")):
        frac = np.concatenate([tables[m]["masked_fraction_per_clip"] for m in INCOMPLETE])
        err = np.concatenate([tables[m][arm]["recovery_per_clip"] for m in INCOMPLETE])
        which = np.digitize(frac, bins[1:-1])
        means = [np.nanmean(err[which == i]) if np.isfinite(err[which == i]).any() else np.nan for i in range(len(bins) - 1)]
        ax.plot((bins[:-1] + bins[1:]) / 2, means, marker="o", label=label)
    ax.set(xlabel="fraction of the clip's points masked", ylabel="recovery error (px)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
