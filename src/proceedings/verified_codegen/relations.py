"""Reading a relation task's spec (commit0-mini's cross-API lemmas) from its protected text.

A relation task states a Dafny lemma in its spec region (`lemma {:induction false} L(s: seq<int>, k:
int) ensures ...`) and its code region is the lemma's proof. `RelationSpec` records the lemma's
name, its parameters and which end the preamble's recursive functions peel ("front": `s[1..]`;
"back": `s[..|s| - 1]`), which is what an induction over a sequence parameter has to match. Only the
protected regions are read: never a reference proof.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proceedings.verified_codegen.folds import protected_text
from proceedings.verified_codegen.tasks import Task


@dataclass(frozen=True)
class RelationSpec:
    lemma: str
    params: tuple[tuple[str, str], ...]  # (name, Dafny type), in order
    peels: str  # "front" | "back": the end the spec functions recurse on

    @property
    def sequences(self) -> tuple[str, ...]:
        return tuple(name for name, type_ in self.params if type_.startswith("seq<"))

    def call(self, replace: str, by: str) -> str:
        """The lemma applied to its own parameters, with `replace` swapped for `by` (the induction step)."""
        return f"{self.lemma}({', '.join(by if name == replace else name for name, _ in self.params)});"


def dafny_relation(task: Task) -> RelationSpec | None:
    """The lemma a relation task states, or None when its spec states none (or no sequence parameter)."""
    spec = next((p.text for p in task.spec("dafny").pieces if p.region == "spec"), "")
    found = re.search(r"^\s*lemma\s+(?:\{:[^}]*\}\s*)*(\w+)\s*\(([^)]*)\)", spec, re.M)
    if not found:
        return None
    params = tuple(re.findall(r"(\w+)\s*:\s*([\w<>]+)", found.group(2)))
    preamble = protected_text(task, "dafny").replace(spec, "")
    front = len(re.findall(r"\w\[1\.\.\]", preamble))
    back = len(re.findall(r"(\w)\[\.\.\|\1\|\s*-\s*1\]", preamble))
    relation = RelationSpec(found.group(1), params, "back" if back > front else "front")
    return relation if relation.sequences else None
