"""results/ -> docs/report.md: one row per system, our numbers beside the paper's, and the plots.

A system without a result shows "not run"; no number is ever filled in for it.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

from proceedings.core.results import Result, latest_or_problem, results_root
from proceedings.core.runtime import atomic_write_text
from proceedings.registry import SYSTEMS, System

_KEY_METRICS = 4  # numbers shown in the summary table when the paper's are not given


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def headline(result: Result) -> list[tuple[str, str, str]]:
    """(metric, ours, paper's) for the metrics the paper reports, else the first few of ours."""
    shared = [key for key in result.paper if key in result.metrics]
    keys = shared or list(result.metrics)[:_KEY_METRICS]
    return [(k, format_value(result.metrics[k]), format_value(result.paper.get(k, "-"))) for k in keys]


def _summary_row(system: System, result: Result | None, problem: str) -> str:
    if result is None:
        state = f"unreadable result: {problem}" if problem else "not run"
        return f"| `{system.slug}` | {system.status} | {system.claim} | {state} | - | - | - |"
    numbers = "; ".join(f"{k}: {ours} (paper {paper})" for k, ours, paper in headline(result))
    verdict = "**yes**" if result.reproduced else "no"
    return (f"| `{system.slug}` | {system.status} | {system.claim} | {result.scale} | {numbers} | "
            f"{verdict} | {result.created[:10]} |")


def _section(system: System, result: Result, root: Path, report_dir: Path) -> list[str]:
    lines = [f"## {system.title} (`{system.slug}`, {result.scale})", "", f"Claim: {result.claim}", ""]
    lines += ["| metric | ours | baseline | paper |", "|---|---|---|---|"]
    for key, value in result.metrics.items():
        base = result.baseline.get(key, "-")
        lines.append(f"| {key} | {format_value(value)} | {format_value(base)} | "
                     f"{format_value(result.paper.get(key, '-'))} |")
    lines += ["", f"Baseline: {result.baseline.get('name', 'unnamed')}. Checks:", ""]
    lines += [f"- {'[x]' if holds else '[ ]'} {rule}" for rule, holds in result.checks.items()]
    lines += ["", f"Reproduced: **{format_value(result.reproduced)}**; seed {result.seed}, "
                  f"{result.duration_s:.1f} s wall, {result.cpu_s:.1f} CPU-s on {result.device}."]
    if result.notes:
        lines += ["", result.notes]
    for artifact in result.artifacts:
        link = os.path.relpath(root / artifact, report_dir)
        image = artifact.lower().endswith((".png", ".svg", ".jpg"))
        lines += ["", f"![{artifact}]({link})" if image else f"[{artifact}]({link})"]
    return lines + [""]


def render(root: Path | str | None = None, report_dir: Path | str = "docs") -> str:
    """The report as Markdown text."""
    root, report_dir = results_root(root), Path(report_dir)
    found = {system.slug: latest_or_problem(system.slug, root) for system in SYSTEMS}
    lines = [
        "# proceedings: measured results",
        "",
        f"Generated {_dt.date.today().isoformat()} by `proceedings report` from `{root}/`. "
        "Each row shows the largest scale that has been run.",
        "",
        "| system | status | paper's claim | scale | ours (paper) | reproduced | date |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [_summary_row(system, *found[system.slug]) for system in SYSTEMS]
    lines.append("")
    for system in SYSTEMS:
        result, _ = found[system.slug]
        if result is not None:
            lines += _section(system, result, root, report_dir)
    return "\n".join(lines)


def write_report(root: Path | str | None = None, report_dir: Path | str = "docs") -> Path:
    """Write `<report_dir>/report.md` atomically and return its path."""
    path = Path(report_dir) / "report.md"
    return atomic_write_text(path, render(root, report_dir))
