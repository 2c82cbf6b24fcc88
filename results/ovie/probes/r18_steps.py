"""Round 18 (issue 29, lead): are steps the lever for OVIE's gate? `python r18_steps.py SEED STEPS` trains OVIE alone
(the small preset's data, GAN and schedule; only `train.steps` changed) into its own run folder, then scores it and
copy on the A and B test pairs. Rule, fixed before the run: OVIE(A) >= copy(A) + 1 dB at STEPS means more steps for
every arm is the next record (small at STEPS, ~1,300 CPU-s per seed at 1,200); below it, steps alone do not close the
gate at 32 px. SIGTERM checkpoints, a rerun resumes. Writes results/ovie/small/round18_steps{STEPS}_seed{SEED}.json."""
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from proceedings.core.runtime import seed_everything
from proceedings.ovie import experiment as e
from proceedings.ovie.depth import load_estimator
from proceedings.ovie.metrics import paired_bootstrap

start_wall, start_cpu = time.time(), time.process_time()
seed, steps = int(sys.argv[1]), int(sys.argv[2])
base = e.experiment_config("small", seed)
cfg = replace(base, train=replace(base.train, steps=steps))
seed_everything(seed)
sets = e.datasets(cfg, seed)
estimator = load_estimator(cfg.depth, cfg.estimator)
ovie = e.train_arm("ovie", cfg, replace(cfg.train, gan_weight=cfg.gan_weight), e.pseudo_pairs(cfg, sets, estimator),
                   estimator.features, seed)
table, _ = e.evaluate(cfg, sets, {"ovie": ovie.ema}, estimator, estimator.features)
rows = {w: {r: round(s["psnr"], 3) for r, s in table[w].items() if isinstance(s, dict)} for w in "AB"}
out = {"seed": seed, "steps": steps, "run_folder": str(e.run_folder(cfg, seed)), "psnr": rows,
       "ovie_minus_copy_95": {w: paired_bootstrap(table[w]["ovie"]["per_pair_psnr"], table[w]["copy"]["per_pair_psnr"],
                                                  cfg.bootstrap, seed) for w in "AB"},
       "gate_ovie_over_copy_A": rows["A"]["ovie"] - rows["A"]["copy"] >= e.OVIE_OVER_COPY_DB,
       "training": {"wall_s": ovie.log.wall_s, "cpu_s": ovie.log.cpu_s},
       "this_process": {"wall_s": time.time() - start_wall, "cpu_s": time.process_time() - start_cpu}}
path = Path(__file__).parents[1] / "small" / f"round18_steps{steps}_seed{seed}.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out, indent=1))
