"""`compare`: recall per regime (or model) with bootstrap intervals over problems (spec 2.5).

Each run folder holds one configuration (an agent, a model, a prompt regime) over some problems
and runs. A problem's recall is its found bugs over its bugs, pooled over runs; a configuration's
recall is the micro recall over the problems it shares with the others. The 95 % interval comes
from resampling problems (10 000 bootstrap resamples); the difference to the first configuration
is a paired bootstrap over the same resampled problems. Instances with an endpoint failure are
left out, as in the summary.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.runner import read_results

RESAMPLES = 10_000


@dataclass
class Row:
    name: str
    recall: float
    interval: tuple[float, float]
    difference: float  # to the first configuration
    difference_interval: tuple[float, float]
    problems: int
    instances: int
    infra_errors: int


def per_problem_counts(run_dir: Path) -> tuple[dict[str, tuple[int, int]], int, int]:
    """problem -> (found, bugs) pooled over runs; plus scored and failed instance counts."""
    lines = read_results(run_dir / "results.jsonl")
    if not lines:
        raise ProceedingsError(f"'{run_dir}' holds no results.jsonl lines; pass folders written by `run`")
    counts: dict[str, tuple[int, int]] = {}
    scored = [r for r in lines if not r.get("infra_error")]
    for r in scored:
        found, total = counts.get(r["problem"], (0, 0))
        counts[r["problem"]] = (found + sum(b["found"] for b in r["bugs"]), total + len(r["bugs"]))
    return counts, len(scored), len(lines) - len(scored)


def _recall(counts: list[tuple[int, int]]) -> float:
    total = sum(t for _, t in counts)
    return sum(f for f, _ in counts) / total if total else 0.0


def _interval(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[int(0.025 * len(ordered))], ordered[int(0.975 * len(ordered)) - 1]


def compare(run_dirs: list[Path], names: list[str] | None = None, seed: int = 0) -> list[Row]:
    """One row per run folder, on the problems all of them scored."""
    if names and len(names) != len(run_dirs):
        raise ProceedingsError(f"{len(names)} names for {len(run_dirs)} run folders; give one name per folder")
    loaded = [per_problem_counts(Path(d)) for d in run_dirs]
    shared = sorted(set.intersection(*(set(c) for c, _, _ in loaded)))
    if not shared:
        raise ProceedingsError("the run folders share no scored problem; compare runs over the same problems")
    rng = random.Random(seed)
    samples = [[rng.choice(shared) for _ in shared] for _ in range(RESAMPLES)]
    boot = [[_recall([counts[p] for p in sample]) for sample in samples] for counts, _, _ in loaded]
    rows = []
    for i, ((counts, scored, failed), run_dir) in enumerate(zip(loaded, run_dirs)):
        differences = [a - b for a, b in zip(boot[i], boot[0])]
        rows.append(Row(name=names[i] if names else Path(run_dir).name,
                        recall=_recall([counts[p] for p in shared]), interval=_interval(boot[i]),
                        difference=_recall([counts[p] for p in shared]) - _recall([loaded[0][0][p] for p in shared]),
                        difference_interval=_interval(differences), problems=len(shared), instances=scored,
                        infra_errors=failed))
    return rows


def rows_json(rows: list[Row]) -> str:
    return json.dumps([row.__dict__ for row in rows], indent=1)
