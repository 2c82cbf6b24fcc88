"""The three workflows the paper compares (spec §2.2), for any agent, on one shared budget.

- J, joint + repair: one request writes code and proof; every failure goes back as feedback.
- S, sequential (the de-facto workflow): code first, chosen by the task's tests; then proofs for the
  frozen code; the code changes only after `m` failed proofs.
- P, PlanFirst: a program-and-proof plan from the spec; the plan's code and proof scaffold (every
  planned lemma a hole) is tested, then checked modulo the holes; the lemmas are discharged one by one,
  in order. Refute-by-test: a scaffold that fails a recorded test refutes its plan, which goes back to
  the planner with the failing tests before any scaffold check or lemma discharge is spent on it; a
  scaffold the checker refuses goes back to elaboration; a lemma that resists `k` attempts also sends a
  failure summary back to the plan (<= R replans in all).

The budget is checker invocations: verification, scaffold and test runs all count (`Ledger`). A
workflow's choices never depend on the budget, so one run at B_max gives the solve rate at every
smaller budget (`Attempt.solved_within`). "verified" comes only from the checker, and a solved
attempt is re-checked alone in a fresh process before it counts (`judge`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from proceedings.verified_codegen.agents import Agent
from proceedings.verified_codegen.candidates import Candidate
from proceedings.verified_codegen.checkers import Checker, TestOutcome, Verdict
from proceedings.verified_codegen.tasks import Task

WORKFLOWS = ("joint", "sequential", "planfirst")
SHORT = {"joint": "J", "sequential": "S", "planfirst": "P"}


class OutOfBudget(Exception):
    """The workflow asked for one checker invocation (or model call) more than its budget allows."""


@dataclass(frozen=True)
class Settings:
    checks: int = 16  # B_max: checker invocations per task (verification, scaffold and test runs)
    calls: int = 64  # safety cap on model calls per task
    proof_rounds: int = 3  # S: failed proofs before the code may change (m)
    lemma_attempts: int = 3  # P: attempts per lemma before replanning (k)
    elaborations: int = 3  # P: elaborations under one plan (after refused scaffolds) before replanning
    replans: int = 2  # P: R


@dataclass
class Attempt:
    task: str
    backend: str
    workflow: str
    agent: str
    solved: bool = False  # the workflow's checker said "verified" and the fresh re-check agrees
    claimed: bool = False  # the workflow's checker said "verified"
    solved_at: int | None = None  # checker invocations used when the checker first said "verified"
    checks: int = 0
    calls: int = 0
    checker_s: float = 0.0  # seconds of checker runs charged to this attempt
    wall_s: float = 0.0  # elapsed, with memo answers charged at the seconds their first run took
    cpu_s: float = 0.0  # this process's CPU + the checkers' (memo answers: their first run's), same span as wall_s
    load_1m: float = 0.0  # the machine's 1-minute load average when the attempt started
    prompt_tokens: int = 0  # a model agent's tokens for this attempt (0 for search agents)
    completion_tokens: int = 0
    recheck: str = ""  # the fresh re-check's status ("" when nothing was solved)
    solution: dict[str, str] = field(default_factory=dict)
    trace: list[dict] = field(default_factory=list)

    def solved_within(self, budget: int) -> bool:
        return self.solved and self.solved_at is not None and self.solved_at <= budget

    def row(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "trace"}


class Ledger:
    """Counts model calls and checker invocations against the budget, and records the trace."""

    def __init__(self, checker: Checker, task: Task, settings: Settings, attempt: Attempt):
        self.checker, self.task, self.settings, self.attempt = checker, task, settings, attempt
        self.memo_saved_s = 0.0  # checker seconds charged but answered from the memo
        self.checker_cpu_s = 0.0  # checker CPU charged (memo answers: their first run's)

    def _charge(self, result) -> None:
        self.attempt.checker_s += result.seconds
        self.checker_cpu_s += result.cpu_s
        if result.cached:
            self.memo_saved_s += result.seconds

    def call(self, kind: str, request, *args):
        if self.attempt.calls >= self.settings.calls:
            raise OutOfBudget(f"{self.settings.calls} model calls")
        self.attempt.calls += 1
        answer = request(self.task, self.checker.backend, *args)
        self.attempt.trace.append({"call": kind, "answer": None if answer is None else _label(answer)})
        return answer

    def _spend(self) -> None:
        if self.attempt.checks >= self.settings.checks:
            raise OutOfBudget(f"{self.settings.checks} checker invocations")
        self.attempt.checks += 1

    def verify(self, candidate: Candidate, holes: tuple[str, ...] = ()) -> Verdict:
        self._spend()
        regions = candidate.regions()
        scaffold = candidate.regions(frozenset(holes)) if holes else None
        verdict = self.checker.verify(self.task, regions, scaffold=scaffold, holes=holes)
        self._charge(verdict)
        self.attempt.trace.append({"check": "scaffold" if holes else "verify", "holes": list(holes),
                                   "status": verdict.status, "reason": verdict.reason[:300],
                                   "seconds": round(verdict.seconds, 3), "cpu_s": round(verdict.cpu_s, 3)})
        return verdict

    def test(self, candidate: Candidate) -> TestOutcome:
        self._spend()
        outcome = self.checker.run_tests(self.task, candidate.test_regions())
        self._charge(outcome)
        self.attempt.trace.append({"check": "tests", "passed": outcome.passed, "failing": outcome.failing,
                                   "reason": outcome.reason[:300], "seconds": round(outcome.seconds, 3),
                                   "cpu_s": round(outcome.cpu_s, 3)})
        return outcome


def _label(answer) -> str:
    features = getattr(answer, "features", None)
    if features:
        return ",".join(f"{k}={v}" for k, v in sorted(features.items()))
    return type(answer).__name__ if not isinstance(answer, str) else f"proof[{len(answer)}]"


def joint(agent: Agent, ledger: Ledger, settings: Settings) -> Candidate | None:
    """J: code and proof in one request; the checker's message is the next request's feedback."""
    feedback = ""
    while True:
        candidate = ledger.call("joint", agent.joint, feedback)
        if candidate is None:
            return None
        verdict = ledger.verify(candidate)
        if verdict.ok:
            return candidate
        feedback = verdict.reason


def sequential(agent: Agent, ledger: Ledger, settings: Settings) -> Candidate | None:
    """S: code chosen by the tests, proofs for the frozen code, new code only after m failed proofs."""
    feedback = ""
    while True:
        code = ledger.call("code", agent.code, feedback)
        if code is None:
            return None
        outcome = ledger.test(code)
        if not outcome.passed:
            feedback = f"tests fail: {outcome.reason}"
            continue
        proof_feedback = ""
        for _ in range(settings.proof_rounds):
            candidate = ledger.call("proof", agent.proof, code, proof_feedback)
            if candidate is None:
                break
            if candidate.code_key() != code.code_key():
                proof_feedback = "the proof changed the frozen code"
                ledger.attempt.trace.append({"rejected": proof_feedback})
                continue
            verdict = ledger.verify(candidate)
            if verdict.ok:
                return candidate
            proof_feedback = verdict.reason
        feedback = f"no proof for this code after {settings.proof_rounds} attempts: {proof_feedback}"


def planfirst(agent: Agent, ledger: Ledger, settings: Settings) -> Candidate | None:
    """P: plan, elaborate (tests, then scaffold modulo lemma holes), discharge lemma by lemma; a failed test
    refutes the plan (replan at once), as does a lemma that resists k attempts."""
    feedback = ""
    for _ in range(1 + settings.replans):
        plan = ledger.call("plan", agent.plan, feedback)
        if plan is None:
            return None
        elaborate_feedback = ""
        for _ in range(settings.elaborations):
            scaffold = ledger.call("elaborate", agent.elaborate, plan, elaborate_feedback)
            if scaffold is None:
                break
            outcome = ledger.test(scaffold)
            if not outcome.passed:
                feedback = f"plan refuted by test(s) {outcome.failing}: {outcome.reason}"
                ledger.attempt.trace.append({"refuted": feedback[:300]})
                break
            holes = tuple(lemma.name for lemma in scaffold.lemmas)
            verdict = ledger.verify(scaffold, holes)
            if verdict.ok:
                return scaffold
            if verdict.status != "scaffold":
                elaborate_feedback = f"scaffold: {verdict.reason}"
                continue
            solved, feedback = discharge(agent, ledger, settings, scaffold)
            if solved is not None:
                return solved
            break
        else:
            feedback = f"no scaffold under this plan: {elaborate_feedback}"
    return None


def discharge(agent: Agent, ledger: Ledger, settings: Settings, scaffold: Candidate) -> tuple[Candidate | None, str]:
    """Prove the planned lemmas in dependency order; each check leaves the later lemmas as holes."""
    current = scaffold
    names = [lemma.name for lemma in scaffold.lemmas]
    for index, lemma in enumerate(scaffold.lemmas):
        later, feedback, proved = tuple(names[index + 1:]), "", False
        for _ in range(settings.lemma_attempts):
            proof = ledger.call("discharge", agent.discharge, current, lemma, feedback)
            if proof is None:
                break
            trial = current.with_lemma_proof(lemma.name, proof)
            verdict = ledger.verify(trial, later)
            if verdict.ok or verdict.status == "scaffold":
                current, proved = trial, True
                break
            feedback = verdict.reason
        if not proved:
            return None, f"lemma {lemma.name} not proved: {feedback or 'no proof proposed'}"
    return current, ""


RUNNERS = {"joint": joint, "sequential": sequential, "planfirst": planfirst}


def solve(task: Task, workflow: str, agent: Agent, checker: Checker, settings: Settings = Settings()) -> Attempt:
    """Run one workflow on one task until verified or out of budget; then the fresh re-check.

    The clock starts after `agent.prepare` (a search agent's shared, ranked pool is built once per task
    and reported apart, so the first arm is not charged for it); wall and CPU cover the same span."""
    attempt = Attempt(task.id, checker.backend, workflow, agent.name, load_1m=os.getloadavg()[0])
    agent.reset()
    agent.prepare(task, checker.backend)
    start, own_cpu = time.perf_counter(), time.process_time()
    tokens = getattr(agent, "prompt_tokens", 0), getattr(agent, "completion_tokens", 0)
    ledger = Ledger(checker, task, settings, attempt)
    try:
        found = RUNNERS[workflow](agent, ledger, settings)
    except OutOfBudget as spent:
        attempt.trace.append({"stop": f"budget spent: {spent}"})
        found = None
    attempt.wall_s = time.perf_counter() - start + ledger.memo_saved_s
    attempt.cpu_s = time.process_time() - own_cpu + ledger.checker_cpu_s
    attempt.prompt_tokens = getattr(agent, "prompt_tokens", 0) - tokens[0]
    attempt.completion_tokens = getattr(agent, "completion_tokens", 0) - tokens[1]
    if found is not None:
        attempt.claimed, attempt.solved_at = True, attempt.checks
        attempt.solution = found.regions()
        attempt.recheck = judge(task, checker, attempt.solution).status
        attempt.solved = attempt.recheck == "verified"
    return attempt


def judge(task: Task, checker: Checker, solution: dict[str, str]) -> Verdict:
    """The final verdict: the solution re-checked alone, in a fresh process, outside any budget.

    The same final file reached by several workflows is re-checked once (`checker.rechecked`).
    """
    key = task.assemble(checker.backend, solution)
    if key not in checker.rechecked:
        checker.rechecked[key] = checker.verify(task, solution, fresh=True)
    return checker.rechecked[key]
