"""Round-13 gate probe: NIV arm only, small preset at STEPS steps, training seed = glyph-sample seed = SEED;
prints the training-font gate's numbers only (NIV and B0 on reproduce's seeded sample of 200 training glyphs).
Held-out families are never scored here, so the step choice cannot see them."""
import json, sys, time, resource
from dataclasses import replace
from pathlib import Path
from proceedings.niv.data import build_dataset, held_out_code_point, split
from proceedings.niv.baselines import AlgorithmicBaseline
from proceedings.niv.experiment import CONFIGS, TRAIN_FACTOR, sample_glyphs, score_arms
from proceedings.niv.train import train

seed, steps = int(sys.argv[1]), int(sys.argv[2])
cfg = CONFIGS["small"]
t0, c0 = time.perf_counter(), time.process_time()
data = build_dataset(split(cfg.split)["train"], cfg.max_points, cfg.charset, label="train")
train_data = data.where(lambda g: not held_out_code_point(g.unicode))
t_data = (time.perf_counter() - t0, time.process_time() - c0)
b1 = AlgorithmicBaseline.fit(train_data.glyphs)
niv, rec = train(train_data, cfg.model, replace(cfg.train, steps=steps, seed=seed),
                 Path(f"/tmp/niv_r13/probe/seed{seed}-{steps}/niv"), label=f"NIV s{seed} {steps}")
on_train = score_arms(sample_glyphs(train_data, cfg.train_eval_glyphs, seed), {"niv": niv}, b1)
n, b0 = on_train["niv"].summary()["error"], on_train["b0"].summary()["error"]
out = {"seed": seed, "steps": steps, "niv_train_error": n, "b0_train_error": b0, "ratio": n / b0,
       "contrast": n - TRAIN_FACTOR * b0, "loss_drop": rec.drop(), "train_seconds": rec.seconds,
       "data_wall_cpu_s": t_data, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
       "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
print(json.dumps(out))
Path(f"/tmp/niv_r13/probe/seed{seed}-{steps}.json").write_text(json.dumps(out))
