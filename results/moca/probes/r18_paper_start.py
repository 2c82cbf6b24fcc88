"""Round 18: the `paper` preset builds and starts - its component VAE at full width (2 steps, not a trained VAE),
then one optimiser step of the MoCA arm at full width (d = 512, 12 + 12 blocks, bf16 autocast) on two 128-part
warehouse scenes encoded by that VAE, and one Euler step of sampling 128 components. Batch 2 instead of the preset's
64 and no checkpoint (resumable off): a start, on the CPU, not a run. Writes r18_paper_start.json beside itself."""

import json
import os
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ["PROCEEDINGS_CACHE"] = tempfile.mkdtemp(prefix="moca_r18_", dir="/tmp/moca_r18")
import torch  # noqa: E402

torch.set_num_threads(1)
from proceedings.moca.data.procedural import generate  # noqa: E402
from proceedings.moca.experiment import experiment_config, train_arm, train_component_vae  # noqa: E402
from proceedings.moca.flow import sample  # noqa: E402
from proceedings.moca.model import parameter_count  # noqa: E402


def clock():
    return time.perf_counter(), time.process_time()


def since(start):
    wall, cpu = clock()
    return {"wall_s": round(wall - start[0], 1), "cpu_s": round(cpu - start[1], 1)}


row = {}
start = clock()
train_component_vae("paper", samples=2, steps=2, batch=4)
row["vae_2_steps"] = since(start)
cfg = experiment_config("paper")
cfg = replace(cfg, resumable=False, train=replace(cfg.train, batch=2))
scenes = generate("scene:warehouse", 2, (128, 128), cfg.model.points, seed=0)
start = clock()
model, record = train_arm(cfg, "paper", 0, "moca", scenes, stop_at=1)
row["encode_and_one_step"] = since(start)
row.update(parameters=parameter_count(model), components=[a.n for a in scenes], loss=record.losses,
           step_wall_s=round(record.seconds, 1), step_cpu_s=round(record.cpu_seconds, 1), nan=record.skipped_nan)
start = clock()
z = sample(model, cfg.classes.index("scene:warehouse"), 128, steps=1, cfg=2.0, seed=0)
row["sample_1_euler_step"] = {**since(start), "shape": list(z.shape), "finite": bool(torch.isfinite(z).all())}
row["peak_rss_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
print(json.dumps(row, indent=1))
(Path(sys.argv[0]).parent / "r18_paper_start.json").write_text(json.dumps(row, indent=1) + "\n")
