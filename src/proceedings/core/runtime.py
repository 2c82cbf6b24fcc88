"""Seeding, device and dtype choice, thread count, timing, and atomic checkpoints.

torch is imported inside the functions that need it, so code that only writes files or times
things (the CLI, the report) starts without it.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from proceedings.core.errors import ProceedingsError

THREADS_ENV = "PROCEEDINGS_THREADS"
SCALES = ("tiny", "small", "long", "paper")
OPTIONAL_SCALES = ("long",)  # run only by systems whose experiment module lists them in OPTIONAL_SCALES


def check_scale(scale: str) -> str:
    """Return `scale` if it is one of SCALES, else raise a one-line error."""
    if scale not in SCALES:
        raise ProceedingsError(f"unknown scale '{scale}'; choose one of: {', '.join(SCALES)}")
    return scale


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (all devices) so a run is repeatable."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def thread_count(threads: int | None = None) -> int:
    """The torch thread count: the argument, else $PROCEEDINGS_THREADS, else 1.

    One thread is the default because on a shared 2-core machine two torch threads were measured
    up to 3x slower than one (and 10-20x for small conv nets) when anything else runs.
    """
    if threads is None:
        raw = os.environ.get(THREADS_ENV, "1")
        try:
            threads = int(raw)
        except ValueError:
            raise ProceedingsError(f"${THREADS_ENV}={raw!r} is not an integer") from None
    if threads < 1:
        raise ProceedingsError(f"thread count must be >= 1, got {threads}")
    return threads


def set_threads(threads: int | None = None) -> int:
    """Apply the thread count to torch; returns the count used."""
    import torch

    n = thread_count(threads)
    torch.set_num_threads(n)
    return n


def choose_device(device: str = "auto") -> "torch.device":
    """`auto` picks CUDA when present, else CPU; anything else is checked and returned."""
    import torch

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        chosen = torch.device(device)
    except RuntimeError:
        raise ProceedingsError(f"unknown device '{device}'; use auto, cpu, cuda or cuda:N") from None
    if chosen.type == "cuda" and not torch.cuda.is_available():
        raise ProceedingsError(f"device '{device}' requested but no CUDA device is available")
    return chosen


def choose_dtype(dtype: str = "auto", device: "torch.device | str" = "cpu") -> "torch.dtype":
    """`auto` is bfloat16 on a CUDA device that supports it, float32 otherwise."""
    import torch

    names = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16,
             "bf16": torch.bfloat16, "float16": torch.float16, "fp16": torch.float16}
    if dtype == "auto":
        on_cuda = torch.device(device).type == "cuda"
        return torch.bfloat16 if on_cuda and torch.cuda.is_bf16_supported() else torch.float32
    if dtype not in names:
        raise ProceedingsError(f"unknown dtype '{dtype}'; choose one of: auto, {', '.join(names)}")
    return names[dtype]


@dataclass
class Elapsed:
    """Wall-clock and CPU seconds (this process and its finished children) of a timed block."""

    wall_s: float = 0.0
    cpu_s: float = 0.0


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@contextlib.contextmanager
def stopwatch() -> Iterator[Elapsed]:
    """`with stopwatch() as t: ...` then read `t.wall_s` and `t.cpu_s`."""
    elapsed = Elapsed()
    wall0, cpu0 = time.perf_counter(), _cpu_seconds()
    try:
        yield elapsed
    finally:
        elapsed.wall_s = time.perf_counter() - wall0
        elapsed.cpu_s = _cpu_seconds() - cpu0


def atomic_write_bytes(path: Path | str, data: bytes) -> Path:
    """Write `data` to `path` so that readers see the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual mode
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path | str, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def save_checkpoint(path: Path | str, state: dict[str, Any]) -> Path:
    """Atomically save a training state (tensors, optimiser state, RNG states, step)."""
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(state, buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def load_checkpoint(path: Path | str) -> dict[str, Any] | None:
    """The saved state, or None when there is no checkpoint yet (a fresh run)."""
    import torch

    path = Path(path)
    if not path.exists():
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except Exception as err:  # a truncated or foreign file
        raise ProceedingsError(f"checkpoint '{path}' cannot be read ({err}); delete it to restart") from err


def rng_state() -> dict[str, Any]:
    """Every RNG state a run draws from, to store in a checkpoint."""
    import numpy as np
    import torch

    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng_state(state: dict[str, Any]) -> None:
    import numpy as np
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
