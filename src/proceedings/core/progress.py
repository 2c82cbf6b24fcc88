"""Progress on long work: a tqdm bar on a terminal, and a few plain lines everywhere else.

A bar redrawn into a log file (CI, `make demo > log 2>&1`) leaves thousands of `\\r` frames, so
when stderr is not a terminal a stage prints one line, when it ends: what it did and how long it took.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any


def progress_bar(iterable: Iterable[Any] | None = None, *, desc: str, total: int | None = None, unit: str = "it",
             initial: int = 0, disable: bool = False, leave: bool = True) -> Any:
    """`for x in progress_bar(xs, desc="train")` or `with progress_bar(total=n, desc=...) as bar: bar.update()`."""
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)
    if disable:
        return _Stage(iterable, desc, total, unit, initial, quiet=True)
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(iterable, desc=desc, total=total, unit=unit, initial=initial, leave=leave)
    return _Stage(iterable, desc, total, unit, initial)


class _Stage:
    """The part of tqdm's interface the package uses, printing one summary line when the stage ends."""

    def __init__(self, iterable, desc: str, total: int | None, unit: str, initial: int, quiet: bool = False):
        self.iterable, self.desc, self.total, self.unit = iterable, desc, total, unit
        self.n, self.postfix, self.quiet, self.closed = initial, "", quiet, False
        self.started, self.initial = time.perf_counter(), initial

    def _print(self, line: str) -> None:
        if not self.quiet:
            print(line, file=sys.stderr, flush=True)

    def __iter__(self) -> Iterator[Any]:
        try:
            for item in self.iterable:
                yield item
                self.n += 1
        finally:
            self.close()

    def __enter__(self) -> "_Stage":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix(self, ordered_dict: dict | None = None, refresh: bool = True, **kwargs: Any) -> None:
        items = {**(ordered_dict or {}), **kwargs}
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or self.desc

    def write(self, text: str) -> None:
        self._print(text)

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        done = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        resumed = f" (resumed at {self.initial})" if self.initial else ""
        extra = f", {self.postfix}" if self.postfix else ""
        self._print(f"{self.desc}: {done} {self.unit}{resumed} in {time.perf_counter() - self.started:.1f} s{extra}")


def quiet_library_bars() -> None:
    """Off a terminal, silence the bars libraries draw themselves (transformers' "Loading weights",
    the Hugging Face hub's downloads): tqdm reads TQDM_DISABLE, the hub its own switch."""
    if not sys.stderr.isatty():
        os.environ.setdefault("TQDM_DISABLE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
