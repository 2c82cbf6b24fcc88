"""Round 17: does the requested colour move what the end head paints? (a light read of a probe checkpoint, ~10 CPU-s)
On the easy split's recolour segments (GT history), each segment is asked for each of the 6 object colours in turn
(only the token's `new_color:` word changed, as round 14 did). Inside the recoloured body: the painted colour (the
redraw's colour weighted by its mask opening) read as its nearest object colour -> how often it is the asked one
(chance 1/6); the mean |difference| of the painted colour between two requests against the same between the GT
renders; and with `paint_attn` the paint attention's own colour logits, how far they move between requests.
usage: [SEED=s] [GATED=1] [PAINT_ATTN=1] requests.py CHECKPOINT   (README, "Round 17"; nothing imports it)"""
import copy, itertools, json, os, sys
from dataclasses import replace
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
config = replace(CONFIGS["small"], encoder="structured", seed=int(os.environ.get("SEED", "0")),
                 gated=os.environ.get("GATED") == "1", paint_attn=os.environ.get("PAINT_ATTN") == "1")
model = ChunkGenerator(generator_config(config))
model.load_state_dict(torch.load(sys.argv[1], weights_only=False)["model"])
model.eval()
easy = build_episodes(range(20_000_000, 20_000_000 + config.easy_episodes), segments=3, stage=4, frames=config.frames,
                      size=config.size, max_objects=2, depths=(1,), operators=config.operators)
data = segment_data(easy, config.encoder)
colours, vocab = VOCABULARY["color"], structured_vocabulary()
ids, bodies, gt = [], [], []  # segment, body mask (H, W), GT body colour per requested colour (6, 3)
for e, ep in enumerate(easy):
    for s, prog in enumerate(ep.programs):
        op = prog.ops[0]
        if op.op != "recolor":
            continue
        end, t = ep.scenes[s + 1], 1 + (s + 1) * config.frames
        renders = []
        for c in colours:
            sc = copy.deepcopy(end); objects(sc)[op.target]["color"] = c
            renders.append(render(sc, t, ep.seed, config.size))
        body = (np.max(renders, 0) - np.min(renders, 0)).max(-1) > 0.02
        ids.append(e * 3 + s); bodies.append(body); gt.append(np.stack([r[body].mean(0) for r in renders]))
history, _ = data.chunk(np.array(ids))
values, mask = data.tokens("implicit", np.array(ids))
new_ids = torch.tensor([vocab[f"new_color:{c}"] for c in colours])
captured = {}
if config.paint_attn:
    model.paint_attn.register_forward_hook(lambda m, i, o: captured.update(attn=o))
model._paint = (lambda paint_fn: lambda base, paint, *a, **k: (captured.setdefault("paint", paint),
                                                               paint_fn(base, paint, *a, **k))[1])(model._paint)
painted, attn = [], []  # per request: (N, 3) painted body colour; (N, 3) paint-attention logits in the body
for c in new_ids:
    asked = torch.where(torch.isin(values, new_ids), c, values)  # only the new_color word changes
    captured.clear()
    with torch.no_grad():
        model(history, asked, mask)
        paint = captured["paint"][:, 0]  # (N, 4, H, W)
    opening, colour = torch.sigmoid(paint[:, -1]).numpy(), torch.sigmoid(paint[:, :3]).permute(0, 2, 3, 1).numpy()
    if config.paint_attn:
        attn.append(np.stack([captured["attn"][n].permute(1, 2, 0).numpy()[b].mean(0) for n, b in enumerate(bodies)]))
    painted.append(np.stack([(colour[n][b] * opening[n][b][:, None]).sum(0) / (opening[n][b].sum() + 1e-6)
                             for n, b in enumerate(bodies)]))
painted, gt = np.stack(painted, 1), np.stack(gt)  # (N, 6, 3)
refs = np.array([COLORS[c] for c in colours])
read = np.argmin(((painted[:, :, None] - refs[None, None]) ** 2).sum(-1), -1)  # (N, 6): nearest colour index
pairs = list(itertools.combinations(range(len(colours)), 2))
spread = lambda x: float(np.mean([np.abs(x[:, i] - x[:, j]).mean() for i, j in pairs]))  # noqa: E731
print(json.dumps({"checkpoint": sys.argv[1], "segments": len(ids), "asked_read": round(float(np.mean(
    read == np.arange(len(colours)))), 3), "painted_spread": round(spread(painted), 3), "gt_spread": round(spread(gt), 3),
    "attn_logit_spread": round(spread(np.stack(attn, 1)), 3) if attn else None}))
