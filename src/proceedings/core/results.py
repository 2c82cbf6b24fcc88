"""The Result record every `reproduce(scale)` returns, saved as `results/<slug>/<scale>.json`.

`reproduced` is never stored by hand: the experiment's `verdict` supplies `checks`, one entry per
condition of the paper's claim (the condition as text -> whether the measured numbers satisfy it),
and `reproduced` is their conjunction. The conditions' text is kept in the record as the rule.

`paper` holds only numbers the paper states (`paper_source` says where: the abstract or a spec
section quoting it); the project's own theoretical predictions go in `predicted`. A run over
several seeds keeps every seed's numbers and their spread in `seeds` (schema 2).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import SCALES, atomic_write_text, check_scale

SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)  # schema 1 lacks paper_source, predicted and seeds; they default to empty
RESULTS_ENV = "PROCEEDINGS_RESULTS"


@dataclass
class Result:
    system: str
    scale: str
    claim: str  # one sentence: what the paper claims
    metrics: dict[str, Any]  # the method's measured numbers
    baseline: dict[str, Any]  # what it is compared against: {"name": ..., <metric>: ...}
    checks: dict[str, bool]  # each condition of the claim -> does the measurement satisfy it
    paper: dict[str, Any] = field(default_factory=dict)  # numbers the paper states, for comparison
    paper_source: str = ""  # where those numbers are stated ("abstract", "spec §4 quoting Table 2")
    predicted: dict[str, Any] = field(default_factory=dict)  # this project's own theoretical predictions
    config: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    seeds: dict[str, Any] = field(default_factory=dict)  # several seeds: {"seeds", "per_seed", "spread"}
    notes: str = ""  # what falls short, and why
    artifacts: list[str] = field(default_factory=list)  # plots etc., relative to the results root
    device: str = "cpu"
    duration_s: float | None = None  # set by the runner that timed it; None = not measured
    cpu_s: float | None = None
    versions: dict[str, str] = field(default_factory=dict)
    created: str = ""
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        check_scale(self.scale)
        if not self.checks:
            raise ProceedingsError(f"result for '{self.system}' has no checks: nothing decides 'reproduced'")
        self.checks = {rule: bool(holds) for rule, holds in self.checks.items()}
        if not self.created:
            self.created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

    @property
    def reproduced(self) -> bool:
        """True when every condition of the claim holds for the measured numbers."""
        return all(self.checks.values())

    @property
    def rule(self) -> str:
        return " and ".join(self.checks)

    def to_dict(self) -> dict[str, Any]:
        record = asdict(self)
        record["reproduced"] = self.reproduced
        record["rule"] = self.rule
        return _finite(record)

    @classmethod
    def from_dict(cls, record: dict[str, Any], source: str = "<dict>") -> "Result":
        version = record.get("schema_version")
        if version not in READABLE_SCHEMAS:
            raise ProceedingsError(
                f"{source}: schema version {version!r}, this package reads "
                f"{', '.join(map(str, READABLE_SCHEMAS))}; re-run the experiment or update proceedings"
            )
        known = {f.name for f in fields(cls)}
        result = cls(**{k: v for k, v in record.items() if k in known and k != "schema_version"})
        if "reproduced" in record and record["reproduced"] != result.reproduced:
            raise ProceedingsError(
                f"{source}: 'reproduced' is {record['reproduced']} but its checks say {result.reproduced}; "
                "the file was edited by hand"
            )
        return result


def _finite(value: Any) -> Any:
    """JSON has no NaN/inf: store them as strings so the file stays standard and honest."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def results_root(root: Path | str | None = None) -> Path:
    """Where results live: the argument, else $PROCEEDINGS_RESULTS, else ./results."""
    return Path(root or os.environ.get(RESULTS_ENV, "results"))


def result_path(system: str, scale: str, root: Path | str | None = None) -> Path:
    return results_root(root) / system / f"{check_scale(scale)}.json"


def artifact_dir(system: str, scale: str, root: Path | str | None = None) -> Path:
    """A folder for a run's plots and tables, next to its JSON record."""
    path = results_root(root) / system / check_scale(scale)
    path.mkdir(parents=True, exist_ok=True)
    return path


def save(result: Result, root: Path | str | None = None) -> Path:
    """Atomically write the record; returns its path."""
    text = json.dumps(result.to_dict(), indent=2, sort_keys=False, default=str) + "\n"
    return atomic_write_text(result_path(result.system, result.scale, root), text)


def load(system: str, scale: str, root: Path | str | None = None) -> Result:
    path = result_path(system, scale, root)
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        raise ProceedingsError(f"no result at '{path}'; run `proceedings reproduce {system} --scale {scale}`") from None
    except json.JSONDecodeError as err:
        raise ProceedingsError(f"'{path}' is not valid JSON ({err}); re-run the experiment") from None
    return Result.from_dict(record, source=str(path))


def latest(system: str, root: Path | str | None = None) -> Result | None:
    """The record at the largest scale that has one (paper > long > small > tiny), or None."""
    for scale in reversed(SCALES):
        if result_path(system, scale, root).exists():
            return load(system, scale, root)
    return None


def latest_or_problem(system: str, root: Path | str | None = None) -> tuple[Result | None, str]:
    """Like `latest`, but an unreadable record becomes a message instead of an exception,
    so one damaged file never hides the other systems in a listing or report."""
    try:
        return latest(system, root), ""
    except ProceedingsError as err:
        return None, str(err)
