"""Round 18: claims 2 (MPR recovers masked points) and 3 (MPR is free) and G2 for the MF arms of a `long` run whose
record is not finished (B1 still training), read from its checkpoints with a finished run's frozen localiser.

Scores as the record does (`comparison.suite_masks`, `score_suite`, recovery pooled over the five incomplete
suites per clip, `paired_bootstrap` with the record's samples and seed); only the MF arms and copy-I0 are generated
(B1, the oracle, FVMD and ego flow are left out). Usage: r18_claims.py SEED LOCALISER_SEED [MODES] [OUT.json];
MODES a comma list (default full and the five incomplete suites). On seed 0 with its own localiser it must give
that record's numbers (the harness check).
"""
import json
import sys
import time

import numpy as np
import torch

from proceedings.core.runtime import load_checkpoint
from proceedings.motionforcing import evaluators as ev
from proceedings.motionforcing.baselines import copy_first_frame
from proceedings.motionforcing.comparison import INCOMPLETE, datasets, paired_bootstrap, run_folder, score_suite, suite_masks
from proceedings.motionforcing.dataset import batch, metres
from proceedings.motionforcing.experiment import CONFIGS, G2_ABS_REL, G2_COPY_RATIO, G2_HIT, MPR_RATIO, MPR_SLACK_PX
from proceedings.motionforcing.stages import appearance, shape, stage1_net, stage2_net
from proceedings.motionforcing.training import TrainConfig

seed, loc_seed = int(sys.argv[1]), int(sys.argv[2])
modes = sys.argv[3].split(",") if len(sys.argv) > 3 else ["full", *INCOMPLETE]
cfg, T = CONFIGS["long"], CONFIGS["long"].frames
torch.set_num_threads(1)
wall0, cpu0 = time.perf_counter(), time.process_time()
folder, test = run_folder(cfg, seed), datasets(cfg, seed)["test"]


def load(name, net, steps):
    state = load_checkpoint(folder / f"{name}.pt")
    if state is None or state["step"] < steps:
        sys.exit(f"{name} not finished ({None if state is None else state['step']} of {steps} steps)")
    net.load_state_dict(state["model"])
    return net.eval()


s1 = {"mf_mpr": load("stage1_mpr", stage1_net(T, cfg.width_stage1), cfg.steps_stage1),
      "mf_no_mpr": load("stage1_no_mpr", stage1_net(T, cfg.width_stage1), cfg.steps_stage1)}
s2 = load("stage2", stage2_net(T, cfg.width_stage2), cfg.steps_stage2)
localiser, _ = ev.train_localiser(None, TrainConfig(cfg.localiser_steps, cfg.localiser_batch, 3e-3, loc_seed, 50),
                                  run_folder(cfg, loc_seed) / "localiser.pt", None, cfg.localiser_width)
tables = {}
for mode in modes:
    given = suite_masks(test, mode)
    videos = {arm: {"rgb": [], "depth": []} for arm in (*s1, "copy")}
    with torch.no_grad():
        for first in range(0, len(test), 64):
            idx = np.arange(first, min(first + 64, len(test)))
            b = batch(test, idx, given[idx])
            for arm, net in s1.items():
                depth = shape(net, b)
                videos[arm]["depth"].append(metres(depth)[:, :, 0].numpy())
                videos[arm]["rgb"].append(appearance(s2, b.image0, depth).clamp(0, 1).numpy())
            videos["copy"]["rgb"].append(copy_first_frame(b).numpy())
    videos = {arm: {k: np.concatenate(v) for k, v in parts.items() if v} for arm, parts in videos.items()}
    tables[mode] = score_suite(videos, test, given, localiser)
out = {"seed": seed, "localiser_seed": loc_seed, "modes": modes, "suites": {
    m: {arm: {k: v for k, v in row.items() if not k.endswith("per_clip")} for arm, row in t.items() if isinstance(row, dict)}
    for m, t in tables.items()}}
if all(m in tables for m in INCOMPLETE):
    units = {arm: sum((tables[m][arm]["recovery_per_clip"] for m in INCOMPLETE), []) for arm in (*s1, "copy")}
    rec = {arm: float(np.mean([e for e in u if np.isfinite(e)])) for arm, u in units.items()}
    ci = paired_bootstrap(units["mf_mpr"], units["mf_no_mpr"], cfg.bootstrap, seed)
    out["recovery_err"], out["ci_mpr_minus_no_mpr"] = rec, ci
    out["claim2_mpr"] = rec["mf_mpr"] <= MPR_RATIO * rec["mf_no_mpr"] and ci[1] < 0
if "full" in tables:
    full = tables["full"]
    out["claim3_mpr_free"] = full["mf_mpr"]["control_err"] <= full["mf_no_mpr"]["control_err"] + MPR_SLACK_PX
    out["g2_mf_arms"] = all(full[a]["control_err"] <= G2_COPY_RATIO * full["copy"]["control_err"] and full[a]["hit"] >= G2_HIT
                            for a in s1) and full["mf_mpr"]["abs_rel"] <= G2_ABS_REL
out["wall_s"], out["cpu_s"] = round(time.perf_counter() - wall0, 1), round(time.process_time() - cpu0, 1)
text = json.dumps(out, indent=1)
print(text)
if len(sys.argv) > 4:
    open(sys.argv[4], "w").write(text)
