"""Round-15 probes (small preset = the round-14 record: 1,500 steps per MF network, seed 0). Outside the package
so the record's source digest stays fixed.

s2_steps3000[_rescore]: stage 2 retrained from the record's init for 3,000 steps (the record's batches, 50/50 mix
  with the record's frozen stage 1); control error + hit with GT depth (oracle) and with the record's stage-1 depth (MF+MPR;
  rescore: the finished checkpoint again, adding MF without MPR).
s1_edge: both stage-1 arms (MPR, no MPR) retrained from the record's init for 1,500 steps with one loss change
  (chosen after G2 failed): the gradient term gets the L1 term's agent weighting (1 + MOVING_WEIGHT on pixel pairs
  that touch an agent), so the boundary term sees agent boundaries; agent AbsRel on the full-points test set,
  beside the record's checkpoints scored by the same code, and MF control error through the record's stage 2.
s1_edge_mpr3000: the MPR arm's stage 1 with that loss for 3,000 steps; AbsRel, and MF+MPR control error through
  s2_steps3000's stage 2 (both findings together; a re-record would also retrain stage 2 on this stage 1's depth).
s1_mpr3000: the same with the record's loss (the paired control).
"""
import json, os, sys, time
from pathlib import Path

import numpy as np
import torch

from proceedings.motionforcing import evaluators as ev, comparison as ex, stages
from proceedings.motionforcing.baselines import direct_net, matched_direct_width
from proceedings.motionforcing.dataset import batch, build, metres
from proceedings.motionforcing.masked_point_recovery import batch_sampler
from proceedings.motionforcing.networks import parameters
from proceedings.motionforcing.training import TrainConfig, train

OUT = Path(os.environ.get("PROBE_OUT", "/tmp/mf_r15"))
cfg, seed = ex.CONFIGS["small"], 0
SMOKE = int(os.environ.get("PROBE_SMOKE_STEPS", 0))  # smoke test only: this many steps
T = cfg.frames
torch.set_num_threads(1)
folder = ex.run_folder(cfg, seed)


def load(name, clips, first):
    return build(ex.data_folder(name, cfg, clips, first), clips, cfg.frames, cfg.size, first, agents=cfg.agents)


def record_nets():
    """train_arms' construction order, so a retrained network starts from the record's init."""
    torch.manual_seed(seed)
    s1, s1_full = stages.stage1_net(T, cfg.width_stage1), stages.stage1_net(T, cfg.width_stage1)
    s2 = stages.stage2_net(T, cfg.width_stage2)
    direct_net(T, matched_direct_width(T, parameters(s1) + parameters(s2)))
    return s1, s1_full, s2


def loaded(net, name):
    net.load_state_dict(torch.load(folder / f"{name}.pt", weights_only=False)["model"])
    return net.eval().requires_grad_(False)


@torch.no_grad()
def outputs(fn, data, given):
    out = []
    for first in range(0, len(data), 64):
        index = np.arange(first, min(first + 64, len(data)))
        out.append(fn(batch(data, index, given[index])).numpy())
    return np.concatenate(out)


def control(video, data, localiser):
    scored = ev.scorable(data)
    scored[:, :, 0] = False
    e = ev.placement_errors(ev.localise(localiser, np.clip(video, 0, 1), data.colours, scored), data, scored)[scored]
    return {"control_err": float(e.mean()), "hit": float((e <= ev.HIT_PX).mean())}


def edge_gradient_l1(pred, target, moving):
    """Gradient L1 with the agent weighting of weighted_l1 on every pixel pair that touches an agent."""
    total = 0.0
    for dim in (-1, -2):
        n = pred.shape[dim] - 1
        d = lambda x: x.narrow(dim, 1, n) - x.narrow(dim, 0, n)  # noqa: E731
        w = 1 + stages.MOVING_WEIGHT * torch.maximum(moving.narrow(dim, 1, n), moving.narrow(dim, 0, n))
        total = total + ((d(pred) - d(target)).abs() * w).sum() / w.sum()
    return total


def edge_shape_loss(net, b):
    pred = stages.shape(net, b)
    return stages.weighted_l1(pred, b.depth, b.moving) + 0.5 * edge_gradient_l1(pred, b.depth, b.moving)


def main():
    what = sys.argv[1]
    t0, c0 = time.perf_counter(), time.process_time()
    test = load("test", cfg.test_clips, ex.TEST_SEED)
    train_set = load("train", cfg.train_clips, 1000 * cfg.train_clips * seed)
    localiser = ev.train_localiser(train_set, TrainConfig(cfg.localiser_steps, cfg.localiser_batch, 3e-3, seed, 50),
                                   folder / "localiser.pt", None, cfg.localiser_width)[0]
    s1_init, s1_full_init, s2_init = record_nets()
    given = test.given_all()
    masked = batch_sampler(train_set, cfg.batch, seed, masked=True)
    report = {"variant": what, "run_folder": str(folder)}
    if what in ("s2_steps3000", "s2_steps3000_rescore"):  # rescore: the finished checkpoint, every MF arm
        s1 = loaded(stages.stage1_net(T, cfg.width_stage1), "stage1_mpr")
        torch.manual_seed(seed)
        log = train(s2_init, stages.stage2_loss, stages.stage2_sampler(masked, s1, seed, cfg.stage2_gt_fraction),
                    TrainConfig(SMOKE or 3000, cfg.batch, cfg.lr, seed, checkpoint_every=50), OUT / "ckpt_s2_steps3000.pt",
                    desc=f"probe {what}")
        s2 = s2_init.eval()
        report.update(steps=3000, train_wall_s=log.wall_s, train_cpu_s=log.cpu_s,
                      final_loss=float(np.mean(log.losses[-10:])))
        report["oracle"] = control(outputs(lambda b: stages.appearance(s2, b.image0, b.depth), test, given), test, localiser)
        report["mf_mpr"] = control(outputs(lambda b: stages.appearance(s2, b.image0, stages.shape(s1, b)), test, given),
                                   test, localiser)
        if what.endswith("rescore"):
            s1_full = loaded(stages.stage1_net(T, cfg.width_stage1), "stage1_no_mpr")
            report["mf_no_mpr"] = control(outputs(lambda b: stages.appearance(s2, b.image0, stages.shape(s1_full, b)),
                                                  test, given), test, localiser)
    elif what == "s1_edge":
        s2 = loaded(stages.stage2_net(T, cfg.width_stage2), "stage2")
        full = batch_sampler(train_set, cfg.batch, seed, masked=False)
        arms = {}
        for name, net, batches in (("stage1_mpr", s1_init, masked), ("stage1_no_mpr", s1_full_init, full)):
            record = loaded(stages.stage1_net(T, cfg.width_stage1), name)
            torch.manual_seed(seed)
            log = train(net, edge_shape_loss, batches, TrainConfig(SMOKE or cfg.steps_stage1, cfg.batch, cfg.lr, seed, 50),
                        OUT / f"ckpt_{what}_{name}.pt", desc=f"probe {what} {name}")
            row = {"train_wall_s": log.wall_s, "train_cpu_s": log.cpu_s}
            for tag, s1 in (("record", record), ("edge", net.eval().requires_grad_(False))):
                depth = outputs(lambda b: stages.shape(s1, b), test, given)
                row[f"abs_rel_{tag}"] = ev.depth_abs_rel(metres(torch.from_numpy(depth))[:, :, 0].numpy(), test)
                row[f"mf_{tag}"] = control(outputs(lambda b: stages.appearance(s2, b.image0, stages.shape(s1, b)), test,
                                                   given), test, localiser)
            arms[name] = row
        report["arms"] = arms
    elif what in ("s1_edge_mpr3000", "s1_mpr3000"):
        s2 = stages.stage2_net(T, cfg.width_stage2)
        s2.load_state_dict(torch.load(OUT / "ckpt_s2_steps3000.pt", weights_only=False)["model"])
        s2.eval().requires_grad_(False)
        torch.manual_seed(seed)
        loss = edge_shape_loss if "edge" in what else stages.shape_loss
        log = train(s1_init, loss, masked, TrainConfig(SMOKE or 3000, cfg.batch, cfg.lr, seed, 50),
                    OUT / f"ckpt_{what}.pt", desc=f"probe {what}")
        s1 = s1_init.eval().requires_grad_(False)
        depth = outputs(lambda b: stages.shape(s1, b), test, given)
        report.update(steps=3000, train_wall_s=log.wall_s, train_cpu_s=log.cpu_s,
                      abs_rel=ev.depth_abs_rel(metres(torch.from_numpy(depth))[:, :, 0].numpy(), test))
        report["mf_mpr_s2_3000"] = control(outputs(lambda b: stages.appearance(s2, b.image0, stages.shape(s1, b)),
                                                   test, given), test, localiser)
    else:
        raise SystemExit(f"unknown variant {what}")
    report["probe_wall_s"], report["probe_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    (OUT / f"{what}.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
