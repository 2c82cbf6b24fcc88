"""Staged runs: a long run cut into pieces by a time budget, each piece checkpointing before it stops.

A system names an environment variable holding the budget in minutes (`$PROCEEDINGS_<SYSTEM>_MAX_MINUTES`);
`budget_deadline` turns it into a deadline, the training loop asks `past_deadline` after each step, saves
its checkpoint and raises `Paused`, and running the same command again resumes from that checkpoint.
"""

from __future__ import annotations

import os
import time

from proceedings.core.errors import ProceedingsError


class Paused(ProceedingsError):
    """A staged run reached its time budget; its checkpoint is saved and running it again resumes."""


def budget_deadline(env: str) -> float | None:
    """time.time() at which a staged run pauses: now + $env minutes, or None (no budget) when $env is unset."""
    raw = os.environ.get(env, "").strip()
    if not raw:
        return None
    try:
        minutes = float(raw)
    except ValueError:
        raise ProceedingsError(f"${env}={raw!r} is not a number of minutes; unset it to run without a budget") from None
    if not minutes > 0:  # also refuses nan
        raise ProceedingsError(f"${env}={raw!r}: the budget must be > 0 minutes; unset it to run without a budget")
    return deadline_after(minutes)


def deadline_after(minutes: float) -> float:
    """time.time() `minutes` from now: the deadline `past_deadline` reads."""
    return time.time() + 60 * minutes


def past_deadline(deadline: float | None) -> bool:
    """True once `deadline` (time.time(), None for no budget) has passed."""
    return deadline is not None and time.time() > deadline


def pause_message(desc: str, done: int, total: int) -> str:
    """The one line a paused training loop raises with."""
    return f"{desc}: time budget reached at step {done}/{total}; run the same command again to resume"
