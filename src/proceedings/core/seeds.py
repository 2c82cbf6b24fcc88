"""Several seeds of one experiment: per-seed numbers, their mean, sd and a 95 % interval.

A margin smaller than the seed-to-seed spread is not a result, so `proceedings reproduce SLUG
--seeds 0,1,2` runs the preset once per seed and the system's verdict is given the means and,
for each number, the Student-t 95 % interval of its mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    from proceedings.core.results import Result


def parse_seeds(text: str) -> list[int]:
    """'0,1,2' -> [0, 1, 2]; an empty list, a non-integer or a repeated seed is a one-line error."""
    parts = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not part for part in parts):
        raise ProceedingsError(f"--seeds {text!r}: give a comma-separated list of integers, e.g. 0,1,2")
    try:
        seeds = [int(part) for part in parts]
    except ValueError:
        bad = next(part for part in parts if not part.lstrip("-").isdigit())
        raise ProceedingsError(f"--seeds {text!r}: '{bad}' is not an integer") from None
    repeated = sorted({s for s in seeds if seeds.count(s) > 1})
    if repeated:
        raise ProceedingsError(f"--seeds {text!r}: seed(s) {', '.join(map(str, repeated))} given twice")
    return seeds


@dataclass(frozen=True)
class Spread:
    """One number measured once per seed."""

    values: tuple[float, ...]

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values)

    @property
    def sd(self) -> float:
        """Sample standard deviation (ddof 1); 0 for a single seed."""
        n = len(self.values)
        if n < 2:
            return 0.0
        return math.sqrt(sum((v - self.mean) ** 2 for v in self.values) / (n - 1))

    @property
    def ci95(self) -> tuple[float, float]:
        """Student-t 95 % interval of the mean; a point for a single seed."""
        n = len(self.values)
        if n < 2:
            return (self.mean, self.mean)
        from scipy.stats import t

        half = t.ppf(0.975, n - 1) * self.sd / math.sqrt(n)
        return (self.mean - half, self.mean + half)

    def to_dict(self) -> dict[str, Any]:
        return {"values": list(self.values), "mean": self.mean, "sd": self.sd, "ci95": list(self.ci95)}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def spreads(records: list[dict[str, Any]], prefix: str = "") -> dict[str, Spread]:
    """Dotted path -> Spread for every number that every record has at that path."""
    found: dict[str, Spread] = {}
    for key, first in records[0].items():
        values = [record.get(key) for record in records]
        path = f"{prefix}{key}"
        if all(isinstance(v, dict) for v in values):
            found.update(spreads(values, prefix=f"{path}."))
        elif all(_is_number(v) for v in values):
            found[path] = Spread(tuple(float(v) for v in values))
    return found


def mean_record(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One record whose numbers are the per-seed means; other values are kept when every seed agrees,
    else listed per seed (so nothing differing is silently taken from seed 0)."""
    merged: dict[str, Any] = {}
    for key, first in records[0].items():
        values = [record.get(key) for record in records]
        if all(isinstance(v, dict) for v in values):
            merged[key] = mean_record(values)
        elif all(_is_number(v) for v in values):
            merged[key] = sum(float(v) for v in values) / len(values)
        elif all(v == first for v in values):
            merged[key] = first
        else:
            merged[key] = {"per_seed": values}
    return merged


def combine(runs: list["Result"], verdict: Callable[..., dict[str, bool]],
            contrasts: Callable[[dict, dict], dict[str, float]] | None = None) -> "Result":
    """One record for several seeds: the means, every seed's numbers and checks, the spread of each
    number, and the verdict re-stated over the means with 95 % intervals. `contrasts(metrics, baseline)`
    (an experiment's, optional) gives a seed's paired differences from its own numbers; they are stored
    in its metrics as `contrasts`, so the verdict reads their seed intervals (`metrics.contrasts.*`)."""
    from dataclasses import replace

    if contrasts is not None:
        runs = [replace(run, metrics={**run.metrics, "contrasts": contrasts(run.metrics, run.baseline)}) for run in runs]
    measured = [{"metrics": run.metrics, "baseline": run.baseline} for run in runs]
    spread = spreads(measured)
    metrics, baseline = mean_record([r.metrics for r in runs]), mean_record([r.baseline for r in runs])
    intervals = {path: s.ci95 for path, s in spread.items()}
    return replace(
        runs[0], metrics=metrics, baseline=baseline, seed=runs[0].seed,
        checks=verdict(metrics=metrics, baseline=baseline, intervals=intervals),
        seeds={"seeds": [run.seed for run in runs],
               "per_seed": [{"seed": run.seed, "metrics": run.metrics, "baseline": run.baseline,
                             "checks": run.checks, "reproduced": run.reproduced, "notes": run.notes} for run in runs],
               "spread": {path: s.to_dict() for path, s in spread.items()}},
        notes=f"Numbers are means over seeds {', '.join(str(run.seed) for run in runs)}; the checks are the "
              "system's verdict over those means and their 95 % intervals. Per seed: "
              + "; ".join(f"seed {run.seed} {'reproduced' if run.reproduced else 'not reproduced'}" for run in runs)
              + ". Each seed's numbers, checks and notes are under `seeds`.",
        created="",
    )
