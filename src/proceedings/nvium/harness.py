"""A decoding-speed harness: several decoders on the same prompts, measured side by side in one run.

Written to be reused by every system that makes decoding faster (N-vium here; P-EAGLE and Orthrus
next, at which point it moves to core/). A *decoder* is any callable
`(prompt_ids, max_new_tokens, seed) -> DecodeTrace`; the harness owns the timing. Per decoder it
reports tokens/s (wall), CPU seconds, per-token latency (mean, median, p90) and keeps each trace's
system-specific `extras` (exit taken per token, accepted draft lengths, ...). Decoders take turns
prompt by prompt, in an order rotated each time, so a slow patch of a shared machine hits all of them;
the load average is recorded beside the numbers because wall-clock ratios mean little on a busy host.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text


@dataclass
class DecodeTrace:
    """What one decode produced and how long each token took."""

    tokens: list[int]
    token_seconds: list[float]  # wall time per emitted token
    total_seconds: float  # wall time of the whole decode, including any work after the last token
    extras: dict = field(default_factory=dict)


Decoder = Callable[[list[int], int, int], DecodeTrace]


@dataclass
class DecoderStats:
    name: str
    tokens: int
    wall_s: float
    cpu_s: float
    tokens_per_s: float
    latency_ms_mean: float
    latency_ms_p50: float
    latency_ms_p90: float
    traces: list[DecodeTrace] = field(default_factory=list, repr=False)

    def summary(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "traces"}


@dataclass
class BenchmarkReport:
    stats: dict[str, DecoderStats]
    reference: str  # the decoder ratios are taken against
    load_average: tuple[float, float, float]
    threads: int

    def speedup(self, name: str) -> float:
        """tokens/s of `name` over the reference's, measured in the same run."""
        return self.stats[name].tokens_per_s / self.stats[self.reference].tokens_per_s

    def latency_reduction(self, name: str) -> float:
        """1 - mean per-token latency of `name` / the reference's."""
        return 1 - self.stats[name].latency_ms_mean / self.stats[self.reference].latency_ms_mean

    def markdown(self) -> str:
        rows = ["| decoder | tokens | tokens/s | speed-up | latency ms (mean / p50 / p90) | wall s | CPU s |",
                "|---|---|---|---|---|---|---|"]
        for name, s in self.stats.items():
            rows.append(f"| {name} | {s.tokens} | {s.tokens_per_s:.1f} | {self.speedup(name):.2f}x | "
                        f"{s.latency_ms_mean:.2f} / {s.latency_ms_p50:.2f} / {s.latency_ms_p90:.2f} | "
                        f"{s.wall_s:.2f} | {s.cpu_s:.2f} |")
        load = ", ".join(f"{x:.2f}" for x in self.load_average)
        return "\n".join(rows) + f"\n\nLoad average during the run: {load}; {self.threads} torch thread(s)."

    def write(self, directory: Path | str, stem: str = "bench") -> list[Path]:
        """`<stem>.jsonl` (one line per decoder) and `<stem>.md` (the table)."""
        directory = Path(directory)
        lines = "".join(json.dumps({"reference": self.reference, **s.summary(), "speedup": self.speedup(n)}) + "\n"
                        for n, s in self.stats.items())
        return [atomic_write_text(directory / f"{stem}.jsonl", lines),
                atomic_write_text(directory / f"{stem}.md", self.markdown() + "\n")]


def run_benchmark(decoders: dict[str, Decoder], prompts: list[list[int]], max_new_tokens: int,
                  seed: int = 0, warmup: bool = True, progress: bool = False) -> BenchmarkReport:
    """Decode every prompt with every decoder (rotating the order) and summarise; first name = reference."""
    import torch
    from proceedings.core.progress import progress_bar

    if not prompts or max_new_tokens < 1:
        raise ProceedingsError(f"a benchmark needs at least one prompt and one new token per prompt "
                               f"(got {len(prompts)} prompts, {max_new_tokens} tokens)")
    names = list(decoders)
    if warmup:  # first calls pay for allocation and kernel selection
        for name in names:
            decoders[name](prompts[0], min(8, max_new_tokens), seed)
    traces = {name: [] for name in names}
    cpu = {name: 0.0 for name in names}
    load_before = os.getloadavg()
    for i, prompt in enumerate(progress_bar(prompts, desc="benchmark", disable=not progress, unit="prompt")):
        for name in names[i % len(names):] + names[:i % len(names)]:
            cpu0 = time.process_time()
            traces[name].append(decoders[name](prompt, max_new_tokens, seed + i))
            cpu[name] += time.process_time() - cpu0
    load = tuple(max(a, b) for a, b in zip(load_before, os.getloadavg()))
    stats = {name: _stats(name, traces[name], cpu[name]) for name in names}
    return BenchmarkReport(stats, reference=names[0], load_average=load, threads=torch.get_num_threads())


def _stats(name: str, traces: list[DecodeTrace], cpu_s: float) -> DecoderStats:
    latencies = sorted(s * 1e3 for t in traces for s in t.token_seconds)
    tokens = sum(len(t.tokens) for t in traces)
    wall = sum(t.total_seconds for t in traces)
    return DecoderStats(
        name=name, tokens=tokens, wall_s=wall, cpu_s=cpu_s, tokens_per_s=tokens / wall,
        latency_ms_mean=statistics.fmean(latencies), latency_ms_p50=statistics.median(latencies),
        latency_ms_p90=latencies[int(0.9 * (len(latencies) - 1))], traces=traces,
    )
