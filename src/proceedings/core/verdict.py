"""Verdicts: measured numbers in, named checks out, and the counterfactuals that prove each can fail.

Every system's `experiment.py` defines `verdict(metrics, baseline, intervals=None) -> dict[str, bool]`:
a pure function of the numbers its Result record stores (`intervals` maps a dotted metric path,
e.g. "metrics.auc", to its 95 % seed interval when the run had several seeds). `reproduced` is the
conjunction of the checks, so a record can always be re-judged from its own numbers.

A check that no change of the measured numbers can break proves nothing. `breaks` re-runs a verdict
with some numbers replaced and names the checks that no longer hold; each system's tests use it to
feed the baseline's numbers as the method's, and one counterfactual per check that breaks only it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from proceedings.core.errors import ProceedingsError

Verdict = Callable[..., dict[str, bool]]


def failed(checks: Mapping[str, bool]) -> list[str]:
    """The rules that do not hold, in the verdict's order."""
    return [rule for rule, holds in checks.items() if not holds]


def interval_end(intervals: Mapping[str, Any] | None, path: str, value: float, end: str) -> float:
    """The end of the 95 % seed interval at dotted `path` that a margin must clear: "low" for a number the
    check wants large, "high" for one it wants small; `value` itself for a one-seed record (no interval)."""
    if end not in ("low", "high"):
        raise ProceedingsError(f"interval end must be 'low' or 'high', not {end!r}")
    if not intervals or path not in intervals:
        return value
    return intervals[path][0 if end == "low" else 1]


def interval_ends(metrics: Mapping[str, Any], baseline: Mapping[str, Any], intervals: Mapping[str, Any] | None):
    """`low(path)` and `high(path)`: `interval_end` of a dotted "metrics.x" / "baseline.x" path, read from the
    record's own numbers, so a verdict states each margin once for one seed and for several."""
    def end(path: str, which: str) -> float:
        record = metrics if path.startswith("metrics.") else baseline
        return interval_end(intervals, path, record[path.split(".", 1)[1]], which)

    return (lambda path: end(path, "low")), (lambda path: end(path, "high"))


def with_changes(record: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of `record` with the values at dotted paths replaced ("metrics.ablations.x.auc").

    Every path must already exist, so a counterfactual can never test a name the verdict ignores.
    """
    changed = copy.deepcopy(dict(record))
    for path, value in changes.items():
        *parents, leaf = path.split(".")
        node = changed
        for part in parents:
            if not isinstance(node, dict) or part not in node:
                raise ProceedingsError(f"counterfactual path '{path}' does not exist (no '{part}')")
            node = node[part]
        if not isinstance(node, dict) or leaf not in node:
            raise ProceedingsError(f"counterfactual path '{path}' does not exist (no '{leaf}')")
        node[leaf] = value
    return changed


def method_as_baseline(metrics: Mapping[str, Any], baseline: Mapping[str, Any]) -> dict[str, Any]:
    """The method's metrics with every number the baseline also reports replaced by the baseline's:
    the counterfactual "the method is no better than what it is compared against"."""
    swapped = copy.deepcopy(dict(metrics))
    for key, value in baseline.items():
        if key in swapped and key != "name":
            swapped[key] = copy.deepcopy(value)
    return swapped


def breaks(verdict: Verdict, inputs: Mapping[str, Any], changes: Mapping[str, Any] | None = None) -> list[str]:
    """The checks that fail when `verdict(**inputs)` is re-run with `changes` applied.

    `inputs` are the verdict's keyword arguments (e.g. {"metrics": ..., "baseline": ...}); `changes`
    maps dotted paths into them ("metrics.auc") to counterfactual values.
    """
    return failed(verdict(**with_changes(inputs, changes or {})))


def audit(verdict: Verdict, passing: Mapping[str, Any], counterfactuals: Mapping[str, Mapping[str, Any]],
          baseline_as_method: Mapping[str, Any] | None = None) -> list[str]:
    """What is wrong with a verdict's counterfactual suite; empty when every check is falsifiable.

    `passing` are verdict inputs under which every check holds. `counterfactuals` maps a fragment of
    one check's rule to the changes (dotted paths) that should make that check, and only it, fail.
    `baseline_as_method` are inputs in which the method reports the baseline's numbers (default:
    `method_as_baseline` on inputs with "metrics" and "baseline"); the verdict must not pass them.
    Every rule must be the target of some counterfactual.
    """
    problems = [f"fails on the passing inputs: {rule}" for rule in breaks(verdict, passing)]
    rules = list(verdict(**with_changes(passing, {})))
    covered: set[str] = set()
    for fragment, changes in counterfactuals.items():
        targets = [rule for rule in rules if fragment in rule]
        if len(targets) != 1:
            problems.append(f"counterfactual '{fragment}' names {len(targets)} checks, not one")
            continue
        covered.add(targets[0])
        failing = breaks(verdict, passing, changes)
        if failing != targets:
            problems.append(f"counterfactual '{fragment}' {changes} fails {failing or 'nothing'}, "
                            f"not just '{targets[0]}'")
    problems += [f"no counterfactual breaks '{rule}'" for rule in rules if rule not in covered]
    if baseline_as_method is None and {"metrics", "baseline"} <= set(passing):
        baseline_as_method = {**passing, "metrics": method_as_baseline(passing["metrics"], passing["baseline"])}
    if baseline_as_method is not None and not breaks(verdict, baseline_as_method):
        problems.append("the baseline's numbers reported as the method's still pass every check")
    return problems
