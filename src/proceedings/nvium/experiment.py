"""reproduce(scale): N-vium against a matched standard transformer on byte-level Shakespeare.

The paper's headline (abstract): "57.9 % wall-clock speedup over a parameter- and data-matched
standard transformer at no perplexity cost". Here: one initial model; the baseline and N-vium for
every lambda of the frontier are trained from it on the same batches; validation bits per byte on
held-out works; sampling speed of every model with the same engine in one run. Reproduced when the
main N-vium's bpb is within 0.02 of the baseline's and its tokens/s are at least 1.2x the baseline's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from proceedings.core.results import Result, artifact_dir, results_root
from proceedings.core.runtime import atomic_write_text, check_scale, seed_everything, stopwatch
from proceedings.nvium.data import SHAKESPEARE, Corpus, resolve_corpus
from proceedings.nvium.evaluation import Evaluation, evaluate, unigram_bpb
from proceedings.nvium.frontier import (BASELINE, SHALLOW, FrontierPoint, TrainedModel, lambda_name, plot_frontier,
                                        train_family, write_csv)
from proceedings.nvium.model import NviumConfig, NviumForCausalLM
from proceedings.nvium.speed import SpeedReport, benchmark_models
from proceedings.nvium.training import TrainConfig

BPB_TOLERANCE = 0.02  # issue 18: mean N-vium bpb <= baseline + 0.02 over 3 seeds
BPB_INTERVAL_TOLERANCE = 0.04  # issue 18: ... and the 95 % interval's upper end <= 0.04
log = logging.getLogger(__name__)

MIN_SPEEDUP = 1.2  # issue 18: tokens/s ratio >= 1.2 at batch 1
DEPTH_GAIN = 0.2  # issue 18 gate: full depth beats the shallow reference by >= 0.2 bpb
BATCH = 8  # issue 18: decoding is also reported at batch 8 (throughput, the batched engine)
MAX_DEPTH_FOR_SPEED = 0.9  # gate: N-vium must skip >= 10 % of the layers for a speed-up to be possible
CLAIM = ("A learned mixture over exits, sampled exactly with deferred upper layers, decodes faster than a "
         "parameter- and data-matched standard transformer at no perplexity cost.")
PAPER = {"speedup": 1.579, "bpb_delta": 0.0}  # 57.9 % read as tokens/s ratio 1.579; "no perplexity cost"


@dataclass
class ExperimentConfig:
    model: NviumConfig
    train: TrainConfig
    lambdas: tuple[float, ...]  # the frontier; the first is the main N-vium the verdict is about
    eval_tokens: int | None  # validation tokens scored (None: every held-out token)
    prompts: int  # decoding benchmark: prompts taken from the held-out works
    prompt_len: int
    new_tokens: int
    max_pending: int = 16  # spec §2.3
    corpus: str = SHAKESPEARE


CONFIGS = {
    # spec §5.2 "tiny": L=4, d=64, exits {1,2,3,4}; a pipeline check, too small to learn much.
    "tiny": ExperimentConfig(
        model=NviumConfig(n_layer=4, d_model=64, n_head=4, d_ff=192, exits=(1, 2, 3, 4), max_seq_len=256),
        train=TrainConfig(steps=100, batch_size=8, seq_len=64, lr=3e-3, warmup_steps=20, checkpoint_every=1000),
        lambdas=(0.03, 0.1), eval_tokens=8192, prompts=8, prompt_len=16, new_tokens=64,
    ),
    # spec §5.2 "small", sized so that depth matters (issue 18's gate) at ~300 CPU-s per 8-layer model.
    # Narrow (d 32) and long (1,500 steps): at d 128 and 300 steps a 2-layer model was only 0.12 bpb worse
    # (round 4); a probe at d 32 measured the 2-layer gap 0.57 -> 0.28 bpb over 150-1,050 steps (README).
    "small": ExperimentConfig(
        model=NviumConfig(n_layer=8, d_model=32, n_head=2, d_ff=96, exits=(2, 4, 6, 8), max_seq_len=256),
        train=TrainConfig(steps=1500, batch_size=8, seq_len=256, lr=6e-3, min_lr=6e-4, warmup_steps=30,
                          checkpoint_every=250),
        lambdas=(0.03,), eval_tokens=None, prompts=16, prompt_len=32, new_tokens=224,
    ),
    # The paper's largest model: ~1.5B parameters, Quadrivium exits, bf16 on GPUs with Accelerate.
    # Point it at a real pretraining corpus; Shakespeare is far too small for this model. batch_size is
    # per process: 4 x 2048 tokens fit one H200 (32 ran out of its 140 GB); 8 GPUs make 32 sequences a step.
    "paper": ExperimentConfig(
        model=NviumConfig(vocab_size=49152, n_layer=28, d_model=2048, n_head=16, n_kv_head=4, d_ff=5632,
                          exits=(7, 14, 21, 28), max_seq_len=2048, tokenizer="smollm2-135m"),
        train=TrainConfig(steps=20000, batch_size=4, seq_len=2048, lr=3e-4, min_lr=3e-5, warmup_steps=2000,
                          device="auto", mixed_precision="bf16", checkpoint_every=500),
        lambdas=(0.03, 0.01, 0.1), eval_tokens=1_000_000, prompts=24, prompt_len=64, new_tokens=256,
    ),
}


def experiment_config(scale: str, seed: int = 0) -> ExperimentConfig:
    cfg = CONFIGS[check_scale(scale)]
    return replace(cfg, train=replace(cfg.train, seed=seed))


def reproduce(scale: str, seed: int = 0) -> Result:
    """Baseline vs N-vium on equal tokens: bits per byte, sampling speed, and the lambda frontier.

    Resumable in short slots (`--seeds 0,1,2` at small is ~40 CPU-minutes): trained models are kept in
    results/nvium/runs/<scale>-seed<seed> (retrained only if the preset changes), a SIGTERM checkpoints
    the model in training and stops, and a seed's measured record is kept in the cache, keyed by the
    preset, the seed and this package's code, so a rerun measures only the seeds still missing.
    """
    cfg = experiment_config(scale, seed)
    measured = _measured_path(cfg, scale, seed)
    if measured.is_file():
        log.info("seed %d: reusing its record measured with the same preset and code (%s)", seed, measured)
        return Result.from_dict(json.loads(measured.read_text()), source=str(measured))
    with stopwatch() as elapsed:
        result = _measure_seed(cfg, scale, seed)
    result.notes += (f" This seed's measurement (models trained or loaded, then scored and benchmarked) took "
                     f"{elapsed.wall_s:.0f} s wall / {elapsed.cpu_s:.0f} CPU-s, finished {result.created}.")
    atomic_write_text(measured, json.dumps(result.to_dict(), indent=1) + "\n")
    return result


def _measure_seed(cfg: ExperimentConfig, scale: str, seed: int) -> Result:
    out = artifact_dir("nvium", scale) / f"seed{seed}"
    corpus = resolve_corpus(cfg.corpus, cfg.model.tokenizer)

    seed_everything(seed)
    init = NviumForCausalLM(cfg.model)
    family = train_family(init, corpus, cfg.train, cfg.lambdas, _runs_dir(cfg, scale, seed))
    evals, speed, points = measure_family(family, corpus, cfg, seed)
    batched = benchmark_models({name: m.model for name, m in family.items()}, corpus.prompts(cfg.prompts, cfg.prompt_len),
                               cfg.new_tokens, max_pending=cfg.max_pending, seed=seed, batch=BATCH, progress=True)

    artifacts = [plot_frontier(points, BPB_TOLERANCE, out / "frontier.png"), write_csv(points, out / "frontier.csv"),
                 *speed.bench.write(out), *batched.bench.write(out, stem=f"bench-batch{BATCH}")]
    main = lambda_name(cfg.lambdas[0])
    per_step = cfg.train.tokens_per_step
    metrics = {**_metrics(family[main], evals[main], speed, batched, main, evals[BASELINE], per_step),
               **_engine_costs(speed, main, family[BASELINE].model.config.n_layer)}
    baseline = {"name": "standard transformer (same weights at init, same batches and optimiser)",
                **_metrics(family[BASELINE], evals[BASELINE], speed, batched, BASELINE, evals[BASELINE], per_step),
                "unigram_bpb": unigram_bpb(corpus), "shallow_bpb_gap": evals[SHALLOW].bpb - evals[BASELINE].bpb,
                "shallow_reference": {"n_layer": family[SHALLOW].model.config.n_layer, "bpb": evals[SHALLOW].bpb,
                                      "speedup": speed.models[SHALLOW].speedup}}
    return Result(
        system="nvium", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline),
        paper=PAPER, paper_source="abstract: 57.9 % wall-clock speedup (read as a tokens/s ratio of 1.579) at no perplexity cost",
        config=asdict(cfg), seed=seed,
        notes=_notes(points, speed), artifacts=[str(p.relative_to(results_root())) for p in artifacts],
        device=str(next(family[BASELINE].model.parameters()).device),
    )


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates first (both arms learn, depth matters, N-vium exits early), then the claim over seeds.

    `intervals` holds the 95 % seed intervals (`--seeds`); without them the interval check fails,
    because one seed cannot carry a 0.02 tolerance (issue 18: seeds 0 and 1 differed by 0.028 bpb).
    """
    delta = metrics["bpb_delta"]
    upper = (intervals or {}).get("metrics.bpb_delta", (delta, math.inf))[1]
    return {
        "gate: both arms beat the unigram model on held-out text":
            max(metrics["bpb"], baseline["bpb"]) < baseline["unigram_bpb"],
        f"gate: depth matters (a standard transformer as deep as the first exit is >= {DEPTH_GAIN} bpb worse)":
            baseline["shallow_bpb_gap"] >= DEPTH_GAIN,
        f"gate: N-vium exits early (sampled depth <= {MAX_DEPTH_FOR_SPEED} of the baseline's)":
            metrics["sampled_mean_depth"] <= MAX_DEPTH_FOR_SPEED,
        f"mean N-vium bpb - baseline bpb <= {BPB_TOLERANCE}": delta <= BPB_TOLERANCE,
        f"upper end of the 95 % seed interval of that difference <= {BPB_INTERVAL_TOLERANCE} (needs --seeds)":
            upper <= BPB_INTERVAL_TOLERANCE,
        f"tokens/s ratio >= {MIN_SPEEDUP} at batch 1 (fair engine, same run)": metrics["speedup"] >= MIN_SPEEDUP,
    }


def _runs_dir(cfg: ExperimentConfig, scale: str, seed: int) -> Path:
    """Training runs of this seed: resumed or reused, unless trained with other settings (model, training,
    lambdas or corpus: what the weights depend on)."""
    runs = results_root() / "nvium" / "runs" / f"{scale}-seed{seed}"
    settings = {"model": asdict(cfg.model), "train": asdict(cfg.train), "lambdas": cfg.lambdas, "corpus": cfg.corpus}
    preset = json.dumps(settings, indent=1, sort_keys=True, default=str) + "\n"
    stamp = runs / "training.json"
    if runs.exists() and (not stamp.is_file() or stamp.read_text() != preset):
        log.info("%s was trained with other settings: starting afresh", runs)
        shutil.rmtree(runs)
    runs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(stamp, preset)
    return runs


# The modules this comparison runs on (experiment.py's imports within proceedings.nvium, transitively;
# tests/nvium/test_experiment.py keeps the list complete): a cached seed is reused only with their code.
RECORD_MODULES = ("baselines", "batched_sampler", "cost_model", "data", "evaluation", "experiment", "frontier",
                  "mixture", "model", "sampler", "speed", "training")


def _measured_path(cfg: ExperimentConfig, scale: str, seed: int) -> Path:
    """Where a seed's finished record is kept: keyed by the preset (seed included) and the code it ran on."""
    from proceedings.core.models import cache_root

    code = hashlib.sha256(b"".join((Path(__file__).parent / f"{m}.py").read_bytes() for m in RECORD_MODULES))
    key = json.dumps({"config": asdict(cfg), "code": code.hexdigest()}, sort_keys=True, default=str)
    return cache_root() / "nvium" / "seeds" / f"{scale}-seed{seed}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def measure_family(family: dict[str, TrainedModel], corpus: Corpus, cfg: ExperimentConfig, seed: int
                   ) -> tuple[dict[str, Evaluation], SpeedReport, list[FrontierPoint]]:
    """Bits per byte of every model, then all of them decoding side by side in one benchmark run."""
    evals = {name: evaluate(m.model, corpus, cfg.train.seq_len, cfg.eval_tokens) for name, m in family.items()}
    speed = benchmark_models({name: m.model for name, m in family.items()}, corpus.prompts(cfg.prompts, cfg.prompt_len),
                             cfg.new_tokens, max_pending=cfg.max_pending, seed=seed, progress=True)
    layers = family[BASELINE].model.config.n_layer
    points = [FrontierPoint(name, m.depth_penalty, evals[name].bpb, evals[name].mean_depth * m.model.config.n_layer / layers,
                            speed.models[name].speedup, speed.models[name].predicted_speedup)
              for name, m in family.items()]
    return evals, speed, points


COST_CHUNKS = (1, 2, 3, 4, 8, 16)  # chunk sizes whose measured layer cost the record keeps


def _engine_costs(speed: SpeedReport, main: str, n_layer: int) -> dict:
    """The cost model's measured prices at batch 1 (ms per call), and what a layer costs inside the engine.

    engine_layer_ms is the baseline's measured time per token, less one embedding and one head, over its
    layers: set beside layer_ms (one layer timed alone) it shows what the engine's bookkeeping adds.
    """
    costs, base, ours = speed.costs, speed.models[BASELINE], speed.models[main]
    return {"layer_ms": costs.layer_s[1] * 1e3, "layer_arithmetic_ms": costs.bulk_s * 1e3,
            "overhead_share": costs.overhead_share,
            "layer_ms_by_chunk": {str(n): costs.layer(n) * 1e3 for n in COST_CHUNKS},
            "gate_ms": costs.gate_s * 1e3, "head_ms": costs.head_s * 1e3, "embed_ms": costs.embed_s * 1e3,
            "engine_layer_ms": (base.ms_per_token - (costs.head_s + costs.embed_s) * 1e3) / n_layer,
            "cost_model_error": ours.predicted_speedup / ours.speedup - 1}


def _metrics(trained: TrainedModel, ev: Evaluation, speed: SpeedReport, batched: SpeedReport, name: str,
             base: Evaluation, tokens_per_step: int) -> dict:
    s = speed.models[name]
    return {
        f"batch{BATCH}_tokens_per_s": batched.models[name].tokens_per_s, f"batch{BATCH}_speedup": batched.models[name].speedup,
        "bpb": ev.bpb, "bpb_delta": ev.bpb - base.bpb, "speedup": s.speedup,
        "latency_reduction": s.latency_reduction, "tokens_per_s": s.tokens_per_s, "latency_ms": s.latency_ms,
        "predicted_speedup": s.predicted_speedup, "ideal_speedup": s.ideal_speedup,
        "ms_per_token": s.ms_per_token, "predicted_ms_per_token": s.predicted_ms_per_token,
        "sampled_mean_depth": s.mean_depth, "sampled_exit_counts": s.exit_counts,
        "router_mean_depth": ev.mean_depth, "router_exit_mass": ev.exit_mass, "exit_bpb": ev.exit_bpb,
        "parameters": trained.model.num_parameters(), "train_steps": trained.record.step,
        "train_tokens": trained.record.step * tokens_per_step,
        "train_wall_s": trained.record.wall_s, "train_cpu_s": trained.record.cpu_s,
    }


def _notes(points: list[FrontierPoint], speed: SpeedReport) -> str:
    base = next(p for p in points if p.name == BASELINE)
    shallow = next(p for p in points if p.name == SHALLOW)
    within = [p for p in points if p.depth_penalty is not None and p.bpb <= base.bpb + BPB_TOLERANCE]
    frontier = "; ".join(f"λ={p.depth_penalty:g}: bpb {p.bpb:.4f} ({p.bpb - base.bpb:+.4f}), depth {p.mean_depth:.2f}, "
                         f"speed-up {p.speedup:.2f}x (predicted {p.predicted_speedup:.2f}x)"
                         for p in points if p.depth_penalty is not None)
    best = max(within, key=lambda p: p.speedup, default=None)
    verdict = (f"fastest within {BPB_TOLERANCE} bpb of the baseline: λ={best.depth_penalty:g} at {best.speedup:.2f}x"
               if best else f"no λ stays within {BPB_TOLERANCE} bpb of the baseline")
    load = ", ".join(f"{x:.2f}" for x in speed.bench.load_average)
    return (f"Baseline bpb {base.bpb:.4f}; a standard transformer as deep as the first exit: bpb {shallow.bpb:.4f} at "
            f"{shallow.speedup:.2f}x. Frontier: {frontier}. {verdict}. Benchmark load average {load} "
            f"({speed.bench.threads} thread(s)); all models decode with DeferredSampler, temperature 1.")
