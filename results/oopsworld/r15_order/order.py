"""Round 15: recolor-first ordering. B2 (implicit, teacher forcing, structured encoder, round-12 generator) on the
small preset's 4-operator data, one cosine schedule over STEPS; a "recolor" step draws its batch from the segments
whose every op is recolor, any other step from all segments (as train_forcing does).
  blocked:     steps < STEPS/3 are recolor steps, then all operators
  interleaved: every third step (step % 3 == 0) is a recolor step (the same count of recolor batches)
  none:        no recolor steps (train_forcing's sampling; the round-14 baseline)
Read at each listed step on the easy split from GT history (as measure_gates does): change / anchor / DD / excess,
change per operator, and on the recolor segments the recoloured body's colour (requested / old / absent).
Round 16 reuses it with GATED=1: the same run with the generator's gated end heads (README, "Round 16"); round 17
with PAINT_ATTN=1: the end head's colour logits get the 32x32 paint attention (README, "Round 17"); round 18 with
PAINT_GATE=1 (that attention's offset gated per pixel) or COLOUR=w (the end head's colour L1 inside the GT changed
region, weight w) (README, "Round 18"); round 19 with LAYERS=J RAMP=1 LAYER_W=w (J object layers instead of the 8x8
flow, the in-between frames faded in from the end state's redraw, and the layers' split and motions supervised with
the world's own, weight w) (README, "Round 19").
usage: [SEED=s] [GATED=1] [PAINT_ATTN=1] [PAINT_GATE=1] [COLOUR=w] [LAYERS=J RAMP=1 LAYER_W=w] order.py OUT blocked|interleaved|none STEPS[,READ...]   (a rerun resumes from OUT/b2.ckpt.pt)
A throw-away probe driver kept beside its numbers (README, "Round 15"); nothing in the package imports it."""
import collections, copy, json, os, sys, time
from dataclasses import replace
from pathlib import Path
import numpy as np, torch
from proceedings.core.runtime import set_threads
from proceedings.oopsworld.data import build_episodes
from proceedings.oopsworld.evaluate import generate_from_gt, gt_videos, score_videos
from proceedings.oopsworld.experiment import CONFIGS, generator_config, training_data
from proceedings.oopsworld.generator import ChunkGenerator
from proceedings.oopsworld.probes import SchemaReaders
from proceedings.oopsworld.taxonomy import VOCABULARY, objects
from proceedings.oopsworld.training import TrainConfig, _loop, forcing_loss, segment_data
from proceedings.oopsworld.world import render

set_threads()
out, order, reads = Path(sys.argv[1]), sys.argv[2], [int(s) for s in sys.argv[3].split(",")]
steps = reads[-1]
config = replace(CONFIGS["small"], encoder="structured", seed=int(os.environ.get("SEED", "0")),  # SEED: data + init
                 gated=os.environ.get("GATED") == "1", paint_attn=os.environ.get("PAINT_ATTN") == "1",
                 paint_gate=os.environ.get("PAINT_GATE") == "1", colour_weight=float(os.environ.get("COLOUR", "0")),
                 layers=int(os.environ.get("LAYERS", "0")), ramp=os.environ.get("RAMP") == "1",
                 layer_weight=float(os.environ.get("LAYER_W", "0")))
out.mkdir(parents=True, exist_ok=True)
t0, w0 = time.process_time(), time.time()
data = training_data(config)
train = build_episodes(range(config.seed * 100_000, config.seed * 100_000 + config.train_episodes),
                       segments=config.train_segments, stage=None, frames=config.frames, size=config.size,
                       max_objects=config.max_objects, operators=config.operators)
recolor_pool = np.array([e * data.segments + s for e, ep in enumerate(train) for s, p in enumerate(ep.programs)
                         if all(o.op == "recolor" for o in p.ops)])
print(f"recolor-only training segments: {len(recolor_pool)} of {data.count}", flush=True)


def is_recolor_step(i: int) -> bool:
    return {"blocked": i < steps // 3, "interleaved": i % 3 == 0, "none": False}[order]


def step(rng, i):
    ids = rng.choice(recolor_pool, config.batch) if is_recolor_step(i) else rng.integers(0, data.count, config.batch)
    history, target = data.chunk(ids)
    values, mask = data.tokens("implicit", ids)
    return forcing_loss(model, history, target, values, mask, tc, data.layers.take(ids) if tc.layer_weight else None)


easy = build_episodes(range(20_000_000, 20_000_000 + config.easy_episodes), segments=3, stage=4, frames=config.frames,
                      size=config.size, max_objects=2, depths=(1,), operators=config.operators)
easy_data = segment_data(easy, config.encoder)
readers = SchemaReaders(config.size)
dd_gt = float(np.nanmean(score_videos(gt_videos(easy_data), easy, readers, with_quality=False).dd))

bodies = []  # (e, s, body mask, candidate colours' mean body rgb, requested, old)
for e, ep in enumerate(easy):
    for s, prog in enumerate(ep.programs):
        op = prog.ops[0]
        if op.op != "recolor":
            continue
        end, t = ep.scenes[s + 1], 1 + (s + 1) * config.frames
        cands = {}
        for c in VOCABULARY["color"]:
            sc = copy.deepcopy(end); objects(sc)[op.target]["color"] = c
            cands[c] = render(sc, t, ep.seed, config.size)
        sc = copy.deepcopy(end); sc["local"] = [o for o in sc["local"] if o["id"] != op.target]
        cands["<absent>"] = render(sc, t, ep.seed, config.size)
        stack = np.stack([cands[c] for c in VOCABULARY["color"]])
        body = (stack.max(0) - stack.min(0)).max(-1) > 0.02
        bodies.append((e, s, body, {k: v[body].mean(0) for k, v in cands.items()}, op.args["color"],
                       objects(ep.scenes[s])[op.target]["color"]))


def body_colour(videos):
    n = collections.Counter()
    for e, s, body, refs, new, old in bodies:
        rgb = videos[e, 2 + (s + 1) * config.frames - 1][body].mean(0)
        near = min(refs, key=lambda k: float(((refs[k] - rgb) ** 2).sum()))
        n["requested"] += near == new; n["old"] += near == old; n["absent"] += near == "<absent>"
    return {k: round(n[k] / len(bodies), 2) for k in ("requested", "old", "absent")}


def per_op(videos):
    right = collections.defaultdict(list)
    for e, ep in enumerate(easy):
        for s in range(3):
            plist = [p for p in ep.probes if p.segment == s]
            ok = readers.answer([videos[e, 2 + (s + 1) * config.frames - 1]], [(ep, s)], [plist])[0]
            right[ep.programs[s].ops[0].op].extend(ok[[p.kind == "change" for p in plist]])
    return {k: round(float(np.mean(v)), 2) for k, v in sorted(right.items())}


torch.manual_seed(config.seed)
model = ChunkGenerator(generator_config(config))
tc = TrainConfig(steps, config.batch, config.lr, config.change_weight, config.end_weight, config.colour_weight,
                 config.layer_weight, seed=config.seed)
print(f"setup cpu {time.process_time() - t0:.1f} s, recolor segments in the easy split {len(bodies)}", flush=True)
for n in reads:
    if (out / f"read_{n}.json").exists():
        print((out / f"read_{n}.json").read_text(), "(read before)", flush=True)
        continue
    c0 = time.process_time()
    _loop(model, tc, step, out / "b2.ckpt.pt", f"B2 {order}", until=n)
    videos = generate_from_gt(model, easy_data, "implicit")
    s = score_videos(videos, easy, readers, with_quality=False).summary(dd_gt)
    row = {"order": order, "gated": config.gated, "paint_attn": config.paint_attn,
           **({"paint_gate": True} if config.paint_gate else {}),
           **({"colour_weight": config.colour_weight} if config.colour_weight else {}),
           **({"layers": config.layers, "ramp": config.ramp, "layer_weight": config.layer_weight} if config.layers else {}),
           "step": n, **{k: s[k] for k in ("change_acc", "anchor_acc", "dynamic_degree",
           "excess_dynamic_degree")}, "dd_gt": round(dd_gt, 3), "change_by_op": per_op(videos),
           "recolor_body": body_colour(videos), "cpu_s_piece": round(time.process_time() - c0, 1)}
    print(json.dumps(row), flush=True)
    (out / f"read_{n}.json").write_text(json.dumps(row))
print(f"wall {time.time() - w0:.1f} s, cpu {time.process_time() - t0:.1f} s")
