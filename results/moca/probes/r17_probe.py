"""Round-17 gate probe (issue 27): one arm of the small preset restricted to chairs, trained to a fixed step count
in resumable lane pieces and scored against the chairs' own data reference (the gate recomputed for the setting).

Outside the package, so the records' presets stay as they are. Changes from `small` (experiment.CONFIGS): classes =
chairs only (6-18 parts; 1,000 training and 32 held-out chairs, the same seeds as small's chair share) and the
cosine horizon = STEPS = 3,000 (round 3's probe used the same 3,000-step horizon on all three classes). Everything
else is small's: L = 16, d = 64, 2+2 blocks, batch 16, AdamW 2e-3, 30 warm-up steps, EMA sampling, 20 Euler
steps, CFG 2.0, seed 0.

usage: r17_probe.py ARM MAX_SECONDS  - trains ARM until STEPS or MAX_SECONDS of training wall time
(checkpointed under $PROCEEDINGS_CACHE/moca/small-chairs-r17-seed0/), then evaluates the EMA weights at the step
reached and appends the row to r17_chairs_<arm>.json beside this file.
"""
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from proceedings.core.runtime import seed_everything, set_threads
from proceedings.moca.experiment import CONFIGS, GATE_IOU_SHARE, evaluate_arm, held_out, train_arm
from proceedings.moca.metrics import part_iou, violation_rate

STEPS, SEED, KEY = 3000, 0, "small-chairs-r17"


def chairs_config():
    small = CONFIGS["small"]
    return replace(small, classes=["chair"], components={"chair": small.components["chair"]},
                   model=replace(small.model, classes=["chair"]),
                   train=replace(small.train, steps=STEPS, seed=SEED, checkpoint_every=250))


def main(arm: str, max_seconds: float) -> None:
    set_threads()
    seed_everything(SEED)
    cfg = chairs_config()
    wall, cpu = time.perf_counter(), time.process_time()
    train_set, held, held_boxes, eps = held_out(cfg, SEED)
    reference = part_iou(held_boxes, held_boxes, exclude_self=True)
    model, record = train_arm(cfg, KEY, SEED, arm, train_set, max_seconds=max_seconds)
    eval_wall, eval_cpu = time.perf_counter(), time.process_time()
    metrics, _ = evaluate_arm(model, record, cfg, held, held_boxes, eps, SEED)
    row = {"arm": arm, "steps": record.steps, "part_iou": metrics["part_iou"],
           "gate_part_iou": GATE_IOU_SHARE * reference, "reference_part_iou": reference, "epsilon": eps,
           "grammar_violation_rate": violation_rate(held_boxes, eps), "violation_rate": metrics["violation_rate"],
           "one_nna": metrics["one_nna"], "loss_last_50": float(np.mean(record.losses[-50:])),
           "train_wall_s": record.seconds, "train_cpu_s": record.cpu_seconds,
           "eval_wall_s": time.perf_counter() - eval_wall, "eval_cpu_s": time.process_time() - eval_cpu,
           "piece_wall_s": time.perf_counter() - wall, "piece_cpu_s": time.process_time() - cpu,
           "sample_s_per_assembly": metrics["sample_s_per_assembly"], "parameters": metrics["parameters"]}
    out = Path(__file__).with_name(f"r17_chairs_{arm}.json")
    rows = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(rows + [row], indent=1))
    print(json.dumps(row, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
