"""Round-16 probes: why Masked Point Recovery (spec §2.3) raises stage 1's agent AbsRel on the full-points test
(round 5 record: 0.259 with MPR, 0.202 without). Outside the package, so the record's source digest stays fixed;
reuses r15_probe's record harness (same run folder, data, init, batches, localiser).

diagnose: no training. Agent AbsRel of the record's stage 1s (MPR, no MPR; 1,500 steps) and r15's 3,000-step MPR
  stage 1, split by whether the pixel's agent point was given at that frame, by frame-valid (no point masked in the
  frame, the only regime of the full-points test), and by frame; on the full points, the five test suites and the
  training schedule's own masks (drawn per test clip).
lastpoint: the same three stage 1s on the last frame, with and without that frame's points (last_point_report).
train <variant> <steps>: stage 1 retrained from the record's init on the record's clips and step order, one change:
  spec   - the spec's schedule (drop 0.2, span 0.3, future 0.3); a control for 3,000 steps
  none   - no masking (MF without MPR)
  half   - every MPR probability halved (0.1, 0.15, 0.15)
  future - the future cut alone (p 0.3): the released inference code's causal mode, the one MPR mode it shows
  anneal - the spec's probabilities scaled by 1 - step / steps (MPR fades out; not the spec's: a diagnostic)
  given  - the spec's masks; the agent weight (1 + MOVING_WEIGHT) only where the agent's point was given at that
           frame, so masked agents' pixels count like the background's (still in the loss, spec §2.3)
  PROBE_INIT=mpr|no_mpr starts from the other arm's record init (default: the arm's own), to separate the
  masking from the initial weights; PROBE_WIDTH=24 builds both stage 1s fresh at the spec's medium width
  (24-48-96; a capacity diagnostic). Scored as diagnose scores, plus (with STAGE2=3000) MF control / recovery px
  through r15's 3,000-step stage 2.
"""
import dataclasses, json, os, sys, time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
import r15_probe as r15  # noqa: E402

from proceedings.motionforcing import evaluators as ev, comparison as ex, stages  # noqa: E402
from proceedings.motionforcing.dataset import batch, metres  # noqa: E402
from proceedings.motionforcing.masked_point_recovery import mpr_mask  # noqa: E402
from proceedings.motionforcing.training import TrainConfig, train  # noqa: E402

OUT = Path(os.environ.get("PROBE_OUT", "/tmp/mf_r16"))
cfg, seed, T = r15.cfg, r15.seed, r15.T
SCHEDULES = {"spec": (0.2, 0.3, 0.3), "given": (0.2, 0.3, 0.3), "none": None, "half": (0.1, 0.15, 0.15),
             "future": (0.0, 0.0, 0.3), "anneal": (0.2, 0.3, 0.3)}
SUITES = ("full", *ex.INCOMPLETE, "mpr")


def test_masks(test, mode):
    """The record's suite masks, or (mode 'mpr') the spec's training schedule drawn per test clip."""
    if mode != "mpr":
        return ex.suite_masks(test, mode)
    given = test.given_all()
    for i, row in enumerate(given):
        agents = int(test.present[i].sum())
        row[:agents] &= mpr_mask(agents, test.frames, np.random.default_rng([ex.TEST_SEED, i, 16]))
    return given


def split_abs_rel(depth, data, given):
    """Agent AbsRel (frames 1..T-1) split by the pixel's agent point given / masked and by frame-valid."""
    ids = data.ids[:, 1:].astype(int)  # (N, T-1, H, W)
    agent = ids > 0
    err = np.abs(depth[:, 1:] - data.depth[:, 1:]) / data.depth[:, 1:]
    n, t = np.arange(len(data))[:, None, None, None], np.arange(1, T)[None, :, None, None]
    point = given[n, np.maximum(ids - 1, 0), t] & agent
    valid = (given | ~data.present[:, :, None]).all(1)[:, 1:, None, None]  # (N, T-1, 1, 1): no point masked
    parts = {"all": agent, "given": point, "masked": agent & ~point, "given_valid": point & valid,
             "given_invalid": point & ~valid}
    row = {k: float(err[w].mean()) if w.any() else None for k, w in parts.items()}
    row["masked_share"] = float((agent & ~point).sum() / agent.sum())
    row["by_frame"] = [round(float(err[:, f][agent[:, f]].mean()), 4) for f in range(T - 1)]
    return row


def depth_video(net, data, given):
    return metres(torch.from_numpy(r15.outputs(lambda b: stages.shape(net, b), data, given)))[:, :, 0].numpy()


def depth_report(net, test):
    return {mode: split_abs_rel(depth_video(net, test, given), test, given)
            for mode in SUITES for given in [test_masks(test, mode)]}


def px_report(s1, s2, test, localiser):
    """MF control (given points) and recovery (masked points) px through stage 2, per suite (the record's reads)."""
    scored = ev.scorable(test)
    scored[:, :, 0] = False
    out = {}
    for mode in ("full", *ex.INCOMPLETE):
        given = test_masks(test, mode)
        rgb = np.clip(r15.outputs(lambda b: stages.appearance(s2, b.image0, stages.shape(s1, b)), test, given), 0, 1)
        e = ev.placement_errors(ev.localise(localiser, rgb, test.colours, scored), test, scored)
        control, recovery = e[scored & given], e[scored & ~given]
        out[mode] = {"control_err": float(control.mean()), "hit": float((control <= ev.HIT_PX).mean()),
                     "recovery_err": float(recovery.mean()) if recovery.size else None}
    return out


def diagnosed_nets():
    """The record's stage 1s (MPR, no MPR; 1,500 steps) and r15's 3,000-step MPR stage 1 (the record's loss)."""
    nets = {"record_mpr_1500": r15.loaded(stages.stage1_net(T, cfg.width_stage1), "stage1_mpr"),
            "record_no_mpr_1500": r15.loaded(stages.stage1_net(T, cfg.width_stage1), "stage1_no_mpr")}
    s1 = stages.stage1_net(T, cfg.width_stage1)
    s1.load_state_dict(torch.load(Path("/tmp/mf_r15/ckpt_s1_mpr3000.pt"), weights_only=False)["model"])
    nets["r15_mpr_3000"] = s1.eval().requires_grad_(False)
    return nets


def last_point_report(net, test):
    """Does stage 1 use the last frame's points? Frame T-1's agent AbsRel with every point given and with only
    that frame's points masked (future:T-1), and how far the given point moves the prediction."""
    agent = test.ids[:, -1] > 0
    gt = test.depth[:, -1]
    full, cut = (depth_video(net, test, ex.suite_masks(test, mode))[:, -1] for mode in ("full", f"future:{T - 1}"))
    rel = lambda a, b: float((np.abs(a - b) / gt)[agent].mean())  # noqa: E731
    return {"abs_rel_full": rel(full, gt), "abs_rel_last_masked": rel(cut, gt), "moved_by_point": rel(full, cut)}


def fresh_nets(width):
    """Both stage 1s at another width, built as train_arms builds them (same seed, MPR arm first)."""
    torch.manual_seed(seed)
    return stages.stage1_net(T, width), stages.stage1_net(T, width)


def sampler(data, probabilities, given_weight, fade_over=0):
    """masked_point_recovery.batch_sampler's (seed, step) clips with other MPR probabilities (None: no masking),
    scaled by 1 - step / fade_over when fade_over; `given_weight`: the agent weight only on pixels of agents whose
    point is given at that frame."""
    def sample(step):
        rng = np.random.default_rng([seed, step])
        index = rng.choice(len(data), cfg.batch, replace=False)
        given = data.given_all()[index]
        for row, i in zip(given, index):
            agents = int(data.present[i].sum())
            scale = 1 - step / fade_over if fade_over else 1
            recovery = mpr_mask(agents, data.frames, rng, *(scale * p for p in probabilities or (0.2, 0.3, 0.3)))
            if probabilities:
                row[:agents] &= recovery
        b = batch(data, index, given)
        if not given_weight:
            return b
        ids = data.ids[index].astype(int)  # (B, T, H, W)
        n, t = np.arange(len(index))[:, None, None, None], np.arange(T)[None, :, None, None]
        at = lambda k: (k >= 0) & given[n, np.maximum(k, 0), t]  # noqa: E731
        moving = at(ids - 1) | at(np.broadcast_to(ids[:, :1] - 1, ids.shape))
        return dataclasses.replace(b, moving=torch.from_numpy(moving).float()[:, :, None])

    return sample


def main():
    what = sys.argv[1]
    OUT.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), time.process_time()
    test = r15.load("test", cfg.test_clips, ex.TEST_SEED)
    report = {"probe": sys.argv[1:], "run_folder": str(r15.folder)}
    if what == "diagnose":
        report["models"] = {name: depth_report(net, test) for name, net in diagnosed_nets().items()}
        name = "diagnose"
    elif what == "lastpoint":
        report["models"] = {name: last_point_report(net, test) for name, net in diagnosed_nets().items()}
        name = "lastpoint"
    else:
        variant, steps = sys.argv[2], int(sys.argv[3])
        own = "no_mpr" if variant == "none" else "mpr"
        init = os.environ.get("PROBE_INIT", own)  # whose record init the network starts from
        width = int(os.environ.get("PROBE_WIDTH", cfg.width_stage1))
        name = f"train_{variant}_{steps}" + ("" if init == own else f"_init_{init}") + (
            "" if width == cfg.width_stage1 else f"_w{width}")
        train_set = r15.load("train", cfg.train_clips, 1000 * cfg.train_clips * seed)
        net = (r15.record_nets() if width == cfg.width_stage1 else fresh_nets(width))[{"mpr": 0, "no_mpr": 1}[init]]
        torch.manual_seed(seed)
        log = train(net, stages.shape_loss, sampler(train_set, SCHEDULES[variant], variant == "given",
                                                       steps if variant == "anneal" else 0),
                    TrainConfig(int(os.environ.get("PROBE_SMOKE_STEPS", 0)) or steps, cfg.batch, cfg.lr, seed, 50),
                    OUT / f"ckpt_{name}.pt", desc=f"probe {name}")
        net.eval().requires_grad_(False)
        report.update(steps=steps, train_wall_s=log.wall_s, train_cpu_s=log.cpu_s,
                      final_loss=float(np.mean(log.losses[-10:])), depth=depth_report(net, test))
        if os.environ.get("STAGE2") == "3000":
            localiser = ev.train_localiser(train_set, TrainConfig(cfg.localiser_steps, cfg.localiser_batch, 3e-3, seed,
                                                                  50), r15.folder / "localiser.pt", None,
                                           cfg.localiser_width)[0]
            s2 = stages.stage2_net(T, cfg.width_stage2)
            s2.load_state_dict(torch.load(Path("/tmp/mf_r15/ckpt_s2_steps3000.pt"), weights_only=False)["model"])
            report["px_stage2_3000"] = px_report(net, s2.eval().requires_grad_(False), test, localiser)
    report["probe_wall_s"], report["probe_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    (OUT / f"{name}.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
