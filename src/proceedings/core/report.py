"""results/ -> docs/report.md and a self-contained docs/report.html (plots embedded, no network).

The report is first built as a list of blocks (headings, paragraphs, tables, check lists, images),
then written twice: as Markdown for the repository and as one HTML file to open in any browser.
Numbers are shown to 3 significant digits, a number measured over several seeds as
`mean [low, high]` (its 95 % interval), dict-valued metrics as their own small tables. The paper's
column holds only numbers the paper states (with their source); the project's own theoretical
predictions have a column of their own. A system without a result shows "not run"; no number is
ever filled in for it. A record this package cannot read stops the report with a one-line error
and leaves the previous report files as they were.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proceedings.core.results import Result, latest, results_root
from proceedings.core.runtime import atomic_write_text
from proceedings.registry import SYSTEMS, System

_LIST_PREVIEW = 8  # list items shown before the rest are counted
_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml"}


# ----------------------------------------------------------------------------- numbers


def format_number(value: float) -> str:
    """3 significant digits; thousands with separators; scientific only for very small numbers."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        digits = len(str(int(abs(value))))
        return f"{round(value, 3 - digits):,.0f}"
    if abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{float(f'{value:.3g}'):g}"


def format_value(value: Any, interval: tuple[float, float] | None = None) -> str:
    """A metric as text: numbers to 3 significant digits, with a seed interval when there is one."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        text = format_number(value) if isinstance(value, float) else f"{value:,}" if abs(value) >= 10_000 else str(value)
        if interval is not None:
            text += f" [{format_number(interval[0])}, {format_number(interval[1])}]"
        return text
    if isinstance(value, (list, tuple)):
        shown = ", ".join(format_value(v) for v in value[:_LIST_PREVIEW])
        more = f", … ({len(value)} in all)" if len(value) > _LIST_PREVIEW else ""
        return f"[{shown}{more}]"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if value is None:
        return "-"
    return str(value)


# ----------------------------------------------------------------------------- blocks


@dataclass
class Heading:
    text: str
    level: int = 2
    anchor: str = ""


@dataclass
class Paragraph:
    text: str  # may hold `code` and **bold**


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class CheckList:
    checks: dict[str, bool]


@dataclass
class Image:
    path: Path  # absolute
    caption: str


@dataclass
class Link:
    path: Path
    caption: str


@dataclass
class Report:
    blocks: list[Any] = field(default_factory=list)

    def add(self, *blocks: Any) -> None:
        self.blocks.extend(blocks)


# ----------------------------------------------------------------------------- content


def _interval(result: Result, path: str) -> tuple[float, float] | None:
    spread = result.seeds.get("spread", {}).get(path)
    return tuple(spread["ci95"]) if spread else None


def _verdict_text(result: Result) -> str:
    held = sum(result.checks.values())
    word = "reproduced" if result.reproduced else "not reproduced"
    return f"{word} ({held}/{len(result.checks)} checks)"


def _timing(result: Result) -> str:
    if result.duration_s is None:
        return "time not recorded"
    return f"{format_number(result.duration_s)} s wall, {format_number(result.cpu_s or 0.0)} CPU-s"


def _summary(found: dict[str, Result | None]) -> Table:
    rows = []
    for system in SYSTEMS:
        result = found[system.slug]
        if result is None:
            rows.append([f"`{system.slug}`", system.status, system.claim, "not run", "-", "-"])
            continue
        verdict = f"**{_verdict_text(result)}**" if result.reproduced else _verdict_text(result)
        seeds = result.seeds.get("seeds")
        scale = f"{result.scale}, seeds {', '.join(map(str, seeds))}" if seeds else result.scale
        rows.append([f"[`{system.slug}`](#{system.slug})", system.status, system.claim, scale, verdict,
                     result.created[:10]])
    return Table(["system", "status", "paper's claim", "scale", "verdict", "date"], rows)


def _scalar(value: Any) -> bool:
    return not isinstance(value, dict)


def _metrics_table(result: Result) -> Table:
    """Scalar metrics: ours, the baseline's, the paper's (stated numbers only) and our prediction."""
    keys = [k for k, v in result.metrics.items() if _scalar(v)]
    keys += [k for k in (*result.paper, *result.predicted) if k not in result.metrics and k not in keys]
    rows = []
    for key in keys:
        ours = format_value(result.metrics[key], _interval(result, f"metrics.{key}")) if key in result.metrics else "-"
        base = result.baseline.get(key)
        base = format_value(base, _interval(result, f"baseline.{key}")) if _scalar(base) and base is not None else "-"
        rows.append([key, ours, base, format_value(result.paper.get(key)), format_value(result.predicted.get(key))])
    return Table(["metric", "ours", f"baseline ({result.baseline.get('name', 'unnamed')})", "paper", "predicted (ours)"],
                 rows)


def _dict_tables(result: Result, where: str, values: dict[str, Any]) -> list[Table]:
    """One small table per dict-valued metric: rows of scalars, or one row per entry of a dict of dicts."""
    tables = []
    for key, value in values.items():
        if _scalar(value) or not value:
            continue
        path = f"{where}.{key}"
        if all(isinstance(v, dict) for v in value.values()):
            columns = list(dict.fromkeys(c for v in value.values() for c in v))
            cell = lambda name, c: format_value(value[name].get(c), _interval(result, f"{path}.{name}.{c}"))
            if len(columns) > len(value):  # few entries with many fields read better down the page
                rows = [[c] + [cell(name, c) for name in value] for c in columns]
                tables.append(Table([key, *value], rows, caption=f"{where} `{key}`"))
            else:
                rows = [[name] + [cell(name, c) for c in columns] for name in value]
                tables.append(Table([key, *columns], rows, caption=f"{where} `{key}`"))
        else:
            rows = [[name, format_value(v, _interval(result, f"{path}.{name}"))] for name, v in value.items()]
            tables.append(Table([key, "value"], rows, caption=f"{where} `{key}`"))
    return tables


def _section(system: System, result: Result, root: Path) -> list[Any]:
    blocks: list[Any] = [
        Heading(f"{system.title} (`{system.slug}`, {result.scale})", anchor=system.slug),
        Paragraph(f"Claim: {result.claim}"),
        Paragraph(f"Verdict: **{_verdict_text(result)}**; {_timing(result)} on {result.device}; seed"
                  + (f"s {', '.join(map(str, result.seeds['seeds']))}" if result.seeds.get("seeds") else f" {result.seed}")
                  + "."),
        CheckList(result.checks),
        _metrics_table(result),
    ]
    if result.paper:
        blocks.append(Paragraph(f"Paper's numbers: {result.paper_source or 'source not recorded'}."))
    blocks += _dict_tables(result, "metrics", result.metrics)
    blocks += _dict_tables(result, "baseline", {k: v for k, v in result.baseline.items() if k != "name"})
    if result.notes:
        blocks.append(Paragraph(result.notes))
    for artifact in result.artifacts:
        path = (root / artifact).resolve()
        kind = Image if path.suffix.lower() in _IMAGE_TYPES and path.exists() else Link
        blocks.append(kind(path, artifact))
    return blocks


def build(root: Path | str | None = None) -> Report:
    """The report's blocks; raises ProceedingsError if any record cannot be read."""
    root = results_root(root)
    found = {system.slug: latest(system.slug, root) for system in SYSTEMS}
    report = Report()
    report.add(Heading("proceedings: measured results", level=1),
               Paragraph(f"Generated {_dt.date.today().isoformat()} by `proceedings report` from `{root}/`. "
                         "Each system shows the largest scale that has been run. Numbers have 3 significant "
                         "digits; `a [b, c]` is a mean over seeds with its 95 % interval. The paper column "
                         "holds only numbers the paper states; predictions are this project's own."),
               _summary(found))
    for system in SYSTEMS:
        if found[system.slug] is not None:
            report.add(*_section(system, found[system.slug], root))
    return report


# ----------------------------------------------------------------------------- Markdown


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report, report_dir: Path) -> str:
    lines: list[str] = []
    for block in report.blocks:
        if isinstance(block, Heading):
            anchor = f'<a id="{block.anchor}"></a>\n\n' if block.anchor else ""
            lines += [f"{anchor}{'#' * block.level} {block.text}", ""]
        elif isinstance(block, Paragraph):
            lines += [block.text, ""]
        elif isinstance(block, CheckList):
            lines += [f"- {'✓' if holds else '✗'} {rule}" for rule, holds in block.checks.items()] + [""]
        elif isinstance(block, Table):
            if block.caption:
                lines += [f"{block.caption}:", ""]
            lines += ["| " + " | ".join(map(_md_cell, block.header)) + " |",
                      "|" + "---|" * len(block.header)]
            lines += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in block.rows] + [""]
        elif isinstance(block, (Image, Link)):
            target = os.path.relpath(block.path, report_dir.resolve())
            bang = "!" if isinstance(block, Image) else ""
            lines += [f"{bang}[{block.caption}]({target})", ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- HTML

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
caption { text-align: left; font-style: italic; padding: 0.25rem 0; }
ul.checks { list-style: none; padding-left: 0.5rem; }
.ok { color: #17803d; } .fail { color: #b3261e; }
section { border-top: 2px solid #ddd; margin-top: 2rem; }
img { max-width: 100%; border: 1px solid #eee; }
div.wide { overflow-x: auto; }
code { background: #f5f5f5; padding: 0 0.2rem; }
"""


def _inline(text: str) -> str:
    """Escape, then turn `code` and **bold** into HTML."""
    text = html.escape(text)
    text = re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)


def _data_uri(path: Path) -> str:
    return f"data:{_IMAGE_TYPES[path.suffix.lower()]};base64,{base64.b64encode(path.read_bytes()).decode()}"


def to_html(report: Report, report_dir: Path) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>proceedings: measured results</title>", f"<style>{_STYLE}</style></head><body>"]
    open_section = False
    for block in report.blocks:
        if isinstance(block, Heading):
            if block.level == 2:
                parts.append("</section>" if open_section else "")
                parts.append(f'<section id="{html.escape(block.anchor)}">')
                open_section = True
            parts.append(f"<h{block.level}>{_inline(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, CheckList):
            items = [f'<li class="{"ok" if holds else "fail"}">{"✓" if holds else "✗"} {_inline(rule)}</li>'
                     for rule, holds in block.checks.items()]
            parts.append('<ul class="checks">' + "".join(items) + "</ul>")
        elif isinstance(block, Table):
            caption = f"<caption>{_inline(block.caption)}</caption>" if block.caption else ""
            head = "".join(f"<th>{_inline(h)}</th>" for h in block.header)
            body = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            parts.append(f'<div class="wide"><table>{caption}<thead><tr>{head}</tr></thead>'
                         f"<tbody>{body}</tbody></table></div>")
        elif isinstance(block, Image):
            parts.append(f'<figure><img src="{_data_uri(block.path)}" alt="{html.escape(block.caption)}">'
                         f"<figcaption>{html.escape(block.caption)}</figcaption></figure>")
        elif isinstance(block, Link):
            target = os.path.relpath(block.path, report_dir.resolve())
            parts.append(f'<p><a href="{html.escape(target)}">{html.escape(block.caption)}</a></p>')
    parts.append("</section>" if open_section else "")
    return "\n".join(parts + ["</body></html>", ""])


def render(root: Path | str | None = None, report_dir: Path | str = "docs") -> str:
    """The report as Markdown text."""
    return to_markdown(build(root), Path(report_dir))


def write_report(root: Path | str | None = None, report_dir: Path | str = "docs") -> list[Path]:
    """Write `<report_dir>/report.md` and `report.html`; nothing is written unless every record reads."""
    report_dir = Path(report_dir)
    report = build(root)
    markdown, page = to_markdown(report, report_dir), to_html(report, report_dir)
    return [atomic_write_text(report_dir / "report.md", markdown), atomic_write_text(report_dir / "report.html", page)]
