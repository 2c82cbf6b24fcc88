"""Decoding benchmark shared by the systems that make decoding faster (N-vium, P-EAGLE, Orthrus).

A *decoder* is any object with a `name` and `decode(prompt_ids, max_new_tokens, seed) -> DecodeTrace`
(wrap a plain function with `decoder(name, fn)`). `run_benchmark` owns the timing: every decoder
decodes every prompt, taking turns in an order rotated prompt by prompt, so a slow patch of a shared
machine hits all of them alike; with `repeats` > 1 each prompt is decoded that many times per arm.
Per arm it reports

- tokens/s from the wall time, both the fastest repeat per prompt (`wall_min_s`) and the median one
  (`wall_median_s`), and from CPU time (median repeat), plus the per-step latency (mean, p50, p90);
- the speed-up over the first decoder (the reference), measured in the same run;
- exact match: on how many prompts the arm emitted exactly the tokens of its reference decoder (the
  first one, or the arm named by the decoder's optional `reference` attribute), in every repeat.

Each trace keeps its decoder's own `extras` (exits taken, accepted draft lengths, ...), from which a
system adds its own columns (`BenchmarkReport.markdown(extra_columns=...)`). A batched decoder takes a
batch as its "prompt" and returns the tokens of the whole batch, flattened, so tokens/s is throughput.
The load average is recorded beside the numbers: wall-clock ratios mean little on a busy host.

`measure_forward_costs` gives T(k)/T(1) for any Hugging Face causal LM: the cost of one forward over
k new tokens on top of a KV cache, relative to one token, which prices verifying k drafts at once.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text, load_checkpoint, save_checkpoint

CLOCKS = ("median", "min", "cpu")  # what a speed-up is computed from
UNCOMPARED = "-"  # the `reference` of an arm sampling a distribution of its own (a lossy method): no exact match


@dataclass
class DecodeTrace:
    """What one decode produced and how long it took."""

    tokens: list[int]  # the new tokens (a batched decoder: every sequence's, concatenated)
    token_seconds: list[float]  # wall time of each decoding step
    total_seconds: float  # wall time of the whole decode, work after the last token included
    extras: dict = field(default_factory=dict)  # the decoder's own numbers (exits, acceptance, ...)


class Decoder(Protocol):
    """What the benchmark runs. An optional `reference` attribute names the arm whose tokens it must
    equal (default: the first decoder of the run), or is UNCOMPARED for a method that samples its own
    distribution, whose tokens no other arm's need equal."""

    name: str

    def decode(self, prompt_ids: Any, max_new_tokens: int, seed: int) -> DecodeTrace: ...


@dataclass
class FunctionDecoder:
    """A decoder made of a function `(prompt_ids, max_new_tokens, seed) -> DecodeTrace`."""

    name: str
    fn: Callable[[Any, int, int], DecodeTrace]
    reference: str | None = None

    def decode(self, prompt_ids: Any, max_new_tokens: int, seed: int) -> DecodeTrace:
        return self.fn(prompt_ids, max_new_tokens, seed)


def decoder(name: str, fn: Callable[[Any, int, int], DecodeTrace], reference: str | None = None) -> FunctionDecoder:
    return FunctionDecoder(name, fn, reference)


@dataclass
class ArmStats:
    """One decoder's numbers over all prompts; times are summed over prompts."""

    name: str
    tokens: int  # emitted in one repeat over all prompts
    wall_min_s: float  # per prompt the fastest repeat
    wall_median_s: float  # per prompt the median repeat
    cpu_s: float  # process CPU seconds, per prompt the median repeat
    latency_ms_mean: float  # per decoding step, over every repeat
    latency_ms_p50: float
    latency_ms_p90: float
    reference: str  # the arm whose tokens this one was compared with
    exact_prompts: int  # prompts on which every repeat emitted the reference's tokens
    prompts: int
    traces: list[DecodeTrace] = field(default_factory=list, repr=False)  # the first repeat, one per prompt

    @property
    def tokens_per_s(self) -> float:
        """Throughput from the median wall time: the headline number."""
        return self.tokens / self.wall_median_s

    @property
    def exact(self) -> bool:
        return self.exact_prompts == self.prompts

    def seconds(self, clock: str) -> float:
        return {"median": self.wall_median_s, "min": self.wall_min_s, "cpu": self.cpu_s}[clock]

    def summary(self) -> dict:
        return {"name": self.name, "tokens": self.tokens, "wall_min_s": self.wall_min_s,
                "wall_median_s": self.wall_median_s, "cpu_s": self.cpu_s, "tokens_per_s": self.tokens_per_s,
                "tokens_per_s_min_wall": self.tokens / self.wall_min_s, "tokens_per_cpu_s": self.tokens / self.cpu_s,
                "latency_ms_mean": self.latency_ms_mean, "latency_ms_p50": self.latency_ms_p50,
                "latency_ms_p90": self.latency_ms_p90, "reference": self.reference,
                "exact_prompts": self.exact_prompts, "prompts": self.prompts}


@dataclass
class BenchmarkReport:
    arms: dict[str, ArmStats]
    reference: str  # the first decoder: speed-ups are taken against it
    repeats: int
    load_average: tuple[float, float, float]  # the larger of before and after, per column
    threads: int
    resumed_at: int = 0  # prompt runs (all arms of one prompt in one repeat) read back from a checkpoint

    def speedup(self, name: str, clock: str = "median") -> float:
        """tokens/s of `name` over the reference's, same run; clock: 'median', 'min' (wall) or 'cpu'."""
        if clock not in CLOCKS:
            raise ProceedingsError(f"unknown clock '{clock}'; choose one of: {', '.join(CLOCKS)}")
        return self.arms[self.reference].seconds(clock) / self.arms[name].seconds(clock) \
            * self.arms[name].tokens / self.arms[self.reference].tokens

    def latency_reduction(self, name: str) -> float:
        """1 - mean step latency of `name` / the reference's."""
        return 1 - self.arms[name].latency_ms_mean / self.arms[self.reference].latency_ms_mean

    def summary(self) -> dict:
        """Everything but the traces, JSON-ready."""
        return {"reference": self.reference, "repeats": self.repeats, "load_average": list(self.load_average),
                "threads": self.threads, "resumed_at": self.resumed_at,
                "arms": {name: {**a.summary(), "speedup": self.speedup(name), "speedup_min_wall": self.speedup(name, "min"),
                                "speedup_cpu": self.speedup(name, "cpu")} for name, a in self.arms.items()}}

    def markdown(self, extra_columns: dict[str, Callable[[ArmStats], str]] | None = None) -> str:
        """One row per arm; `extra_columns` maps a header to a function formatting that arm's cell."""
        extra = extra_columns or {}
        header = ["decoder", "tokens", "tokens/s (median / min wall)", "tokens/CPU-s", "speed-up (median / min / CPU)",
                  "step ms (mean / p50 / p90)", "exact vs reference", *extra]
        rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for name, a in self.arms.items():
            cells = [name, str(a.tokens), f"{a.tokens_per_s:.1f} / {a.tokens / a.wall_min_s:.1f}",
                     f"{a.tokens / a.cpu_s:.1f}",
                     " / ".join(f"{self.speedup(name, c):.2f}x" for c in CLOCKS),
                     f"{a.latency_ms_mean:.2f} / {a.latency_ms_p50:.2f} / {a.latency_ms_p90:.2f}",
                     UNCOMPARED if a.reference == UNCOMPARED else f"{a.exact_prompts}/{a.prompts} ({a.reference})",
                     *(fmt(a) for fmt in extra.values())]
            rows.append("| " + " | ".join(cells) + " |")
        load = ", ".join(f"{x:.2f}" for x in self.load_average)
        return "\n".join(rows) + (f"\n\n{self.repeats} repeat(s) per prompt; load average during the run: {load}; "
                                  f"{self.threads} torch thread(s).")

    def write(self, directory: Path | str, stem: str = "bench") -> list[Path]:
        """`<stem>.json` (the summary) and `<stem>.md` (the table)."""
        directory = Path(directory)
        return [atomic_write_text(directory / f"{stem}.json", json.dumps(self.summary(), indent=2) + "\n"),
                atomic_write_text(directory / f"{stem}.md", self.markdown() + "\n")]


def run_benchmark(decoders: Sequence[Decoder], prompts: Sequence[Any], max_new_tokens: int, seed: int = 0,
                  repeats: int = 1, warmup: bool = True, progress: bool = False,
                  checkpoint: Path | str | None = None) -> BenchmarkReport:
    """Every decoder on every prompt (prompt i with seed + i), arms rotated; the first is the reference.
    With `checkpoint`, the runs so far are saved atomically after each prompt (all arms) and a later call with
    the same decoders and settings resumes after the last saved prompt (a stopped long benchmark loses at most
    one prompt's runs)."""
    import torch

    from proceedings.core.progress import progress_bar

    names = [d.name for d in decoders]
    if not prompts or max_new_tokens < 1 or repeats < 1:
        raise ProceedingsError(f"a benchmark needs at least one prompt, one new token and one repeat "
                               f"(got {len(prompts)} prompts, {max_new_tokens} tokens, {repeats} repeats)")
    if not names or len(set(names)) != len(names):
        raise ProceedingsError(f"decoder names must be present and distinct, got {names}")
    by_name = dict(zip(names, decoders))
    references = {name: getattr(d, "reference", None) or names[0] for name, d in by_name.items()}
    unknown = sorted(r for r in references.values() if r not in by_name and r != UNCOMPARED)
    if unknown:
        raise ProceedingsError(f"reference decoder(s) {unknown} are not in this benchmark ({names})")
    if warmup:  # first calls pay for allocation and kernel selection
        for d in decoders:
            d.decode(prompts[0], min(8, max_new_tokens), seed)
    settings = {"decoders": names, "prompts": len(prompts), "max_new_tokens": max_new_tokens, "seed": seed,
                "repeats": repeats}
    state = None if checkpoint is None else load_checkpoint(checkpoint)
    if state is not None and state["settings"] != settings:
        raise ProceedingsError(f"benchmark checkpoint '{checkpoint}' belongs to another benchmark "
                               f"({state['settings']} vs {settings}); delete it to start over")
    state = state or {"settings": settings, "done": 0, "load_before": os.getloadavg(),
                      "runs": {name: [[] for _ in prompts] for name in names}}  # name -> prompt -> [(trace, cpu_s)]
    runs, resumed_at = state["runs"], state["done"]
    turns = [(r * len(prompts) + i, i) for r in range(repeats) for i in range(len(prompts))]
    for turn, i in progress_bar(turns[resumed_at:], desc="benchmark", disable=not progress, unit="prompt",
                                total=len(turns), initial=resumed_at):
        for name in names[turn % len(names):] + names[:turn % len(names)]:
            cpu0 = time.process_time()
            trace = by_name[name].decode(prompts[i], max_new_tokens, seed + i)
            runs[name][i].append((trace, time.process_time() - cpu0))
        state["done"] = turn + 1
        if checkpoint is not None:
            save_checkpoint(checkpoint, state)
    load = tuple(max(a, b) for a, b in zip(state["load_before"], os.getloadavg()))
    arms = {name: _arm_stats(name, runs[name], runs.get(references[name]), references[name]) for name in names}
    return BenchmarkReport(arms, reference=names[0], repeats=repeats, load_average=load,
                           threads=torch.get_num_threads(), resumed_at=resumed_at)


def _arm_stats(name: str, runs: list[list[tuple[DecodeTrace, float]]],
               reference_runs: list[list[tuple[DecodeTrace, float]]] | None, reference: str) -> ArmStats:
    """runs[prompt][repeat] = (trace, CPU seconds); no reference runs: an UNCOMPARED arm (0 exact prompts)."""
    latencies = sorted(s * 1e3 for per_prompt in runs for trace, _ in per_prompt for s in trace.token_seconds)
    exact = sum(all(t.tokens == r.tokens for (t, _), (r, _) in zip(ours, theirs))
                for ours, theirs in zip(runs, reference_runs or []))
    return ArmStats(
        name=name, tokens=sum(len(per_prompt[0][0].tokens) for per_prompt in runs),
        wall_min_s=sum(min(t.total_seconds for t, _ in p) for p in runs),
        wall_median_s=sum(statistics.median(t.total_seconds for t, _ in p) for p in runs),
        cpu_s=sum(statistics.median(c for _, c in p) for p in runs),
        latency_ms_mean=statistics.fmean(latencies), latency_ms_p50=statistics.median(latencies),
        latency_ms_p90=latencies[int(0.9 * (len(latencies) - 1))],
        reference=reference, exact_prompts=exact, prompts=len(runs), traces=[p[0][0] for p in runs],
    )


@dataclass
class ForwardCosts:
    """Median wall seconds of one forward over k new tokens on top of `context` cached ones."""

    seconds: dict[int, float]
    context: int

    def ratio(self, k: int) -> float:
        """T(k) / T(1)."""
        return self.seconds[k] / self.seconds[1]

    def ratios(self) -> dict[int, float]:
        return {k: self.ratio(k) for k in sorted(self.seconds)}


def measure_forward_costs(model, ks: Sequence[int] = (1, 2, 3, 4, 5, 6, 7, 8, 16), context: int = 128,
                          repeats: int = 10, seed: int = 0) -> ForwardCosts:
    """T(k) of a Hugging Face causal LM with a KV cache: prefill `context` random tokens once, then time
    a forward over k more, cropping the cache back after each; sizes take turns, the median is kept."""
    import torch
    from transformers import DynamicCache

    ks = sorted(set(ks) | {1})
    if ks[0] < 1 or context < 1 or repeats < 1:
        raise ProceedingsError(f"forward costs need k >= 1, a context >= 1 and repeats >= 1 "
                               f"(got k {ks}, context {context}, repeats {repeats})")
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, model.config.vocab_size, (1, context + ks[-1]), generator=generator).to(device)
    times: dict[int, list[float]] = {k: [] for k in ks}
    with torch.inference_mode():
        cache = DynamicCache()
        model(ids[:, :context], cache=cache, use_cache=True)
        for r in range(repeats + 1):  # round 0 warms every shape up and is not kept
            for k in ks[r % len(ks):] + ks[:r % len(ks)]:
                _synchronize(device)
                start = time.perf_counter()
                model(ids[:, context:context + k], cache=cache, use_cache=True)
                _synchronize(device)  # a GPU forward returns before it has run: wait for it
                elapsed = time.perf_counter() - start
                cache.crop(-k)  # transformers 5: a negative count of positions to drop
                if r:
                    times[k].append(elapsed)
    return ForwardCosts({k: statistics.median(v) for k, v in times.items()}, context)


def _synchronize(device) -> None:
    """Wait for the kernels queued on a CUDA device, so a wall-clock reading covers them."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
