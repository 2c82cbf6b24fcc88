"""N-vium's speed benchmark: the shared decoding benchmark (core/bench.py), the deferred sampler, and
the cost-model prediction.

Every model, the matched baseline included, decodes with the same engine (`DeferredSampler`; on a
single-exit model it is ordinary KV-cached decoding), the same prompts, temperature and seeds, in one
run. Per model we report tokens/s and per-token latency beside the baseline's, the exit histogram,
the mean depth, the ideal speed-up 1 / mean depth, and the speed-up the cost model predicts from the
exits taken and the chunk costs measured in the same process.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from proceedings.core.bench import BenchmarkReport, DecodeTrace, FunctionDecoder, decoder, run_benchmark
from proceedings.core.errors import ProceedingsError
from proceedings.nvium.batched_sampler import BatchedDeferredSampler
from proceedings.nvium.cost_model import ChunkCosts, measure_costs, predict_seconds
from proceedings.nvium.model import NviumForCausalLM
from proceedings.nvium.sampler import DeferredSampler


def deferred_decoder(name: str, model: NviumForCausalLM, max_pending: int = 16,
                     temperature: float = 1.0) -> FunctionDecoder:
    """A benchmark decoder: exact mixture sampling with deferral; extras carry the exits taken."""
    sampler = DeferredSampler(model, max_pending=max_pending)

    def decode(prompt: list[int], max_new_tokens: int, seed: int) -> DecodeTrace:
        out = sampler.generate(prompt, max_new_tokens, temperature=temperature, seed=seed)
        return DecodeTrace(out.tokens, out.token_seconds, out.decode_seconds,
                           extras={"exits": out.exits, "chunk_sizes": dict(out.chunk_sizes)})

    return decoder(name, decode)


def batched_decoder(name: str, model: NviumForCausalLM, max_pending: int = 16,
                    temperature: float = 1.0) -> FunctionDecoder:
    """A benchmark decoder over a batch of prompts (sequence b draws with seed * len(batch) + b)."""
    sampler = BatchedDeferredSampler(model, max_pending=max_pending)

    def decode(prompts: list[list[int]], max_new_tokens: int, seed: int) -> DecodeTrace:
        seeds = [seed * len(prompts) + b for b in range(len(prompts))]
        out = sampler.generate(prompts, max_new_tokens, temperature=temperature, seeds=seeds)
        return DecodeTrace([t for row in out.tokens for t in row], out.step_seconds, out.decode_seconds,
                           extras={"exits": [e for row in out.exits for e in row], "chunk_sizes": dict(out.chunk_sizes)})

    return decoder(name, decode)


@dataclass
class ModelSpeed:
    name: str
    tokens_per_s: float
    speedup: float  # tokens/s over the baseline's, same run
    latency_ms: float
    latency_reduction: float  # 1 - latency / baseline latency
    exit_counts: list[int]
    mean_depth: float  # layers run per token for the exits actually taken, as a fraction of the baseline's
    ideal_speedup: float  # 1 / mean depth: chunks as cheap as single positions, no overheads
    predicted_speedup: float | None  # cost model (batch 1 only): measured chunk costs, simulated frontier


@dataclass
class SpeedReport:
    models: dict[str, ModelSpeed]
    costs: ChunkCosts | None  # measured at batch 1 only
    bench: BenchmarkReport

    def summary(self) -> dict:
        costs = {"chunk_costs": asdict(self.costs), "overhead_share": self.costs.overhead_share} if self.costs else {}
        return {"models": {k: asdict(v) for k, v in self.models.items()}, **costs}


def benchmark_models(models: dict[str, NviumForCausalLM], prompts: list[list[int]], max_new_tokens: int,
                     max_pending: int = 16, temperature: float = 1.0, seed: int = 0, progress: bool = False,
                     batch: int = 1, cost_repeats: int = 20) -> SpeedReport:
    """Decode with every model side by side; the first one is the reference (the baseline).

    batch > 1 decodes the prompts `batch` at a time with the batched engine (tokens/s is then throughput);
    the cost model prices single-sequence decoding, so it predicts batch 1 only.
    """
    if batch < 1 or len(prompts) % batch:
        raise ProceedingsError(f"{len(prompts)} prompts cannot be split into batches of {batch}")
    make = deferred_decoder if batch == 1 else batched_decoder
    decoders = [make(name, m, max_pending, temperature) for name, m in models.items()]
    work = prompts if batch == 1 else [prompts[i:i + batch] for i in range(0, len(prompts), batch)]
    report = run_benchmark(decoders, work, max_new_tokens, seed=seed, progress=progress)
    widest = max(models.values(), key=lambda m: m.config.n_exits)
    costs = measure_costs(widest, max_chunk=max(4, 2 * max_pending), repeats=cost_repeats) if batch == 1 else None
    reference = next(iter(models))
    predicted = {name: _predicted_seconds(m, report.arms[name].traces, max_pending, costs) / report.arms[name].tokens
                 for name, m in models.items()} if batch == 1 else None  # seconds per token
    speeds = {}
    reference_layers = models[reference].config.n_layer  # depth is counted in the baseline's layers
    for name, model in models.items():
        exits_taken = [e for t in report.arms[name].traces for e in t.extras["exits"]]
        counts = [exits_taken.count(e) for e in range(model.config.n_exits)]
        mean_depth = sum(c * layers for c, layers in zip(counts, model.config.exits)) / len(exits_taken) / reference_layers
        speeds[name] = ModelSpeed(
            name=name, tokens_per_s=report.arms[name].tokens_per_s, speedup=report.speedup(name),
            latency_ms=report.arms[name].latency_ms_mean, latency_reduction=report.latency_reduction(name),
            exit_counts=counts, mean_depth=mean_depth, ideal_speedup=1 / mean_depth,
            predicted_speedup=predicted[reference] / predicted[name] if predicted else None,
        )
    return SpeedReport(speeds, costs, report)


def _predicted_seconds(model: NviumForCausalLM, traces: list[DecodeTrace], max_pending: int,
                       costs: ChunkCosts) -> float:
    config = model.config
    return sum(predict_seconds(t.extras["exits"], config.exits, config.n_layer, max_pending, costs) for t in traces)
