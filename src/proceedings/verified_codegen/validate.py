"""Ground-truth gates for shipped tasks (spec §2.7 step 5; Verina shipped false theorems, verina#16):
every reference verifies in a fresh process and passes its tests, and the reference code with its
proof removed does not verify (the task is not trivially solved by code alone)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from proceedings.verified_codegen.candidates import Candidate, reference_candidate
from proceedings.verified_codegen.checkers import get_checker
from proceedings.verified_codegen.tasks import load_tasks


def without_proof(candidate: Candidate) -> Candidate:
    """The reference's code with every annotation, lemma and proof script removed."""
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
            ref = reference_candidate(task, backend)
            verdict = checker.verify(task, ref.regions(), fresh=True)
            tests = checker.run_tests(task, ref.regions())
            bare = checker.verify(task, without_proof(ref).regions(), fresh=True)
            report(f"{task.id} [{backend}]: reference {verdict.status} ({verdict.seconds:.1f} s), tests "
                   f"{'pass' if tests.passed else 'FAIL'}, without proof {bare.status}")
            if not verdict.ok:
                problems.append(f"{task.id} [{backend}]: reference does not verify: {verdict.reason}")
            if not tests.passed:
                problems.append(f"{task.id} [{backend}]: reference fails its tests: {tests.reason}")
            if bare.ok:
                problems.append(f"{task.id} [{backend}]: verifies without any proof (trivial task)")
    return problems
