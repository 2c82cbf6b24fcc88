"""Probe a training setting of Orthrus small in resumable pieces (each exits before --budget-s of wall).

State lives in /tmp/orthrus-probe/<name>/: train.pt (train_view's checkpoint), log.json (tau per milestone,
per prompt so a measurement resumes); a probe's log is committed beside this script as <seed>-<setting>.json.
Each piece goes under a heavy-lane lock, e.g. `flock /tmp/proceedings-heavy-b.lock python probe.py ...`. Usage:
  probe.py NAME --seed 2 --lr 1e-3 --steps 120 --milestones 0,60,120 [--train-prompts 160] [--kl 1 --gamma 0.8]
           [--schedule cosine|constant] [--first-slot-causal] [--first-slot-ar]
           [--init PATH] [--prompts 20] [--budget-s 330] [--extend NAME]
Milestone 0 may come last (e.g. 60,120,0): the starting view is rebuilt and measured with the budget left.
--extend NAME (round 19) continues a finished probe's run to --steps: its checkpoint and measured milestones are
copied, and allowed only where every step already taken had the learning rate the longer run would give it (a
constant schedule, the same warm-up step count, every other setting equal), so the result is the longer run's.
"""

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

from proceedings.core.runtime import load_checkpoint, save_checkpoint, seed_everything
from proceedings.core.speculative import speculative_decode
from proceedings.orthrus.consensus import DiffusionDrafter
from proceedings.orthrus.data import loops
from proceedings.orthrus.dual_view import DiffusionView
from proceedings.orthrus.experiment import experiment_config, load_workload
from proceedings.orthrus.training import stable_settings, train_view

p = argparse.ArgumentParser()
p.add_argument("name")
p.add_argument("--seed", type=int, default=2)
p.add_argument("--lr", type=float, default=2e-4)
p.add_argument("--steps", type=int, default=120)
p.add_argument("--train-prompts", type=int, default=160)  # distinct self-distilled training responses
p.add_argument("--kl", type=float, default=1.0)
p.add_argument("--gamma", type=float, default=0.8)
p.add_argument("--warmup", type=float, default=0.02)
p.add_argument("--schedule", default="cosine")
p.add_argument("--milestones", default="0,60,120")
p.add_argument("--init", default="")
p.add_argument("--prompts", type=int, default=20)
p.add_argument("--budget-s", type=float, default=330)
p.add_argument("--first-slot-causal", action="store_true")  # round 17: slot 0 not attending to the masks after it
p.add_argument("--first-slot-ar", action="store_true")  # round 18: ... and computed with the frozen AR projections
p.add_argument("--extend", default="")  # round 19: a finished probe's name, continued to --steps
a = p.parse_args()
t0 = time.perf_counter()
torch.set_num_threads(1)
home = Path("/tmp/orthrus-probe") / a.name
home.mkdir(parents=True, exist_ok=True)
log_path = home / "log.json"
log = json.loads(log_path.read_text()) if log_path.exists() else {"args": vars(a), "milestones": {}}
seed_everything(a.seed)
cfg = replace(experiment_config("small", a.seed), train_prompts=a.train_prompts)
train_cfg = replace(cfg.train, lr=a.lr, steps=a.steps, kl_weight=a.kl, gamma=a.gamma, warmup=a.warmup,
                    schedule=a.schedule, checkpoint_every=5)
work = load_workload(cfg, a.seed)
base = work.base
view = DiffusionView(base, cfg.block_size, a.first_slot_causal, a.first_slot_ar)
ckpt = home / "train.pt"
if a.extend and not ckpt.exists():
    src = Path("/tmp/orthrus-probe") / a.extend
    state = load_checkpoint(src / "train.pt")
    old, new = state["config"], stable_settings(train_cfg)
    same = {k: v for k, v in old.items() if k not in ("steps", "warmup")} == {
        k: v for k, v in new.items() if k not in ("steps", "warmup")}
    if not (same and a.schedule == "constant" and state["record"]["steps"] < a.steps
            and round(old["warmup"] * old["steps"]) == round(a.warmup * a.steps)
            and state["first_slot_causal"] == view.first_slot_causal and state["first_slot_ar"] == view.first_slot_ar):
        sys.exit(f"[{a.name}] --extend {a.extend}: the settings or the warm-up steps differ; not a continuation")
    save_checkpoint(ckpt, {**state, "config": new})
    old_log = json.loads((src / "log.json").read_text())
    log.update(extended_from=a.extend, milestones=old_log["milestones"], train=old_log["train"])
    log_path.write_text(json.dumps(log))
if a.init:
    state = load_checkpoint(a.init)
    view.load_state_dict(state.get("view", state))
start = {k: v.clone() for k, v in view.state_dict().items()}  # the untrained (or --init) view
done = load_checkpoint(ckpt)["record"]["steps"] if ckpt.exists() else 0
if done:
    view.load_state_dict(load_checkpoint(ckpt)["view"])
print(f"[{a.name}] load {time.perf_counter() - t0:.0f} s, at step {done}", flush=True)


def left():
    return a.budget_s - (time.perf_counter() - t0)


for m in [int(x) for x in a.milestones.split(",")]:
    entry = log["milestones"].setdefault(str(m), {"accepted": [], "tokens": []})
    if len(entry["accepted"]) >= a.prompts:
        continue
    while done < m:
        if left() < 75:
            print(f"[{a.name}] budget spent at step {done}", flush=True)
            sys.exit(0)
        c0 = time.process_time()
        rec = train_view(base, view, work.train, train_cfg, checkpoint=ckpt, resume=True,
                         stop_at=min(m, done + 5))
        done = rec.steps
        log.setdefault("train", {})[str(done)] = {"cpu_s": rec.cpu_s, "wall_s": rec.wall_s, "loss": rec.losses[-1]}
        log_path.write_text(json.dumps(log))
        print(f"[{a.name}] step {done} loss {rec.losses[-1]:.3f} cpu {rec.cpu_s:.0f}", flush=True)
    measured = view
    if done > m:  # milestone 0 listed after later ones (round 17: measured last, with what budget is left)
        if m:
            sys.exit(f"[{a.name}] milestone {m} lies behind step {done}; only 0 (the starting view) can be rebuilt")
        measured = DiffusionView(base, cfg.block_size, a.first_slot_causal, a.first_slot_ar)
        measured.load_state_dict(start)
    measured.eval()
    drafter = DiffusionDrafter(base, measured, cfg.block_size)
    for i in range(len(entry["accepted"]), a.prompts):
        if left() < 40:
            print(f"[{a.name}] budget spent measuring step {m} at prompt {i}", flush=True)
            sys.exit(0)
        trace = speculative_decode(base, drafter, work.bench_prompts[i], cfg.new_tokens, cfg.block_size - 1,
                                   eos_token_id=work.eos)
        entry["accepted"].append(trace.extras["accepted"])
        entry["tokens"].append(trace.tokens)
        log_path.write_text(json.dumps(log))
    keep = [not loops(t) for t in entry["tokens"]]
    acc = [x for per, k in zip(entry["accepted"], keep) if k for x in per]
    entry["tau"] = sum(x + 1 for x in acc) / len(acc)
    entry["nonlooping"] = sum(keep)
    log_path.write_text(json.dumps(log))
    print(f"[{a.name}] step {m}: tau {entry['tau']:.3f} on {sum(keep)} non-looping of {a.prompts}", flush=True)
print(f"[{a.name}] done", flush=True)
