"""Benchmark metrics (spec 2.5): bug recall micro and per level, macro recall, perfect solves,
false positives, validity; aggregated over problems and runs. Instances whose agent hit an
endpoint failure (`infra_error`) are excluded from recall and counted separately."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, Iterable

from proceedings.pbtbench.problem import LEVELS


def summarise(lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Summary of results.jsonl lines (one per problem x run)."""
    lines = sorted(lines, key=lambda r: (r["problem"], r["run"]))
    scored = [r for r in lines if not r.get("infra_error")]
    bugs = [b for r in scored for b in r["bugs"]]
    by_level = {level: [b for b in bugs if b["level"] == level] for level in LEVELS}
    per_problem = defaultdict(list)
    for r in scored:
        if r["bugs"]:
            per_problem[r["problem"]].append(sum(b["found"] for b in r["bugs"]) / len(r["bugs"]))
    runs = sorted({r["run"] for r in scored})
    per_run = [_recall([b for r in scored if r["run"] == run for b in r["bugs"]]) for run in runs]
    return {
        "instances": len(lines), "scored": len(scored), "infra_errors": len(lines) - len(scored),
        "bugs": len(bugs), "found": sum(b["found"] for b in bugs),
        "recall": _recall(bugs) if scored else None,  # nothing scored is not a recall of 0
        "recall_std_over_runs": statistics.pstdev(per_run) if len(per_run) > 1 else 0.0,
        "recall_by_level": {level: _recall(b) for level, b in by_level.items() if b},
        "bugs_by_level": {level: len(b) for level, b in by_level.items()},
        "macro_recall": statistics.fmean(statistics.fmean(v) for v in per_problem.values()) if per_problem else 0.0,
        "perfect_solve_rate": (sum(all(b["found"] for b in r["bugs"]) for r in scored if r["bugs"]) / len(scored)
                               if scored else 0.0),
        "false_positive_functions": sum(len(r["false_positives"]) for r in scored),
        "valid_files": sum(r["valid"] for r in scored),
        "uses_hypothesis": sum(r["uses_hypothesis"] for r in scored),
        "sandbox_runs": sum(r["runs"] for r in scored),
        "wall_s": round(sum(r["wall_s"] for r in scored), 2),
    }


def _recall(bugs: list[dict[str, Any]]) -> float:
    return sum(b["found"] for b in bugs) / len(bugs) if bugs else 0.0


def per_bug_rows(lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (problem, bug): how many runs found it."""
    found: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for r in lines:
        if not r.get("infra_error"):
            for b in r["bugs"]:
                found[(r["problem"], b["bug"], b["level"])].append(b["found"])
    return [{"problem": p, "bug": b, "level": lv, "runs": len(v), "found_in": sum(v)}
            for (p, b, lv), v in sorted(found.items())]
