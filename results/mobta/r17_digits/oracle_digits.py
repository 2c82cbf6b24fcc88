"""Round 17 (issue 22, gate 1): the small preset's mob_T fine-tune in the digits cell format, staged.

`train` resumes the fine-tune in the digits preset's run folder (checkpoint every 10 steps; a piece may be cut by
`timeout`); `sample` draws the oracle's 200 person-days as the preset does and keeps them in the run folder;
`probe` samples the fine-tune's latest checkpoint alike (mid-schedule, not the gate; nothing is kept in the run
folder); `base [n]` samples θ_0 alike (context only; n samples, default the preset's 200). Each stage writes
`<stage>.json` (`probe-step<N>.json`) beside this file.
"""

import json
import resource
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

from proceedings.core.runtime import load_checkpoint, seed_everything
from proceedings.mobta.backbone import backbone
from proceedings.mobta.experiment import (encode_tasks, experiment_config, load_workload, run_folder,
                                          sample_arms, sampling_limits, train_vectors)
from proceedings.mobta.finetuning import trainable_model
from proceedings.mobta.generation import sample
from proceedings.mobta.task_vector import TaskVector
from proceedings.mobta.tokenization import TrajTokenizer

stage, seed = sys.argv[1], 0
wall0, cpu0 = time.perf_counter(), time.process_time()
cfg = replace(experiment_config("small", seed, "digits"), micro_batch=2)  # everything else as the small preset
seed_everything(seed)
base = backbone(cfg.model, TrajTokenizer(cfg.grid, cell_format=cfg.cell_format), seed)
work = load_workload(cfg, seed)
encode_tasks(cfg, base, work, seed)
limits = sampling_limits(cfg, base, work)  # from every task's sequences, as the preset computes them
out = {"stage": stage, "run_folder": str(run_folder(cfg, base)), "limits": limits,
       "startup_s": time.perf_counter() - wall0, "startup_cpu_s": time.process_time() - cpu0}
if stage in ("train", "sample"):
    work.sequences = {"mob_T": work.sequences["mob_T"]}  # the oracle's fine-tune alone
    vectors, logs, _ = train_vectors(cfg, base, work)
    log = asdict(logs["mob_T"])
    out["train_log"] = {**{k: v for k, v in log.items() if k != "losses"},
                        "loss_first_10": sum(log["losses"][:10]) / 10, "loss_last_10": sum(log["losses"][-10:]) / 10,
                        "loss_every_50": log["losses"][::50]}
    if stage == "sample":
        samples, _ = sample_arms(cfg, base, {"oracle": (vectors["mob_T"], "mob")}, limits, seed)
        drawn = samples["oracle"]
elif stage == "probe":
    state = load_checkpoint(run_folder(cfg, base) / "mob_T.pt")
    model = trainable_model(base.model, cfg.recipe)
    model.load_state_dict(state["trainable"], strict=False)
    merged = TaskVector.from_lora(model, base.meta("mob_T")).apply_to(base.model)
    drawn = sample(merged, base.tokenizer, base.ids, "mob", cfg.samples, seed, limits["mob"], cfg.sample_batch)
    losses = state["log"]["losses"]
    out.update(step=state["step"], loss_last_10=sum(losses[-10:]) / 10, train_cpu_s=state["log"]["cpu_s"])
    stage = f"probe-step{state['step']}"
elif stage == "base":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else cfg.samples
    drawn = sample(base.model, base.tokenizer, base.ids, "mob", n, seed, limits["mob"], min(n, cfg.sample_batch))
if stage not in ("train", "startup"):
    out.update(valid=len(drawn.valid), total=drawn.total, validity=drawn.validity, invalid=dict(drawn.invalid),
               sample_tokens=drawn.tokens, sample_wall_s=drawn.wall_s,
               examples=[" ".join(base.tokenizer.encode(t, "mob")) for t in drawn.valid[:3]])
out.update(wall_s=time.perf_counter() - wall0, cpu_s=time.process_time() - cpu0,
           peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
if stage != "startup":
    (Path(__file__).parent / f"{stage}.json").write_text(json.dumps(out, indent=1))
print(json.dumps({k: v for k, v in out.items() if k != "train_log"}, indent=1), out.get("train_log", ""))
