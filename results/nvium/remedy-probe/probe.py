"""Seed 0, small: N-vium (lambda 0.03) trained with spec §2.2's auxiliary per-exit CE, against the lead's
seed-0 baseline and plain N-vium (copied from the round-8 run), all scored and benchmarked in one run."""
import copy, json, sys, time
from dataclasses import replace
from pathlib import Path
from proceedings.core.runtime import seed_everything, set_threads
set_threads(1)
from proceedings.nvium.data import resolve_corpus
from proceedings.nvium.evaluation import evaluate
from proceedings.nvium.experiment import experiment_config
from proceedings.nvium.model import NviumForCausalLM
from proceedings.nvium.speed import benchmark_models
from proceedings.nvium.training import train

SEED = int(__import__("os").environ.get("SEED", "0"))
root = Path("/tmp/nvium-aux") / (f"seed{SEED}" if SEED else "")
variants = {"warmup30": dict(depth_penalty_warmup=0.3),
            "aux-spec": dict(exit_ce_weight=0.1, exit_ce_fraction=0.1),
            "lambda0.01": dict(depth_penalty=0.01),
            "aux0.5-always": dict(exit_ce_weight=0.5, exit_ce_fraction=1.0),
            "warmup30+aux-spec": dict(depth_penalty_warmup=0.3, exit_ce_weight=0.1, exit_ce_fraction=0.1)}
chosen = sys.argv[1:] or list(variants)
cfg = experiment_config("small", SEED)
corpus = resolve_corpus(cfg.corpus, cfg.model.tokenizer)
seed_everything(SEED)
init = NviumForCausalLM(cfg.model)
models = {"baseline": NviumForCausalLM.from_pretrained(root / "ref/baseline"),
          "nvium-plain": NviumForCausalLM.from_pretrained(root / "ref/nvium-lambda0.03")}
for name in chosen:
    m = copy.deepcopy(init)
    rec = train(m, corpus, replace(cfg.train, **{"depth_penalty": 0.03, **variants[name]}), root / name, progress=False)
    if rec.interrupted:
        sys.exit(f"{name} interrupted at step {rec.step}: rerun to resume")
    e = evaluate(m, corpus, cfg.train.seq_len, cfg.eval_tokens)
    print(name, "bpb", e.bpb, "exit_bpb", e.exit_bpb, "mass", e.exit_mass, "depth", e.mean_depth, flush=True)
    print(name, "trained", rec.step, "steps", f"{rec.wall_s:.0f} s wall {rec.cpu_s:.0f} CPU-s",
          "first-step loss", rec.history[0]["loss"], flush=True)
    models[name] = m
plain_first = json.loads((root / "ref/nvium-lambda0.03/log.jsonl").read_text().splitlines()[0])["loss"]
print("plain first-step loss", plain_first)
evals = {n: evaluate(m, corpus, cfg.train.seq_len, cfg.eval_tokens) for n, m in models.items()}
speed = benchmark_models(models, corpus.prompts(cfg.prompts, cfg.prompt_len), cfg.new_tokens,
                         max_pending=cfg.max_pending, seed=SEED)
out = {}
for n in models:
    e, s = evals[n], speed.models[n]
    out[n] = {"bpb": e.bpb, "bpb_delta": e.bpb - evals["baseline"].bpb, "exit_bpb": e.exit_bpb,
              "router_exit_mass": e.exit_mass, "router_mean_depth": e.mean_depth,
              "sampled_mean_depth": s.mean_depth, "speedup": s.speedup, "tokens_per_s": s.tokens_per_s}
    print(n, json.dumps(out[n]), flush=True)
print("load average", speed.bench.load_average)
(root / "result.json").write_text(json.dumps(out, indent=1) + "\n")
