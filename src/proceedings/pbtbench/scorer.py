"""Per-function Fail->Pass scoring of a test file against a problem's bugs (spec 2.5).

Configurations: ALL (every admitted bug), ALL-i, CLEAN, ONLY-i. A test function finds bug i if it
fails on ALL and passes on ALL-i (conservative) or, failing that, fails on ONLY-i and passes on
CLEAN (liberal). "Fails" means a test failure: collection errors, sandbox kills and timeouts never
count, and a function that times out in any configuration is never credited. A function failing
on CLEAN is a false positive. Runs are lazy: ALL-i only when something failed on ALL, ONLY-i only
for bugs still unfound; the verdict is the same as running every configuration.
"""

from __future__ import annotations

import ast
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from proceedings.pbtbench.integrity import installed_unchanged
from proceedings.pbtbench.problem import Bug, Problem
from proceedings.pbtbench.pytest_run import run_pytest
from proceedings.pbtbench.sandbox import Sandbox, target_for

TEST_FILE = "pbt_test.py"


@dataclass
class BugResult:
    bug: str
    level: str
    found: bool
    rule: str  # "conservative" | "liberal" | ""
    functions: list[str]  # the functions credited by that rule


@dataclass
class ScoreReport:
    problem: str
    bugs: list[BugResult]
    functions: list[str]
    false_positives: list[str]  # functions failing on the clean library
    timeouts: list[str]
    valid: bool  # collected at least one test
    uses_hypothesis: bool
    reason: str  # why the file scores nothing, when it does not parse or collect
    runs: int  # sandboxed pytest runs made
    wall_s: float
    sandbox_level: str
    verdicts: dict[str, dict[str, str]] = field(default_factory=dict)  # configuration -> function -> verdict

    @property
    def recall(self) -> float:
        return sum(b.found for b in self.bugs) / len(self.bugs) if self.bugs else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "recall": self.recall}


def static_check(code: str) -> tuple[bool, bool, str]:
    """(parses, uses Hypothesis's given, reason) from the source alone.

    A file that defines no `test*` function or `Test*` class (and assigns no `test*`/`Test*` name)
    cannot collect anything, so it is not run at all.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as err:
        return False, False, f"does not parse: line {err.lineno}: {err.msg}"
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    imports = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    if not any(name.startswith(("test", "Test")) for name in defined):
        return True, False, "no test collected (the file defines no test function or class)"
    return True, bool({"given", "RuleBasedStateMachine"} & (names | imports)), ""


class Scorer:
    """Scores test files for one problem against its admitted bugs."""

    def __init__(self, problem: Problem, sandbox: Sandbox | None = None, bugs: tuple[Bug, ...] | None = None,
                 seed: int | None = None):
        self.problem = problem
        self.sandbox = sandbox or Sandbox()
        self.bugs = bugs if bugs is not None else problem.admitted_bugs()
        self.seed = problem.seed if seed is None else seed  # Hypothesis seed of every scoring run
        self.runs = 0
        self.timeouts: set[str] = set()

    def _run(self, code: str, bug_ids: tuple[str, ...]) -> tuple[dict[str, str], bool]:
        report = run_pytest(self.sandbox, TEST_FILE, code, target_for(self.problem, bug_ids), self.seed,
                            exclude=frozenset(self.timeouts))
        self.runs += 1
        self.timeouts |= {k for k, v in report.verdicts.items() if v == "timeout"}
        return report.verdicts, report.collection_error

    def score(self, code: str) -> ScoreReport:
        """Per-bug Fail->Pass of `code`; the installed libraries are hashed before and after."""
        with installed_unchanged([self.problem.library], f"scoring a test file for {self.problem.id}"):
            return self._score(code)

    def _score(self, code: str) -> ScoreReport:
        started = time.perf_counter()
        self.runs, self.timeouts = 0, set()
        parses, uses_hypothesis, reason = static_check(code)
        every = tuple(b.id for b in self.bugs)
        verdicts: dict[str, dict[str, str]] = {}
        if parses and not reason:
            verdicts["all"], collection_error = self._run(code, every)
            if collection_error or not verdicts["all"]:
                reason = "no test collected" + (" (collection error)" if collection_error else "")
        if reason:
            return self._report([BugResult(b.id, b.level, False, "", []) for b in self.bugs], verdicts,
                                uses_hypothesis, reason, started)
        verdicts["clean"], _ = self._run(code, ())
        results = []
        failing_all = self._failing(verdicts["all"])
        for bug in self.bugs:
            credited, rule = [], ""
            if failing_all:
                name = f"all-but:{bug.id}"
                verdicts[name], _ = self._run(code, tuple(b for b in every if b != bug.id))
                credited = [f for f in failing_all if self._passes(verdicts[name], f)]
                rule = "conservative" if credited else ""
            if not credited:
                name = f"only:{bug.id}"
                verdicts[name], _ = self._run(code, (bug.id,))
                credited = [f for f in self._failing(verdicts[name]) if self._passes(verdicts["clean"], f)]
                rule = "liberal" if credited else ""
            results.append(BugResult(bug.id, bug.level, bool(credited), rule, sorted(credited)))
        return self._report(results, verdicts, uses_hypothesis, "", started)

    def _failing(self, verdicts: dict[str, str]) -> list[str]:
        return [f for f, v in verdicts.items() if v == "failed" and f not in self.timeouts]

    def _passes(self, verdicts: dict[str, str], function: str) -> bool:
        return verdicts.get(function) == "passed" and function not in self.timeouts

    def _report(self, results: list[BugResult], verdicts: dict[str, dict[str, str]], uses_hypothesis: bool,
                reason: str, started: float) -> ScoreReport:
        functions = sorted({f for v in verdicts.values() for f in v})
        false_positives = sorted(f for f, v in verdicts.get("clean", {}).items() if v == "failed")
        return ScoreReport(problem=self.problem.id, bugs=results, functions=functions,
                           false_positives=false_positives, timeouts=sorted(self.timeouts),
                           valid=not reason, uses_hypothesis=uses_hypothesis,
                           reason=reason, runs=self.runs, wall_s=round(time.perf_counter() - started, 3),
                           sandbox_level=self.sandbox.level, verdicts=verdicts)
