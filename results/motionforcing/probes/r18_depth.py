"""Round 18: stage-1 agent AbsRel of a `long` run's two stage 1s, read from their checkpoints (no training).

Scores exactly as the record does (`comparison.generate` -> `score_suite`'s `ev.depth_abs_rel`): depth video of
the held-out test clips under each suite's given points, agent pixels of frames 1..T-1. The full-points number
with MPR is G2's AbsRel half (<= 0.2). Used for seed 1 while its record is not finished; run on seed 0 it must
give that record's numbers (the harness check). Usage: r18_depth.py SEED [OUT.json]
"""
import json
import sys
import time

import numpy as np
import torch

from proceedings.core.runtime import load_checkpoint
from proceedings.motionforcing import evaluators as ev
from proceedings.motionforcing.comparison import INCOMPLETE, datasets, run_folder, suite_masks
from proceedings.motionforcing.dataset import batch, metres
from proceedings.motionforcing.experiment import CONFIGS
from proceedings.motionforcing.stages import shape, stage1_net

seed = int(sys.argv[1])
cfg = CONFIGS["long"]
torch.set_num_threads(1)
wall0, cpu0 = time.perf_counter(), time.process_time()
folder = run_folder(cfg, seed)
test = datasets(cfg, seed)["test"]
out = {"seed": seed, "run_folder": str(folder), "abs_rel": {}}
for arm in ("stage1_mpr", "stage1_no_mpr"):
    state = load_checkpoint(folder / f"{arm}.pt")
    if state is None or state["step"] < cfg.steps_stage1:
        out["abs_rel"][arm] = f"not finished (step {None if state is None else state['step']})"
        continue
    net = stage1_net(cfg.frames, cfg.width_stage1)
    net.load_state_dict(state["model"])
    net.eval()
    rows = {}
    for mode in ("full", *INCOMPLETE):
        given = suite_masks(test, mode)
        with torch.no_grad():
            depth = np.concatenate([metres(shape(net, batch(test, idx, given[idx])))[:, :, 0].numpy()
                                    for idx in (np.arange(i, min(i + 64, len(test))) for i in range(0, len(test), 64))])
        rows[mode] = ev.depth_abs_rel(depth, test)
    out["abs_rel"][arm] = rows
out["wall_s"], out["cpu_s"] = round(time.perf_counter() - wall0, 1), round(time.process_time() - cpu0, 1)
text = json.dumps(out, indent=1)
print(text)
if len(sys.argv) > 2:
    open(sys.argv[2], "w").write(text)
