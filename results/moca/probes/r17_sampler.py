"""Round-17 sampler diagnostic (issue 27): the chairs-only probe's trained arms (r17_probe.py, 3,000 steps, cached
checkpoints) sampled with 20 / 50 / 100 / 200 Euler steps at CFG 2.0 and scored as the probe scores them (part IoU,
violation rate, 1-NNA on the 32 held-out chairs). No training. A diagnostic: the presets keep 20 Euler steps.

usage: r17_sampler.py ARM...  - appends one row per (arm, Euler steps) to r17_sampler.json beside this file.
"""
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from proceedings.core.runtime import seed_everything, set_threads
from proceedings.moca.experiment import generate_for, held_out, train_arm
from proceedings.moca.metrics import fit_assembly, one_nna, part_iou, violation_rate
from r17_probe import KEY, SEED, STEPS, chairs_config

EULER = (20, 50, 100, 200)


def main(arms: list[str]) -> None:
    set_threads()
    seed_everything(SEED)
    cfg = chairs_config()
    train_set, held, held_boxes, eps = held_out(cfg, SEED)
    out = Path(__file__).with_name("r17_sampler.json")
    rows = json.loads(out.read_text()) if out.exists() else []
    for arm in arms:
        model, record = train_arm(cfg, KEY, SEED, arm, train_set, stop_at=0)
        assert record.steps == STEPS, f"{arm} has {record.steps} of {STEPS} steps: run r17_probe.py first"
        for euler in EULER:
            wall, cpu = time.perf_counter(), time.process_time()
            boxes = [fit_assembly(p) for p in generate_for(model, replace(cfg, sample_steps=euler), held, SEED)]
            row = {"arm": arm, "steps": record.steps, "euler_steps": euler, "guidance": cfg.guidance,
                   "part_iou": part_iou(boxes, held_boxes), "violation_rate": violation_rate(boxes, eps),
                   "one_nna": one_nna(boxes, held_boxes), "wall_s": time.perf_counter() - wall,
                   "cpu_s": time.process_time() - cpu}
            rows.append(row)
            out.write_text(json.dumps(rows, indent=1))
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
