"""Round 19 diagnostic (README, "Round 19"; decides nothing): how well a probe checkpoint's object layers learned the
world's split and motions on the easy split (40 x 3 segments, GT history, operation tokens).
Per operator: the split's pixel accuracy at its best layer order, the mean |displacement error| of the background and
of the objects at the segment's end frame (px), the same for a model that moves nothing (0 px), and the layer loss.
usage: layers_read.py CKPT [SEED]   (the setting of order.py with GATED=1 PAINT_ATTN=1 LAYERS=3 RAMP=1)"""
import collections, itertools, json, sys
from dataclasses import replace
import numpy as np, torch
from proceedings.core.runtime import set_threads
from proceedings.oopsworld.data import build_episodes
from proceedings.oopsworld.experiment import CONFIGS, generator_config
from proceedings.oopsworld.generator import ChunkGenerator
from proceedings.oopsworld.layer_targets import layer_loss
from proceedings.oopsworld.training import segment_data

set_threads()
config = replace(CONFIGS["small"], encoder="structured", seed=int(sys.argv[2]) if len(sys.argv) > 2 else 0,
                 gated=True, paint_attn=True, layers=3, ramp=True)
model = ChunkGenerator(generator_config(config))
model.load_state_dict(torch.load(sys.argv[1], weights_only=False)["model"])
model.eval()
easy = build_episodes(range(20_000_000, 20_000_000 + config.easy_episodes), segments=3, stage=4, frames=config.frames,
                      size=config.size, max_objects=2, depths=(1,), operators=config.operators)
data = segment_data(easy, "structured")
ids = np.arange(data.count)
history, _ = data.chunk(ids)
values, mask = data.tokens("implicit", ids)
labels, target, present = data.layers.take(ids)
with torch.no_grad():
    _, (logits, shift) = model(history, values, mask, with_layers=True)
j = logits.shape[1] - 1
target = torch.nn.functional.pad(target, (0, 0, 0, j + 1 - target.shape[2]))
present = torch.nn.functional.pad(present, (0, j - present.shape[1]))
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for i in range(data.count):
    op = easy[i // 3].programs[i % 3].ops[0].op
    best = None
    for perm in itertools.permutations(range(1, j + 1)):
        order = [0, *perm]
        acc = float((logits[i, order].argmax(0) == labels[i]).float().mean())
        if best is None or acc > best[0]:
            best = (acc, order)
    acc, order = best
    err = (shift[i, -1, order] - target[i, -1]).abs().sum(-1)  # (J+1,) px at the end frame
    r = rows[op]
    r["split_acc"].append(acc)
    r["bg_err_px"].append(float(err[0])); r["bg_still_px"].append(float(target[i, -1, 0].abs().sum()))
    objs = present[i].nonzero()[:, 0] + 1
    if len(objs):
        r["obj_err_px"].append(float(err[objs].mean())); r["obj_still_px"].append(float(target[i, -1, objs].abs().sum(-1).mean()))
    r["layer_loss"].append(float(layer_loss(logits[i:i + 1], shift[i:i + 1], labels[i:i + 1], target[i:i + 1, :, :target.shape[2]],
                                            present[i:i + 1])))
print(json.dumps({op: {k: round(float(np.mean(v)), 3) for k, v in r.items()} | {"segments": len(r["split_acc"])}
                  for op, r in sorted(rows.items())}))
