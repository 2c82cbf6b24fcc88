"""The cost sweep (issue 27): the cross block alone, forward + backward, over the component count N.

No training. FLOPs are counted on executed ops by `torch.utils.flop_counter.FlopCounterMode`, in total
and for the attention matmuls alone; the count runs SDPA on its math path, because the counter has no
formula for PyTorch's fused CPU kernel (it would count full attention as 0). Wall times, with the
default kernels, are interleaved across arms so machine load hits them alike.
MoCA's attention FLOPs grow like N·(T(1+k) + (N-1-k)c), full attention's like (N·T)^2.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from proceedings.core.progress import progress_bar
from proceedings.moca.attention import MoCAttention, context_size, summary_tokens

ATTENTION_OPS = ("scaled_dot_product", "bmm", "baddbmm")


@dataclass
class SweepRow:
    n: int
    mode: str
    flops: int  # everything the block executes, forward + backward
    attention_flops: int  # the attention kernel alone, forward + backward
    context: int  # keys per component
    ms_forward: float
    ms_forward_backward: float
    peak_mb: float | None  # CUDA only


@dataclass
class Sweep:
    rows: list[SweepRow] = field(default_factory=list)
    config: dict = field(default_factory=dict)

    def series(self, mode: str, key: str) -> list:
        return [getattr(r, key) for r in self.rows if r.mode == mode]

    def ns(self) -> list[int]:
        return sorted({r.n for r in self.rows})

    def slope(self, mode: str, key: str = "attention_flops") -> float:
        """Least-squares log-log slope of a quantity over N."""
        return float(np.polyfit(np.log(self.ns()), np.log(self.series(mode, key)), 1)[0])

    def at(self, n: int, mode: str) -> SweepRow:
        return next(r for r in self.rows if r.n == n and r.mode == mode)

    def crossover(self, fast: str = "moca", slow: str = "full") -> int | None:
        """The smallest N from which `fast` stays quicker than `slow` (forward + backward)."""
        for n in self.ns():
            if all(self.at(m, fast).ms_forward_backward < self.at(m, slow).ms_forward_backward
                   for m in self.ns() if m >= n):
                return n
        return None


def counted_flops(block: MoCAttention, x: torch.Tensor) -> tuple[int, int]:
    """(total, attention-kernel) FLOPs of one forward + backward."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:  # fused CPU kernels go uncounted
        block(x).sum().backward()
    per_op = counter.get_flop_counts().get("Global", {})
    attention = sum(v for op, v in per_op.items() if any(name in str(op) for name in ATTENTION_OPS))
    return counter.get_total_flops(), attention


def _timed(fn) -> float:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return 1000 * (time.perf_counter() - start)


def sweep(ns=(8, 16, 32, 64, 128), points: int = 32, dim: int = 64, heads: int = 4, k: int = 4, sigma: int = 8,
          modes=("full", "moca"), repeats: int = 3, device: str = "cpu", seed: int = 0) -> Sweep:
    """Counted FLOPs and interleaved median times of the cross block per N and mode (batch 1)."""
    out = Sweep(config={"ns": list(ns), "points": points, "dim": dim, "heads": heads, "k": k, "sigma": sigma,
                        "modes": list(modes), "repeats": repeats, "device": device, "batch": 1,
                        "tokens_per_component": points + summary_tokens(points, sigma),
                        "threads": torch.get_num_threads()})
    for n in progress_bar(list(ns), desc="cost sweep", unit="N"):
        torch.manual_seed(seed)
        blocks = {m: MoCAttention(dim, heads, points, k, sigma, m).to(device) for m in modes}
        x = torch.randn(1, n, points + summary_tokens(points, sigma), dim, device=device)
        counts = {m: counted_flops(blocks[m], x.clone().requires_grad_()) for m in modes}
        fwd = {m: [] for m in modes}
        both = {m: [] for m in modes}
        peak = {m: None for m in modes}
        for _ in range(repeats):
            for m in modes:
                with torch.no_grad():
                    fwd[m].append(_timed(lambda: blocks[m](x)))
                if device.startswith("cuda"):
                    torch.cuda.reset_peak_memory_stats()
                xg = x.clone().requires_grad_()
                both[m].append(_timed(lambda: blocks[m](xg).sum().backward()))
                if device.startswith("cuda"):
                    peak[m] = torch.cuda.max_memory_allocated() / 2**20
        for m in modes:
            out.rows.append(SweepRow(n, m, counts[m][0], counts[m][1], context_size(n, points, k, sigma, m),
                                     statistics.median(fwd[m]), statistics.median(both[m]), peak[m]))
    return out
