"""A candidate program-and-proof, split the way the workflows need it (spec §2.2).

A `Candidate` is the code (Dafny: the method body with its loop annotations; Coq: the Gallina
definitions), the lemmas (statement and proof apart, so a plan can state them and leave holes) and
the main proof (Coq's script; Dafny needs none beyond the annotations). `regions()` renders the
editable regions a checker assembles; `holes` renders the named lemmas as assumptions (Dafny
`{:axiom}` without a body, Coq `Admitted.`) for PlanFirst's scaffold check. `code_key()` is the
executable part alone (annotations and proofs stripped): the sequential workflow freezes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from proceedings.verified_codegen.tasks import Task

_ANNOTATION = re.compile(r"^\s*(invariant|decreases|assert)\b")


@dataclass(frozen=True)
class Lemma:
    name: str
    statement: str  # Dafny: "lemma Name(...)\n  ensures ..."; Coq: "Lemma name : ... ."
    proof: str = ""  # Dafny: "{ ... }"; Coq: "Proof. ... Qed."

    def render(self, backend: str, hole: bool = False) -> str:
        if not hole:
            return f"{self.statement}\n{self.proof}\n"
        if backend == "dafny":
            return re.sub(r"^(\s*lemma)\b", r"\1 {:axiom}", self.statement, count=1) + "\n"
        return f"{self.statement}\nAdmitted.\n"


@dataclass(frozen=True)
class Candidate:
    backend: str
    code: str
    lemmas: tuple[Lemma, ...] = ()
    proof: str = ""  # Coq: the main theorem's script
    helpers: str = ""  # Dafny: helper functions/predicates
    features: dict = field(default_factory=dict, compare=False, hash=False)  # shape/idiom labels, for traces

    def regions(self, holes: frozenset[str] = frozenset()) -> dict[str, str]:
        lemmas = "".join(lemma.render(self.backend, lemma.name in holes) for lemma in self.lemmas)
        if self.backend == "dafny":
            return {"helpers": self.helpers, "proofs": lemmas, "code": self.code}
        return {"code": self.code, "proof_aux": lemmas, "proof": self.proof}

    def test_regions(self) -> dict[str, str]:
        """What the task's tests compile: the regions with every Dafny lemma's proof replaced by an empty body.

        Code may call its lemmas, so they must be there; tests run without verification and ghost lemmas
        are not compiled, so their proofs (or holes) never change the test file or its outcome.
        """
        if self.backend != "dafny":
            return self.regions()
        return replace(self, lemmas=tuple(replace(lemma, proof="{\n}") for lemma in self.lemmas)).regions()

    def code_key(self) -> str:
        """The executable part alone: for Dafny the body without annotation lines or lemma calls."""
        if self.backend != "dafny":
            return normalise(self.code)
        names = {lemma.name for lemma in self.lemmas}
        kept = [line for line in self.code.splitlines()
                if not _ANNOTATION.match(line) and not _calls(line, names)]
        return normalise("\n".join(kept))

    def with_lemma_proof(self, name: str, proof: str) -> "Candidate":
        return replace(self, lemmas=tuple(replace(l, proof=proof) if l.name == name else l for l in self.lemmas))

    def text(self) -> str:
        """Everything the candidate wrote, in one string (what a ranker scores)."""
        return "\n".join(v for v in self.regions().values() if v)


def _calls(line: str, names: set[str]) -> bool:
    found = re.match(r"^\s*(\w+)\s*\(.*\)\s*;\s*$", line)
    return bool(found and found.group(1) in names)


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def split_lemmas(backend: str, text: str) -> tuple[Lemma, ...]:
    """The lemmas of a proofs region, in order (Dafny: `lemma` to the first top-level `}`; Coq: to `Qed.`)."""
    if backend == "dafny":
        found = re.finditer(r"^(lemma\b[^{]*?)\n(\{.*?^\})", text, re.M | re.S)
    else:
        found = re.finditer(r"^((?:Lemma|Theorem)\s.*?\.)\s*\n(Proof\..*?^Qed\.)", text, re.M | re.S)
    lemmas = []
    for match in found:
        name = re.match(r"(?:lemma|Lemma|Theorem)\s+(?:\{:[^}]*\}\s*)*(\w+)", match.group(1)).group(1)
        lemmas.append(Lemma(name, match.group(1).rstrip(), match.group(2)))
    return tuple(lemmas)


def reference_candidate(task: Task, backend: str) -> Candidate:
    """The shipped reference solution of a task as a Candidate (used by the oracle agent only)."""
    ref = task.spec(backend).reference
    if backend == "dafny":
        return Candidate(backend, ref["code"], split_lemmas(backend, ref["proofs"]), helpers=ref["helpers"],
                         features={"agent": "reference"})
    return Candidate(backend, ref["code"], split_lemmas(backend, ref["proof_aux"]), ref["proof"],
                     features={"agent": "reference"})
