"""The differential check of commit0-mini (issue 24, check (4)): a verified implementation, compiled and
run, must agree with the real library on every recorded input.

A proof shows the code meets the Dafny spec; only running it shows the spec means what the library
does. The candidate is compiled (`dafny /compile:4 /noVerify`) with a `Main` that calls it on every
recorded input (visible and hidden) and prints the results; the library's recorded outputs are
compared in Python, outside the sandbox. The file written for the run is a function of the inputs
and the candidate alone: no expected value is in it or beside it, and the cheat scan runs first, so
code cannot read the tests or the reference (`include`, `{:extern}` are rejected before anything runs).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.cheats import scan
from proceedings.verified_codegen.checkers import Checker, dafny_value, normalise, run_process, tail
from proceedings.verified_codegen.commit0 import hidden_tests
from proceedings.verified_codegen.tasks import Task


@dataclass
class Agreement:
    inputs: int  # recorded inputs compared
    mismatches: list[int] = field(default_factory=list)  # indices into the recorded tests (visible first)
    reason: str = ""
    seconds: float = 0.0

    @property
    def agrees(self) -> bool:
        return self.inputs > 0 and not self.mismatches and not self.reason


def recorded_tests(task: Task) -> list[dict]:
    """Every test the builder recorded from the library: the visible ones, then the hidden ones."""
    return list(task.tests) + hidden_tests(task)


def blind_file(task: Task, checker: Checker, solution: dict[str, str], recorded: list[dict]) -> str:
    """The program that is compiled and run: the candidate and a Main printing its result on every input."""
    blind = replace(task, tests=tuple({"input": test["input"]} for test in recorded))
    return checker.test_file(blind, solution)


def agreement(task: Task, checker: Checker, solution: dict[str, str]) -> Agreement:
    """Run `solution` on every recorded input and compare with the library's recorded outputs."""
    if checker.backend != "dafny":
        raise ProceedingsError(f"the differential check runs Dafny implementations (task '{task.id}' on {checker.backend})")
    recorded = recorded_tests(task)
    everything = list(range(len(recorded)))
    cheat = scan(checker.backend, solution)
    if cheat:
        return Agreement(len(recorded), everything, f"rejected: {cheat}")
    with tempfile.TemporaryDirectory(prefix="vcg-differential-") as tmp:
        path = Path(tmp) / "differential.dfy"
        path.write_text(blind_file(task, checker, solution, recorded))
        checker.processes += 1
        run = run_process(checker.test_argv(path), Path(tmp), checker.timeout_s)
    got = [value for value, _ in checker.test_values(run.output)]
    if run.returncode != 0 or len(got) != len(recorded):
        return Agreement(len(recorded), everything, f"does not compile or run: {tail(run.output)}", run.seconds)
    kind = task.signature["return_type"]
    wrong = [i for i, test in enumerate(recorded) if normalise(got[i]) != normalise(dafny_value(test["expected"], kind))]
    return Agreement(len(recorded), wrong, "", run.seconds)
