"""Agents: whatever writes code, proofs and plans for the workflows (spec §2.2, §6.1).

Every workflow talks to an agent through the same five requests, each one "model call":
`joint` (code and proof together), `code` (code alone), `proof` (a proof for frozen code), `plan`
(a program-and-proof plan) with `elaborate` (the plan's code and scaffold), and `discharge` (one
planned lemma's proof). `feedback` is the checker's last message. An agent returns None when it has
nothing left to propose.

`OracleAgent` answers with the task's shipped reference (every workflow solves every task with its
designed call counts); `ReplayAgent` replays a recorded script of answers with scripted failures;
`sketch.SketchAgent` searches program sketches and proof idioms, blind to the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.candidates import Candidate, Lemma, reference_candidate
from proceedings.verified_codegen.tasks import Task


@dataclass(frozen=True)
class Plan:
    """PlanFirst's plan (spec §2.2 P.1): code shape, invariants, lemma statements, pitfalls."""

    approach: str
    invariants: tuple[str, ...] = ()
    lemmas: tuple[Lemma, ...] = ()  # statements only (proof "")
    pitfalls: tuple[str, ...] = ()
    revision: int = 0


class Agent:
    name = "agent"

    def joint(self, task: Task, backend: str, feedback: str) -> Candidate | None:
        raise NotImplementedError

    def code(self, task: Task, backend: str, feedback: str) -> Candidate | None:
        raise NotImplementedError

    def proof(self, task: Task, backend: str, code: Candidate, feedback: str) -> Candidate | None:
        raise NotImplementedError

    def plan(self, task: Task, backend: str, feedback: str) -> Plan | None:
        raise NotImplementedError

    def elaborate(self, task: Task, backend: str, plan: Plan, feedback: str) -> Candidate | None:
        raise NotImplementedError

    def discharge(self, task: Task, backend: str, scaffold: Candidate, lemma: Lemma, feedback: str) -> str | None:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget per-task state before the next task (search agents keep a cursor per request)."""

    def prepare(self, task: Task, backend: str) -> None:
        """Work shared by every workflow on this task (a search agent's ranked pool), done before the clock starts."""


class OracleAgent(Agent):
    """The reference solution, handed out in the pieces each workflow asks for."""

    name = "oracle"

    def joint(self, task, backend, feedback):
        return reference_candidate(task, backend)

    def code(self, task, backend, feedback):
        return reference_candidate(task, backend)

    def proof(self, task, backend, code, feedback):
        return reference_candidate(task, backend)

    def plan(self, task, backend, feedback):
        ref = reference_candidate(task, backend)
        return Plan("reference", lemmas=tuple(replace(lemma, proof="") for lemma in ref.lemmas))

    def elaborate(self, task, backend, plan, feedback):
        ref = reference_candidate(task, backend)
        return replace(ref, lemmas=tuple(replace(lemma, proof="") for lemma in ref.lemmas))

    def discharge(self, task, backend, scaffold, lemma, feedback):
        return next(l.proof for l in reference_candidate(task, backend).lemmas if l.name == lemma.name)


@dataclass
class ReplayAgent(Agent):
    """Answers from a recorded script: per request kind, a list of answers handed out in order.

    Answers are Candidates (joint/code/proof/elaborate), Plans (plan) or proof strings (discharge);
    a recorded transcript with scripted failures (a wrong lemma, a code bug) exercises the repair paths.
    """

    script: dict[str, list] = field(default_factory=dict)
    name: str = "replay"
    _used: dict[str, int] = field(default_factory=dict)

    def _next(self, kind: str):
        answers = self.script.get(kind, [])
        index = self._used.get(kind, 0)
        self._used[kind] = index + 1
        return answers[index] if index < len(answers) else None

    def reset(self):
        self._used = {}

    def joint(self, task, backend, feedback):
        return self._next("joint")

    def code(self, task, backend, feedback):
        return self._next("code")

    def proof(self, task, backend, code, feedback):
        return self._next("proof")

    def plan(self, task, backend, feedback):
        return self._next("plan")

    def elaborate(self, task, backend, plan, feedback):
        return self._next("elaborate")

    def discharge(self, task, backend, scaffold, lemma, feedback):
        return self._next("discharge")


def make_agent(name: str, **options) -> Agent:
    """`oracle`, `sketch` (search-based proposer), `local` (SmolLM2 through transformers, greedy) or
    `openai` (an OpenAI-compatible endpoint: $VCG_OPENAI_BASE_URL, $VCG_OPENAI_MODEL)."""
    if name == "oracle":
        return OracleAgent()
    if name == "sketch":
        from proceedings.verified_codegen.sketch import SketchAgent

        return SketchAgent(**options)
    if name == "local":
        from proceedings.verified_codegen.local_agent import LocalAgent

        return LocalAgent(**options)
    if name == "openai":
        from proceedings.verified_codegen.openai_agent import OpenAIAgent

        return OpenAIAgent(**options)
    raise ProceedingsError(f"unknown agent '{name}'; choose one of: oracle, sketch, local, openai")
