"""Trigger-rate meter and admission gates (spec 2.3), written to `bugs.lock.json`.

For every bug the meter measures, in real sandboxed runs of `max_examples` examples with seeds
1000..1000+R-1, how often its reference property fails
  - on the clean library, under the reference and the default strategy (gate: never),
  - on the library with only this bug, under the reference strategy (gate: >= 95 % of runs) and
    under the default strategy, st.from_type of each annotation (gate: <= 5 % for L2/L3, <= 50 % for L1),
    where at least 20 % of the default strategy's examples must reach the assertion (the reach
    rate: examples past every `assume`); a bug whose defaults never reach its assertion says
    nothing about strategies and is refused,
  - on the library with every other bug applied, reference strategy (gate: never: the other bugs
    do not trigger this bug's property, which is also what conservative Fail->Pass needs).
The library's example tests must pass with the bug applied, and the patch must apply, reverse-apply
and pass the hygiene lint. A bug the realism audit refused (`refused = "why"` in problem.toml: an
artificial gate rather than a plausible maintainer mistake) is recorded and not measured. A bug
that fails any gate is not admitted.
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
import time
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.pbtbench.integrity import installed_unchanged
from proceedings.pbtbench.overlay import installed_site_packages, patched_texts
from proceedings.pbtbench.patching import PatchError, apply_patch, lint_patch, read_from
from proceedings.pbtbench.problem import Bug, Problem
from proceedings.pbtbench.pytest_run import run_pytest
from proceedings.pbtbench.sandbox import Limits, Sandbox, target_for, worker_pool

FIRST_SEED = 1000
REFERENCE_MIN = 0.95
DEFAULT_MAX = {"L1": 0.50, "L2": 0.05, "L3": 0.05}
REACH_MIN = 0.20  # issue 16: default-strategy examples must reach the assertion, or "rarely found" means nothing
_HERE = Path(__file__).parent


@dataclass
class Cell:
    """Runs of one property under one strategy on one library configuration."""

    detected: int  # runs in which at least one example failed
    runs: int
    triggered: int  # failing examples, over the complete runs
    valid: int  # examples not rejected by assume, over the complete runs
    wall_s: float
    calls: int = 0  # examples the property was called with (valid or rejected), over the complete runs
    example: str | None = None  # the first failure's message
    error: str | None = None  # a Hypothesis error (e.g. Unsatisfiable) in some run

    @property
    def rate(self) -> float:
        return self.detected / self.runs if self.runs else 0.0

    @property
    def per_example(self) -> float:
        return self.triggered / self.valid if self.valid else 0.0

    @property
    def reach(self) -> float:
        """Share of examples that reach the assertion (pass every assume)."""
        return self.valid / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rate": round(self.rate, 4), "per_example": round(self.per_example, 5),
                "reach": round(self.reach, 4)}


def _config_name(bug_ids: tuple[str, ...]) -> str:
    return "clean" if not bug_ids else "+".join(bug_ids)


@dataclass(frozen=True)
class ProbeTask:
    property: str
    strategy: str  # "reference" | "default"


def probe(problem: Problem, bug_ids: tuple[str, ...], tasks: list[ProbeTask], runs: int, examples: int,
          sandbox: Sandbox, first_seed: int = FIRST_SEED) -> dict[ProbeTask, Cell]:
    """One sandboxed probe run on the overlay with `bug_ids`: a Cell per task (seeds first_seed..)."""
    seeds = list(range(first_seed, first_seed + runs))
    spec = {"tasks": [{"property": t.property, "strategy": t.strategy, "seeds": seeds, "max_examples": examples,
                       "full_runs": runs if t.strategy == "default" else 1,
                       "parameters": [name for name, _ in problem.property_params[t.property]]} for t in tasks]}
    files = {"probe.py": (_HERE / "trigger_probe.py").read_text(), "props.py": problem.props_file.read_text(),
             "strategies.py": problem.strategies_file.read_text(), "probe_spec.json": json.dumps(spec)}
    outcome = sandbox.run(["probe.py"], files, target_for(problem, bug_ids))
    if "probe.json" not in outcome.outputs:
        why = "timed out" if outcome.timed_out else f"exit code {outcome.returncode}"
        raise ProceedingsError(f"trigger probe for {problem.id} ({_config_name(bug_ids)}) {why}: "
                               f"{outcome.stderr.strip()[-600:]}")
    cells = {}
    for result in json.loads(outcome.outputs["probe.json"]):
        task = ProbeTask(result["property"], result["strategy"])
        records = result["runs"]
        full = [r for r in records if r["full"]]  # per-example rates come from complete runs only
        cells[task] = Cell(
            detected=sum(r["triggered"] > 0 for r in records), runs=len(records),
            triggered=sum(r["triggered"] for r in full), valid=sum(r["valid"] for r in full),
            calls=sum(r["calls"] for r in full),
            wall_s=round(result["wall_s"], 3), example=next((r["first"] for r in records if r["first"]), None),
            error=next((r["error"] for r in records if r["error"]), None))
    return cells


def check_patch(problem: Problem, bug: Bug) -> list[str]:
    """Apply (dry run), reverse-apply and lint one patch; the list of problems found."""
    site = installed_site_packages(problem)
    try:
        patched = apply_patch(read_from(site), bug.patch_text, bug.patch.name)
        restored = apply_patch(lambda rel: patched[rel], bug.patch_text, bug.patch.name, reverse=True)
    except PatchError as err:
        return [str(err)]
    originals = {rel: (site / rel).read_text() for rel in patched}
    problems = [f"{bug.patch.name}: reverse application does not restore {rel}"
                for rel in patched if restored[rel] != originals[rel]]
    return problems + lint_patch(bug.patch_text, bug.patch.name, originals, patched)


def _measure_configuration(args: tuple) -> tuple[tuple[str, ...], dict[ProbeTask, Cell], float]:
    problem, bug_ids, tasks, runs, examples, limits = args
    started = time.perf_counter()
    cells = probe(problem, bug_ids, tasks, runs, examples, Sandbox(limits, unsafe=True))
    return bug_ids, cells, time.perf_counter() - started


def validate(problem: Problem, runs: int = 20, examples: int = 200, jobs: int = 1,
             limits: Limits = Limits(wall_s=900, cpu_s=900), write: bool = True) -> dict[str, Any]:
    """Measure every gate for every bug of `problem`; write and return the lock record."""
    with installed_unchanged([problem.library], f"validating {problem.id}"):
        record = _measure_gates(problem, runs, examples, jobs, limits)
    if write:
        atomic_write_text(problem.lock_file, json.dumps(record, indent=1) + "\n")
    return record


def _measure_gates(problem: Problem, runs: int, examples: int, jobs: int, limits: Limits) -> dict[str, Any]:
    started = time.perf_counter()
    measured_sha256 = problem.measured_sha256  # what the lock will vouch for, read before measuring it
    patch_problems = {bug.id: check_patch(problem, bug) for bug in problem.bugs}
    good = tuple(b for b in problem.bugs if not patch_problems[b.id] and not b.refused)
    try:
        patched_texts(problem, good)  # every good patch applies on top of all the others
    except PatchError as err:
        raise ProceedingsError(f"{problem.id}: co-injected patches overlap: {err}") from None
    tasks: dict[tuple[str, ...], list[ProbeTask]] = {(): [ProbeTask(b.property, s) for b in good
                                                          for s in ("reference", "default")]}
    for bug in good:
        tasks.setdefault((bug.id,), []).extend(
            [ProbeTask(bug.property, "reference"), ProbeTask(bug.property, "default")])
        others = tuple(sorted(b.id for b in good if b is not bug))
        if others:  # with two bugs, "all but i" is "only j": one overlay, one probe run
            tasks.setdefault(others, []).append(ProbeTask(bug.property, "reference"))
    jobs_args = [(problem, bug_ids, list(dict.fromkeys(t)), runs, examples, limits) for bug_ids, t in tasks.items()]
    measured = run_all(_measure_configuration, jobs_args, jobs)
    cells = {bug_ids: c for bug_ids, c, _ in measured}
    existing = _existing_tests_pass(problem, good, limits)
    record = {
        "problem": problem.id, "library": f"{problem.library}=={problem.version}",
        "measured_sha256": measured_sha256,
        "hypothesis": metadata.version("hypothesis"), "python": platform.python_version(),
        "runs": runs, "examples": examples, "seeds": [FIRST_SEED, FIRST_SEED + runs - 1],
        "sandbox": Sandbox(limits, unsafe=True).level, "measured": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "configuration_wall_s": {_config_name(b): round(w, 2) for b, _, w in measured},
        "bugs": {bug.id: _bug_record(problem, bug, good, cells, patch_problems[bug.id], existing)
                 for bug in problem.bugs},
    }
    record["wall_s"] = round(time.perf_counter() - started, 2)
    return record


def _bug_record(problem: Problem, bug: Bug, good: tuple[Bug, ...], cells: dict, patch_problems: list[str],
                existing: dict[str, bool]) -> dict[str, Any]:
    record: dict[str, Any] = {"level": bug.level, "property": bug.property,
                              "patch_sha256": bug.patch_sha256,
                              "patch_problems": patch_problems}
    if patch_problems:
        record.update(gates={"patch": False}, admitted=False)
        return record
    if bug.refused:  # the realism audit: nothing to measure
        record.update(gates={"realism": False}, refused=bug.refused, admitted=False)
        return record
    clean, mine = cells[()], cells[(bug.id,)]
    reference, default = mine[ProbeTask(bug.property, "reference")], mine[ProbeTask(bug.property, "default")]
    clean_ref, clean_def = clean[ProbeTask(bug.property, "reference")], clean[ProbeTask(bug.property, "default")]
    others = tuple(sorted(b.id for b in good if b is not bug))
    interference = cells[others][ProbeTask(bug.property, "reference")].to_dict() if others else None
    gates = {
        "patch": True,
        "clean": clean_ref.detected == 0 and clean_def.detected == 0 and not clean_ref.error,
        "reference": reference.rate >= REFERENCE_MIN,
        "default": default.rate <= DEFAULT_MAX[bug.level],
        "reach": default.reach >= REACH_MIN,
        "interference": interference is None or interference["detected"] == 0,
        "existing_tests": existing.get(bug.id, False),
    }
    record.update(reference=reference.to_dict(), default=default.to_dict(),
                  clean={"reference": clean_ref.to_dict(), "default": clean_def.to_dict()},
                  interference=interference, gates=gates, admitted=all(gates.values()))
    return record


def _existing_tests_pass(problem: Problem, bugs: tuple[Bug, ...], limits: Limits) -> dict[str, bool]:
    """Gate (e): the example tests shown to the agent pass with each bug applied."""
    tests = problem.existing_tests
    if not tests:
        return {bug.id: True for bug in bugs}
    code = "\n\n".join(t.read_text() for t in tests)
    sandbox = Sandbox(limits, unsafe=True)  # the project's own example tests
    verdict = {}
    for bug in bugs:
        report = run_pytest(sandbox, "existing_test.py", code, target_for(problem, (bug.id,)), problem.seed)
        verdict[bug.id] = bool(report.verdicts) and all(v == "passed" for v in report.verdicts.values())
    return verdict


def run_all(function, arguments: list, jobs: int) -> list:
    """`function` over `arguments` in order, in `jobs` processes when more than one."""
    if jobs <= 1 or len(arguments) <= 1:
        return [function(a) for a in arguments]
    with worker_pool(jobs) as pool:
        return list(pool.map(function, arguments))
