"""Round-14 diagnosis (no training): which of Noto Serif's ASCII glyphs reach the fallback with the saved seed-8/9
models, at which corners and why; per-corner smoothing level needed; whether more passes would repair."""
import json, sys, time
import numpy as np
from fontTools.ttLib import TTFont
from proceedings.niv.baselines import AlgorithmicBaseline
from proceedings.niv.contour_repair import smooth_along_contours
from proceedings.niv.convert import static_glyphs, ModelPredictor
from proceedings.niv.export import parse_axes, corner_key
from proceedings.niv.model import NIV
from proceedings.niv.outline_check import defects, simplified_contours, signed_areas
from proceedings.niv.variations import axis_signs, corner_locations, location_vector, font_axes

t0, c0 = time.perf_counter(), time.process_time()
family = sys.argv[1] if len(sys.argv) > 1 else "noto-serif"
out = {}
for seed in (8, 9):
    d = f"/tmp/niv_r13/seed{seed}/niv/small"
    real = TTFont(f"{d}/{family}-real-VF.ttf", lazy=True)
    ranges = font_axes(real)
    axes = ",".join(f"{t}={lo:g}:{dd:g}:{hi:g}" for t, (lo, dd, hi) in ranges.items())
    font = TTFont(f"{d}/{family}-default.ttf")
    corners = corner_locations(axis_signs(parse_axes(axes, font)))
    cv = np.stack([location_vector(c) for c in corners])
    model = NIV.from_pretrained(f"/root/.cache/proceedings/niv/models/small/seed-{seed}/niv")
    glyphs, over = static_glyphs(font, 128)
    preds = ModelPredictor(model).predict(glyphs, cv)
    rows = []
    for g, p in zip(glyphs, preds):
        on = g.features[:, 2]
        raw = [sorted(defects(g.points, g.points + c, on, g.contour)) for c in p]
        if not any(raw):
            continue
        # per-corner: the first smoothing level 1..256 at which that corner passes
        first = [None] * len(p)
        s = p
        for k in range(0, 257):
            if k:
                s = smooth_along_contours(s, g.contour, 1)
            for i in range(len(p)):
                if first[i] is None and not defects(g.points, g.points + s[i], on, g.contour):
                    first[i] = k
            if all(f is not None for f in first):
                break
        # whole glyph needs every corner sound at the same level (convert's rule): first k with all pass
        s, level = p, None
        for k in range(1, 257):
            s = smooth_along_contours(s, g.contour, 1)
            if not any(defects(g.points, g.points + c, on, g.contour) for c in s):
                level = k; break
        rows.append({"glyph": g.name, "points": int((g.contour >= 0).sum()), "contours": int(g.contour.max() + 1),
                     "level": level, "per_corner_first": {str(corner_key(c)): f for c, f in zip(corners, first)},
                     "raw": {str(corner_key(c)): r for c, r in zip(corners, raw) if r}})
    out[seed] = rows
    fb = [r for r in rows if r["level"] is None or r["level"] > 32]
    print(f"seed {seed}: {len(glyphs)} glyphs, refused raw {len(rows)}, level>32 or never {len(fb)}")
    for r in fb:
        print("  ", r["glyph"], r["points"], "pts", r["contours"], "contours; whole-glyph level", r["level"],
              "; per-corner first level", {k: v for k, v in r["per_corner_first"].items() if v}, "; raw", r["raw"])
json.dump(out, open(f"/tmp/niv_r14/diag-{family}.json", "w"), indent=1)
print(f"wall {time.perf_counter()-t0:.0f} s cpu {time.process_time()-c0:.0f} s")
