"""Ground-truth gates for shipped tasks (spec §2.7 step 5; Verina shipped false theorems, verina#16):
every reference verifies in a fresh process and passes its tests, the reference code with its proof
removed does not verify (the task is not trivially solved by code alone; for a relation, a lemma
whose proof is the code region, the empty proof), and a commit0-mini implementation agrees with the
library on every recorded input (differential.py). `validate_tasks` runs them all, a few fresh
processes a task; `solution_problems` is CI's cheaper gate (round 13): verified and passing its tests,
Dafny through one warm test host and one batched test program (batch.py), Coq in its own `coqc`s."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from proceedings.verified_codegen.batch import test_many
from proceedings.verified_codegen.candidates import Candidate, reference_candidate
from proceedings.verified_codegen.checkers import get_checker
from proceedings.verified_codegen.differential import agreement, recorded_tests
from proceedings.verified_codegen.tasks import Task, load_tasks


def proves_a_lemma(task: Task, backend: str) -> bool:
    """A relation task: the spec states a Dafny lemma, and the code region is its proof."""
    return backend == "dafny" and re.search(r"^\s*lemma\b", spec_region(task, backend), re.M) is not None


def spec_region(task: Task, backend: str) -> str:
    return next((p.text for p in task.spec(backend).pieces if p.region == "spec"), "")


def without_proof(candidate: Candidate, proof_only: bool = False) -> Candidate:
    """The reference's code with every annotation, lemma and proof script removed (`proof_only`: the code
    region is itself a proof, and is emptied)."""
    if proof_only:
        return replace(candidate, code="{\n}\n", lemmas=())
    if candidate.backend == "dafny":
        code = "\n".join(line for line in candidate.code.splitlines()
                         if not line.strip().startswith(("invariant", "assert", "decreases")))
        return replace(candidate, code=code, lemmas=())
    return replace(candidate, lemmas=(), proof="  intros; simpl; auto.\n")


def validate_tasks(root: str | Path, report=lambda line: None) -> list[str]:
    problems = []
    checkers = {}
    for task in load_tasks(root):
        for backend in task.backends:
            checker = checkers.setdefault(backend, get_checker(backend))
            if not checker.available:
                problems.append(f"{task.id} [{backend}]: unavailable — {checker.missing()}")
                continue
            ref, relation = reference_candidate(task, backend), proves_a_lemma(task, backend)
            verdict = checker.verify(task, ref.regions(), fresh=True)
            tests = checker.run_tests(task, ref.regions())
            bare = checker.verify(task, without_proof(ref, relation).regions(), fresh=True)
            report(f"{task.id} [{backend}]: reference {verdict.status} ({verdict.seconds:.1f} s), tests "
                   f"{'pass' if tests.passed else 'FAIL'}, without proof {bare.status}")
            if task.source == "commit0" and backend == "coq":  # Coq prints both sides: run on every recorded test
                every_test = tuple(recorded_tests(task))
                recorded = checker.run_tests(replace(task, tests=every_test), ref.regions())
                report(f"{task.id} [coq]: reference on all {len(every_test)} recorded tests: "
                       f"{'agrees' if recorded.passed else recorded.reason}")
                if not recorded.passed:
                    problems.append(f"{task.id} [coq]: reference disagrees with the library: {recorded.reason}")
            elif task.source == "commit0" and not relation:
                agreed = agreement(task, checker, ref.regions())
                report(f"{task.id} [{backend}]: reference agrees with the library on {agreed.inputs - len(agreed.mismatches)}"
                       f" of {agreed.inputs} recorded inputs")
                if not agreed.agrees:
                    problems.append(f"{task.id} [{backend}]: reference disagrees with the library: "
                                    f"{agreed.reason or f'inputs {agreed.mismatches[:5]}'}")
            if not verdict.ok:
                problems.append(f"{task.id} [{backend}]: reference does not verify: {verdict.reason}")
            if not tests.passed:
                problems.append(f"{task.id} [{backend}]: reference fails its tests: {tests.reason}")
            if bare.ok:
                problems.append(f"{task.id} [{backend}]: verifies without any proof (trivial task)")
    return problems


def solution_problems(items: list[tuple[Task, str, dict[str, str]]], timeout_s: float = 600.0) -> list[str]:
    """Per (task, backend, solution): "" when it verifies and passes the task's tests, else what failed.
    Dafny: each verification a `dafny` request to one warm test host (a proof that times out there is
    checked again in a fresh process: `verina_rotate` timed out at 30 s in the host, round 13, and verifies
    fresh in ~6 CPU-s), all tests in one program (batch.py); Coq: a fresh `coqc` per check."""
    checkers = {"dafny": get_checker("dafny", timeout_s=timeout_s, host_verifies=True), "coq": get_checker("coq")}
    problems = []
    for task, backend, solution in items:
        verdict = checkers[backend].verify(task, solution, fresh=backend == "coq")
        if "timed out" in verdict.reason:  # near Dafny's wall-clock limit: a fresh process has the last word
            verdict = checkers[backend].verify(task, solution, fresh=True)
        problems.append("" if verdict.ok else f"{verdict.status}: {verdict.reason}")
        if backend == "coq":
            tests = checkers["coq"].run_tests(task, solution)
            problems[-1] = "; ".join(p for p in (problems[-1], "" if tests.passed else tests.reason) if p)
    dafny = [n for n, (_, backend, _) in enumerate(items) if backend == "dafny"]
    if dafny and checkers["dafny"].available:
        for n, reason in zip(dafny, test_many(checkers["dafny"], [(items[n][0], items[n][2]) for n in dafny])[0]):
            problems[n] = "; ".join(p for p in (problems[n], reason) if p)
    checkers["dafny"].close()
    return problems


def references(tasks: list[Task]) -> list[tuple[Task, str, dict[str, str]]]:
    """Every shipped reference solution, one item per task and backend."""
    return [(task, backend, reference_candidate(task, backend).regions()) for task in tasks for backend in task.backends]
