"""Round 16: what the gated recolour head does at step 600 (a light read of a probe checkpoint, ~10 CPU-s).
On the easy split's recolour segments (GT history, implicit tokens), inside the recoloured body (pixels where the
end scene's render differs between the old and the requested colour) and outside it: the recolour head's mask
opening, the nearest object colour of what it paints where it opens (requested / old / other), the same for the
base it paints over (last history frame warped and toned), for the last history frame itself (the reference: the old
colour under GT lighting) and for the generated end frame, and how far the warp/tone moved the base off the last
history frame. Round 17: PAINT_ATTN=1 reads a checkpoint with the paint attention (what is painted then includes it),
and `requests`: each segment asked for each of the 6 colours in turn (only the token's `new_color` word changed, as
round 14 did), how often the painted body colour reads as the asked one (chance 1/6), how far it moves between two
requests (mean |difference| per channel) against the GT renders', and how far the paint attention's logits move.
Round 18: PAINT_GATE=1 reads a checkpoint with the gated paint attention, and `colour` is the nearest colour of the
head's colour in the body before its mask weights it (what round 18's colour loss supervises); with PAINT_GATE=1
also the gate's mean opening inside and outside the body.
usage: [SEED=s] [PAINT_ATTN=1] [PAINT_GATE=1] heads.py CHECKPOINT   (README, "Round 16"; nothing in the package imports it)"""
import copy, json, os, sys
from dataclasses import replace
import itertools
import numpy as np, torch
from proceedings.core.runtime import set_threads
from proceedings.oopsworld.data import build_episodes
from proceedings.oopsworld.encoders import structured_vocabulary
from proceedings.oopsworld.experiment import CONFIGS, generator_config
from proceedings.oopsworld.generator import ChunkGenerator
from proceedings.oopsworld.taxonomy import VOCABULARY, objects
from proceedings.oopsworld.training import segment_data
from proceedings.oopsworld.world import COLORS, render

set_threads()
config = replace(CONFIGS["small"], encoder="structured", gated=True, seed=int(os.environ.get("SEED", "0")),
                 paint_attn=os.environ.get("PAINT_ATTN") == "1", paint_gate=os.environ.get("PAINT_GATE") == "1")
model = ChunkGenerator(generator_config(config))
model.load_state_dict(torch.load(sys.argv[1], weights_only=False)["model"])
model.eval()
easy = build_episodes(range(20_000_000, 20_000_000 + config.easy_episodes), segments=3, stage=4, frames=config.frames,
                      size=config.size, max_objects=2, depths=(1,), operators=config.operators)
data = segment_data(easy, config.encoder)
ids, bodies, wanted, gt = [], [], [], []  # gt: the body's mean GT colour per requestable colour (6, 3)
for e, ep in enumerate(easy):
    for s, prog in enumerate(ep.programs):
        op = prog.ops[0]
        if op.op != "recolor":
            continue
        end, t = ep.scenes[s + 1], 1 + (s + 1) * config.frames
        old = copy.deepcopy(end); objects(old)[op.target]["color"] = objects(ep.scenes[s])[op.target]["color"]
        bodies.append(np.abs(render(end, t, ep.seed, config.size) - render(old, t, ep.seed, config.size)).max(-1) > 0.02)
        ids.append(e * 3 + s); wanted.append((op.args["color"], objects(ep.scenes[s])[op.target]["color"]))
        asked = [copy.deepcopy(end) for _ in VOCABULARY["color"]]
        for scene, c in zip(asked, VOCABULARY["color"]):
            objects(scene)[op.target]["color"] = c
        gt.append(np.stack([render(scene, t, ep.seed, config.size)[bodies[-1]].mean(0) for scene in asked]))
captured = {}
paint_fn = model._paint


def spy(base, paint, *args, **kwargs):
    captured.setdefault("base", base)  # the first call paints the end state: (N, 1, 3, H, W)
    captured.setdefault("paint", paint)  # its paint: the recolour head's (a recolour routes to it alone) (N, 1, 4, H, W)
    return paint_fn(base, paint, *args, **kwargs)


model._paint = spy
if config.paint_gate:  # round 18: where the paint attention's gate opens (sigmoid of its 1x1 conv)
    model.paint_attn.gate.register_forward_hook(lambda m, i, o: [captured.setdefault("gate", torch.sigmoid(o)[:, 0])] and None)
history, _ = data.chunk(np.array(ids))
values, mask = data.tokens("implicit", np.array(ids))
with torch.no_grad():
    frames = model(history, values, mask).clamp(0, 1)
paint = captured["paint"][:, 0]  # (N, 4, H, W)
opening, colour = torch.sigmoid(paint[:, -1]).numpy(), torch.sigmoid(paint[:, :3]).permute(0, 2, 3, 1).numpy()
base, last = captured["base"][:, 0].permute(0, 2, 3, 1).numpy(), history[:, -1].permute(0, 2, 3, 1).numpy()
end = frames[:, -1].permute(0, 2, 3, 1).numpy()
refs = {k: np.array(v) for k, v in COLORS.items()}


def nearest(rgb, new, old):
    name = min(refs, key=lambda k: float(((refs[k] - rgb) ** 2).sum()))
    return "requested" if name == new else "old" if name == old else "other"


rows = {"segments": len(ids), "mask_in_body": [], "mask_outside": [], "paint": [], "colour": [], "base": [], "last": [],
        "end": [], "base_shift_in_body": []}
for n, body in enumerate(bodies):
    w = opening[n][body]
    rows["mask_in_body"].append(float(w.mean())); rows["mask_outside"].append(float(opening[n][~body].mean()))
    rows["paint"].append(nearest((colour[n][body] * w[:, None]).sum(0) / (w.sum() + 1e-6), *wanted[n]))
    rows["colour"].append(nearest(colour[n][body].mean(0), *wanted[n]))
    rows["base"].append(nearest(base[n][body].mean(0), *wanted[n]))
    rows["last"].append(nearest(last[n][body].mean(0), *wanted[n]))
    rows["end"].append(nearest(end[n][body].mean(0), *wanted[n]))
    rows["base_shift_in_body"].append(float(np.abs(base[n][body] - last[n][body]).mean()))
if config.paint_gate:
    gate = captured["gate"].numpy()
    rows["gate_in_body"] = [float(gate[n][b].mean()) for n, b in enumerate(bodies)]
    rows["gate_outside"] = [float(gate[n][~b].mean()) for n, b in enumerate(bodies)]
out = {k: (round(float(np.mean(v)), 3) if k not in ("segments", "paint", "colour", "base", "last", "end") else
           v if k == "segments" else {c: round(v.count(c) / len(v), 2) for c in ("requested", "old", "other")})
       for k, v in rows.items()}


def requests():
    """The painted body colour (N, 6, 3) and the paint attention's body logits (N, 6, 3) per asked colour."""
    new_ids = torch.tensor([structured_vocabulary()[f"new_color:{c}"] for c in VOCABULARY["color"]])
    if config.paint_attn:
        model.paint_attn.register_forward_hook(lambda m, i, o: captured.update(attn=o))
    painted, attn = [], []
    for c in new_ids:
        captured.clear()
        with torch.no_grad():
            model(history, torch.where(torch.isin(values, new_ids), c, values), mask)
        p = captured["paint"][:, 0]
        w, rgb = torch.sigmoid(p[:, -1]).numpy(), torch.sigmoid(p[:, :3]).permute(0, 2, 3, 1).numpy()
        painted.append([(rgb[n][b] * w[n][b][:, None]).sum(0) / (w[n][b].sum() + 1e-6) for n, b in enumerate(bodies)])
        attn.append([captured["attn"][n].permute(1, 2, 0).numpy()[b].mean(0) if config.paint_attn else np.zeros(3)
                     for n, b in enumerate(bodies)])
    return np.array(painted).transpose(1, 0, 2), np.array(attn).transpose(1, 0, 2)


painted, attn = requests()
pairs = list(itertools.combinations(range(len(VOCABULARY["color"])), 2))
spread = lambda x: round(float(np.mean([np.abs(x[:, i] - x[:, j]).mean() for i, j in pairs])), 3)  # noqa: E731
palette = np.array([refs[c] for c in VOCABULARY["color"]])
read = np.argmin(((painted[:, :, None] - palette[None, None]) ** 2).sum(-1), -1)  # (N, 6) nearest colour
out["requests"] = {"asked_read": round(float(np.mean(read == np.arange(len(palette)))), 3),
                   "painted_spread": spread(painted), "gt_spread": spread(np.array(gt)),
                   "attn_logit_spread": spread(attn) if config.paint_attn else None}
print(json.dumps({"checkpoint": sys.argv[1], **out}))
