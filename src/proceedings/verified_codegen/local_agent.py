"""Agents that ask a language model (spec §2.3: prompts state the dialect and the output contract):
`local`, a causal LM on the CPU (default SmolLM2-135M-Instruct, offline, greedy), and, through the same
prompts, `openai` (openai_agent.py: any OpenAI-compatible endpoint).

Every request is one chat turn: the task's description, its protected spec file, what is asked (the
whole file with the editable regions filled, the code alone, a proof for frozen code, a plan, one
lemma's proof) and the checker's last message. The first fenced block of the answer is read as a whole
spec file when its region markers parse, otherwise as the body of the `code` region, so whatever the
model writes reaches the checker and is judged there. At 135M parameters this is a floor and a
plumbing test (spec §4: SmolLM2 wrote valid Python 6/16 times in a related probe), not a contender.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from proceedings.verified_codegen.agents import Agent, Plan
from proceedings.verified_codegen.candidates import Candidate, split_lemmas
from proceedings.verified_codegen.cheats import regions_of
from proceedings.verified_codegen.folds import protected_text
from proceedings.verified_codegen.tasks import Task

DIALECT = {"dafny": "Dafny 2.3 (2019 syntax: `function method` is compiled, plain `function` is ghost)",
           "coq": "Coq 8.16 (tactics: induction, simpl, rewrite, lia, reflexivity)",
           "lean": "Lean 4"}
ASK = {
    "joint": "Write the whole file again with the implementation and its proof filled into the editable regions.",
    "code": "Write only the implementation (the body of the code region); no proof.",
    "proof": "Here is the implementation; keep it unchanged and add the proof (invariants, lemmas, tactics).",
    "plan": "Before any code, write a short plan: the code shape, the loop invariants, and the lemma statements.",
    "elaborate": "Follow this plan: write the implementation and state each planned lemma (proofs may be left for later).",
    "discharge": "Write only the proof of this lemma.",
}


@dataclass
class ModelAgent(Agent):
    """An agent that asks a language model one chat turn per request (`complete`: the transport); the
    prompt, the token counts, the transcript and the reading of the answer are shared by every model."""

    max_new_tokens: int = 384
    name: str = "model"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    transcript: list[dict] = field(default_factory=list)

    def complete(self, prompt: str) -> tuple[str, int, int]:
        """(answer, prompt tokens, completion tokens) for one user turn."""
        raise NotImplementedError

    def _ask(self, task: Task, backend: str, kind: str, extra: str, feedback: str) -> str:
        prompt = (f"Task: {task.description}\nLanguage: {DIALECT[backend]}.\nSpecification file:\n```\n"
                  f"{protected_text(task, backend)}```\n{ASK[kind]}\n{extra}"
                  + (f"\nThe checker said: {feedback}" if feedback else ""))
        answer, prompt_tokens, completion_tokens = self.complete(prompt)
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.transcript.append({"request": kind, "prompt": prompt, "answer": answer})
        return answer

    def _candidate(self, task: Task, backend: str, answer: str) -> Candidate:
        block = fenced(answer)
        regions, why = regions_of(task.spec(backend), block)
        if why:
            return Candidate(backend, block + "\n", features={"agent": self.name, "parsed": "code only"})
        if backend == "dafny":
            return Candidate(backend, regions.get("code", ""), split_lemmas(backend, regions.get("proofs", "")),
                             helpers=regions.get("helpers", ""), features={"agent": self.name, "parsed": "file"})
        return Candidate(backend, regions.get("code", ""), split_lemmas(backend, regions.get("proof_aux", "")),
                         regions.get("proof", ""), features={"agent": self.name, "parsed": "file"})

    def joint(self, task, backend, feedback):
        return self._candidate(task, backend, self._ask(task, backend, "joint", "", feedback))

    def code(self, task, backend, feedback):
        return self._candidate(task, backend, self._ask(task, backend, "code", "", feedback))

    def proof(self, task, backend, code, feedback):
        return self._candidate(task, backend, self._ask(task, backend, "proof", f"```\n{code.code}```", feedback))

    def plan(self, task, backend, feedback):
        return Plan(self._ask(task, backend, "plan", "", feedback).strip()[:2000])

    def elaborate(self, task, backend, plan, feedback):
        return self._candidate(task, backend, self._ask(task, backend, "elaborate", f"Plan:\n{plan.approach}", feedback))

    def discharge(self, task, backend, scaffold, lemma, feedback):
        return fenced(self._ask(task, backend, "discharge", f"```\n{lemma.statement}\n```", feedback))


@dataclass
class LocalAgent(ModelAgent):
    """A causal LM through transformers on the CPU, greedy (default SmolLM2-135M-Instruct)."""

    model: str = "smollm2-135m"
    name: str = "local"
    lm: tuple | None = None  # (model, tokenizer); loaded on first use when None

    def complete(self, prompt: str) -> tuple[str, int, int]:
        import torch

        if self.lm is None:
            from proceedings.core.models import load_causal_lm
            from proceedings.core.runtime import set_threads

            set_threads()  # $PROCEEDINGS_THREADS: torch's default (every core) ran 10x slower on a loaded 2-core machine
            self.lm = load_causal_lm(self.model, device="cpu")
        model, tokenizer = self.lm
        ids = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                            tokenize=True, return_dict=False)
        ids = torch.tensor([list(ids["input_ids"] if isinstance(ids, dict) else ids)])  # (1, prompt)
        with torch.inference_mode():
            out = model.generate(ids, max_new_tokens=self.max_new_tokens, do_sample=False,
                                 pad_token_id=tokenizer.eos_token_id)
        answer = tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
        return answer, int(ids.shape[1]), int(out.shape[1] - ids.shape[1])


def fenced(answer: str) -> str:
    """The first fenced code block of an answer, or the whole answer when it has none."""
    found = re.search(r"```[\w-]*\n(.*?)(```|$)", answer, re.S)
    return (found.group(1) if found else answer).strip("\n")
