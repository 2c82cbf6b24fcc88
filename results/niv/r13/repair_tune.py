"""Round-13 repair tuning, training fonts only: for the probe models (NIV, small at 1,600 steps, seeds 5 and 6),
each seed's sample of 1,000 training glyphs (reproduce's sample_glyphs with n=1000), every corner of each glyph.
For each glyph the outline check refuses: the first smoothing level k (1..32) that passes, the error of that
smoothed prediction and of the fallback it would replace (B1 shrunk until sound, as convert writes it).
No held-out family is read."""
import json, sys, time
from pathlib import Path
import numpy as np
from proceedings.niv.data import build_dataset, held_out_code_point, split
from proceedings.niv.baselines import AlgorithmicBaseline
from proceedings.niv.contour_repair import repair
from proceedings.niv.evaluate import corner_errors
from proceedings.niv.experiment import CONFIGS, sample_glyphs
from proceedings.niv.model import NIV
from proceedings.niv.outline_check import defects_at_corners, shrink_until_sound
from proceedings.niv.train import predict

t0, c0 = time.perf_counter(), time.process_time()
cfg = CONFIGS["small"]
data = build_dataset(split(cfg.split)["train"], cfg.max_points, cfg.charset, label="train")
train_data = data.where(lambda g: not held_out_code_point(g.unicode))
b1 = AlgorithmicBaseline.fit(train_data.glyphs)
rows = []
for seed in (5,):
    model = NIV.from_pretrained(f"/tmp/niv_r13/probe/seed{seed}-1600/niv")
    glyphs = sample_glyphs(train_data, 1000, seed).glyphs
    for g in glyphs:
        pred = predict(model, [g], g.corners)[0]
        on = g.features[:, 2]
        if not defects_at_corners(g.points, pred, on, g.contour):
            continue
        fixed = repair(g.points, pred, on, g.contour, 32)
        fb = np.stack([shrink_until_sound(g.points, b1.predict(g.points, g.contour, c), on, g.contour)[0]
                       for c in g.corners])
        err = lambda p: float(corner_errors([g], [p]).point.mean())
        rows.append({"seed": seed, "family": g.family, "glyph": g.name, "level": fixed[1] if fixed else None,
                     "raw": err(pred), "repaired": err(fixed[0]) if fixed else None, "fallback": err(fb)})
    print(seed, len(glyphs), "glyphs", sum(r["seed"] == seed for r in rows), "refused", flush=True)
Path("/tmp/niv_r13/repair_tune.json").write_text(json.dumps(rows))
levels = sorted({r["level"] for r in rows if r["level"]})
print("refused", len(rows), "never repaired by 32:", sum(r["level"] is None for r in rows))
chosen = 0
for k in range(1, 33):
    sel = [r for r in rows if r["level"] and r["level"] <= k]
    if not sel:
        continue
    rep, fb = np.mean([r["repaired"] for r in sel]), np.mean([r["fallback"] for r in sel])
    at_k = [r for r in rows if r["level"] == k]
    print(f"k<={k:2d}: repaired {len(sel):3d} (at k {len(at_k)}), error repaired {rep:.2f} vs fallback {fb:.2f}")
    if rep <= fb:
        chosen = k
print("chosen max passes:", chosen, f"wall {time.perf_counter()-t0:.0f} s cpu {time.process_time()-c0:.0f} s")
