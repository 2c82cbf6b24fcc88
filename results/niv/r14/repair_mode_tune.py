"""Round-14 rule, training fonts only (committed before it ran): does repairing each refused corner on its own
(corner mode) beat convert's one smoothing level for all corners of a glyph (glyph mode, round 13)?

Models: the saved small models of seeds 8 and 9 (2,000 steps); each on its own seeded sample of 1,000 training
glyphs (reproduce's sample_glyphs with n=1000), every corner of each glyph; cap 32 passes in both modes (round 13's
value, not re-tuned). For each glyph the outline check refuses, each mode's written outline: the repaired one, or,
where the mode repairs no level <= 32, the fallback (B1 shrunk until sound, as convert writes it). Corner mode is
adopted iff (a) it leaves no more glyphs on the fallback than glyph mode and (b) the mean point error (per 1000 UPM)
of the written outlines over every refused glyph, pooled over both seeds, is no higher. No held-out family is read.
Usage: PYTHONPATH=src python results/niv/r14/repair_mode_tune.py OUT.json, with the src of commit 2a59d3f
(`git worktree add /tmp/r 2a59d3f`, PYTHONPATH=/tmp/r/src), whose contour_repair.repair is glyph mode; from 7e4503b on
`repair` is corner mode itself, so both columns would be corner mode."""
import json, sys, time
from pathlib import Path
import numpy as np
from proceedings.niv.baselines import AlgorithmicBaseline
from proceedings.niv.contour_repair import repair, smooth_along_contours
from proceedings.niv.data import build_dataset, held_out_code_point, split
from proceedings.niv.evaluate import corner_errors
from proceedings.niv.experiment import CONFIGS, sample_glyphs, training_dir
from proceedings.niv.model import NIV
from proceedings.niv.outline_check import defects, shrink_until_sound
from proceedings.niv.train import predict

CAP = 32
t0, c0 = time.perf_counter(), time.process_time()
cfg = CONFIGS["small"]
data = build_dataset(split(cfg.split)["train"], cfg.max_points, cfg.charset, label="train")
train_data = data.where(lambda g: not held_out_code_point(g.unicode))
b1 = AlgorithmicBaseline.fit(train_data.glyphs)


def corner_mode(g, pred, on):
    """Each corner as predicted if sound, else its fewest passes <= CAP that make it sound; None if some corner
    has none."""
    out = []
    for d in pred:
        k = 0
        while defects(g.points, g.points + d, on, g.contour):
            k += 1
            if k > CAP:
                return None
            d = smooth_along_contours(d, g.contour, 1)
        out.append(d)
    return np.stack(out)


rows = []
for seed in (8, 9):
    model = NIV.from_pretrained(training_dir("small", seed) / "niv")
    glyphs = sample_glyphs(train_data, 1000, seed).glyphs
    for g in glyphs:
        pred = predict(model, [g], g.corners)[0]
        on = g.features[:, 2]
        if not any(defects(g.points, g.points + d, on, g.contour) for d in pred):
            continue
        fb = np.stack([shrink_until_sound(g.points, b1.predict(g.points, g.contour, c), on, g.contour)[0]
                       for c in g.corners])
        whole, per_corner = repair(g.points, pred, on, g.contour, CAP), corner_mode(g, pred, on)
        err = lambda p: float(corner_errors([g], [p]).point.mean())
        rows.append({"seed": seed, "family": g.family, "glyph": g.name, "raw": err(pred),
                     "glyph_mode": None if whole is None else whole[1],
                     "glyph_written": err(fb if whole is None else whole[0]),
                     "corner_repaired": per_corner is not None,
                     "corner_written": err(fb if per_corner is None else per_corner)})
    print(seed, len(glyphs), "glyphs,", sum(r["seed"] == seed for r in rows), "refused", flush=True)

fallback = {"glyph": sum(r["glyph_mode"] is None for r in rows), "corner": sum(not r["corner_repaired"] for r in rows)}
error = {"glyph": float(np.mean([r["glyph_written"] for r in rows])),
         "corner": float(np.mean([r["corner_written"] for r in rows]))}
adopt = fallback["corner"] <= fallback["glyph"] and error["corner"] <= error["glyph"]
summary = {"refused": len(rows), "fallback": fallback, "written_error": error,
           "raw_error": float(np.mean([r["raw"] for r in rows])), "adopt_corner_mode": adopt,
           "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
print(json.dumps(summary, indent=1))
Path(sys.argv[1]).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
