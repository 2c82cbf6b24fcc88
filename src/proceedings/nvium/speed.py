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
from proceedings.nvium.sampler import DeferredSampler, compiled_layers


def deferred_decoder(name: str, model: NviumForCausalLM, max_pending: int = 16, temperature: float = 1.0,
                     compile: bool = False, reference: str | None = None) -> FunctionDecoder:
    """A benchmark decoder: exact mixture sampling with deferral; extras carry the exits taken."""
    sampler = DeferredSampler(model, max_pending=max_pending, compile=compile)

    def decode(prompt: list[int], max_new_tokens: int, seed: int) -> DecodeTrace:
        out = sampler.generate(prompt, max_new_tokens, temperature=temperature, seed=seed)
        return DecodeTrace(out.tokens, out.token_seconds, out.decode_seconds,
                           extras={"exits": out.exits, "chunk_sizes": dict(out.chunk_sizes)})

    return decoder(name, decode, reference)


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
    ms_per_token: float  # measured: median wall time over tokens (a batch's tokens all count)
    predicted_ms_per_token: float | None  # the cost model's price of the same exits (batch 1 only)


@dataclass
class SpeedReport:
    models: dict[str, ModelSpeed]
    costs: ChunkCosts | None  # measured at batch 1 only
    bench: BenchmarkReport
    compiled_costs: ChunkCosts | None = None  # the same, layers under torch.compile (compile=True)
    compiled_graphs: int | None = None  # graphs torch.compile built in this process (compile=True)

    def summary(self) -> dict:
        costs = {"chunk_costs": asdict(self.costs), "overhead_share": self.costs.overhead_share} if self.costs else {}
        if self.compiled_costs:
            costs.update(compiled_chunk_costs=asdict(self.compiled_costs), compiled_graphs=self.compiled_graphs,
                         compiled_overhead_share=self.compiled_costs.overhead_share)
        return {"models": {k: asdict(v) for k, v in self.models.items()}, **costs}


COMPILED = " (compiled)"  # suffix of a model's torch.compile arm


def benchmark_models(models: dict[str, NviumForCausalLM], prompts: list[list[int]], max_new_tokens: int,
                     max_pending: int = 16, temperature: float = 1.0, seed: int = 0, progress: bool = False,
                     batch: int = 1, cost_repeats: int = 20, compile: bool = False) -> SpeedReport:
    """Decode with every model side by side; the first one is the reference (the baseline).

    batch > 1 decodes the prompts `batch` at a time with the batched engine (tokens/s is then throughput);
    the cost model prices single-sequence decoding, so it predicts batch 1 only. compile=True (batch 1)
    adds beside every model an arm running its layers under torch.compile, checked token for token
    against the eager arm and priced with chunk costs measured on the compiled layers.
    """
    if batch < 1 or len(prompts) % batch:
        raise ProceedingsError(f"{len(prompts)} prompts cannot be split into batches of {batch}")
    if compile and batch > 1:
        raise ProceedingsError("torch.compile is measured at batch 1 only; drop --batch or --compile")
    arms = {name: (m, False) for name, m in models.items()}
    arms.update({name + COMPILED: (m, True) for name, m in models.items()} if compile else {})
    if batch == 1:
        decoders = [deferred_decoder(name, m, max_pending, temperature, compile=c,
                                     reference=name.removesuffix(COMPILED) if c else None)
                    for name, (m, c) in arms.items()]
    else:
        decoders = [batched_decoder(name, m, max_pending, temperature) for name, (m, _) in arms.items()]
    work = prompts if batch == 1 else [prompts[i:i + batch] for i in range(0, len(prompts), batch)]
    report = run_benchmark(decoders, work, max_new_tokens, seed=seed, progress=progress)
    widest = max(models.values(), key=lambda m: m.config.n_exits)
    chunks = max(4, 2 * max_pending)
    costs = measure_costs(widest, max_chunk=chunks, repeats=cost_repeats) if batch == 1 else None
    compiled_costs = measure_costs(widest, max_chunk=chunks, repeats=cost_repeats,
                                   layers=compiled_layers(widest)) if compile else None
    reference = next(iter(models))
    predicted = {name: _predicted_seconds(m, report.arms[name].traces, max_pending, compiled_costs if c else costs)
                 / report.arms[name].tokens for name, (m, c) in arms.items()} if batch == 1 else None  # s per token
    speeds = {}
    reference_layers = models[reference].config.n_layer  # depth is counted in the baseline's layers
    for name, (model, _) in arms.items():
        exits_taken = [e for t in report.arms[name].traces for e in t.extras["exits"]]
        counts = [exits_taken.count(e) for e in range(model.config.n_exits)]
        mean_depth = sum(c * layers for c, layers in zip(counts, model.config.exits)) / len(exits_taken) / reference_layers
        speeds[name] = ModelSpeed(
            name=name, tokens_per_s=report.arms[name].tokens_per_s, speedup=report.speedup(name),
            latency_ms=report.arms[name].latency_ms_mean, latency_reduction=report.latency_reduction(name),
            exit_counts=counts, mean_depth=mean_depth, ideal_speedup=1 / mean_depth,
            predicted_speedup=predicted[reference] / predicted[name] if predicted else None,
            ms_per_token=1e3 / report.arms[name].tokens_per_s,
            predicted_ms_per_token=predicted[name] * 1e3 if predicted else None,
        )
    return SpeedReport(speeds, costs, report, compiled_costs, _compiled_graphs() if compile else None)


def _compiled_graphs() -> int:
    """Distinct graphs dynamo compiled in this process: a handful, unless shapes or guards keep recompiling."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def _predicted_seconds(model: NviumForCausalLM, traces: list[DecodeTrace], max_pending: int,
                       costs: ChunkCosts) -> float:
    config = model.config
    return sum(predict_seconds(t.extras["exits"], config.exits, config.n_layer, max_pending, costs) for t in traces)
