"""Element-wise map specs and their sketches (issue 24: maps read from forall postconditions).

A Verina array task states its result element by element: Dafny `ensures |result| == |a|` and
`ensures forall V :: 0 <= V < |a| ==> result[V] == E(V)` (or `E(V) == result[V]`; basic 13, 30, 39,
58, 85, 86, 105, 106). `ElementMap` records the result, the sequence fixing its length, the
element's expression E and every forall postcondition over the result (kept verbatim as invariants).
A spec with a forall over the result that is not of that form (basic 84's two conditional ones) is
not a map here. Only the protected regions are read: never a reference solution.

Sketches: build the result by appending E(i) in index order, or by updating a copy of the input in
place; the loop over the whole range or stopping one short (a plausible bug the tests catch);
invariants: the length and the spec's foralls over the built prefix, the foralls alone, or the
bounds alone: 12 candidates.

PlanFirst's rule (6) (documented, generic, derived from the spec): append in index order, with the
invariant "the length so far and every forall postcondition over the built prefix"; replan: update
a copy of the input in place under the same invariants.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proceedings.verified_codegen.agents import Plan
from proceedings.verified_codegen.candidates import Candidate
from proceedings.verified_codegen.folds import protected_text
from proceedings.verified_codegen.quantifiers import LOOP_PITFALL, fresh_index, returning
from proceedings.verified_codegen.tasks import Task

BUILDS = ("append", "update")
SHAPES = ("up", "up_short")
INVARIANTS = ("spec", "forall", "bounds")


@dataclass(frozen=True)
class ElementMap:
    result: str
    source: str  # the sequence parameter whose length the result has
    element: str  # E, over `var`
    var: str
    foralls: tuple[tuple[str, str], ...]  # (bound variable, body) of every forall postcondition over the result
    index: str  # the loop's index: a name the spec does not use

    def element_at(self, index: str) -> str:
        return re.sub(rf"\b{self.var}\b", index, self.element)

    def prefix(self, high: str) -> list[str]:
        """The spec's foralls restricted to the indices below `high`."""
        return [f"forall {var} :: 0 <= {var} < {high} ==> {body}" for var, body in self.foralls]


def dafny_map(task: Task) -> ElementMap | None:
    """The element-wise map a seq<int> method's postconditions state, or None when they state none."""
    text = protected_text(task, "dafny")
    method = returning(text, "seq<int>")
    if not method:
        return None
    result = method.group(2)
    sources = [name for name, type_ in re.findall(r"(\w+)\s*:\s*([\w<>]+)", method.group(1)) if type_ == "seq<int>"]
    length = re.search(rf"ensures\s+\|{result}\|\s*==\s*\|(\w+)\|", text)
    if not length or length.group(1) not in sources:
        return None
    foralls, element = [], None
    for var, bound, body in re.findall(r"ensures\s+forall\s+(\w+)\s*::\s*0\s*<=\s*\1\s*<\s*\|(\w+)\|\s*==>\s*(.+)$",
                                       text, re.M):
        if bound not in (result, length.group(1)) or not re.search(rf"\b{result}\b", body):
            continue
        mine = rf"{result}\[{var}\]"
        found = (re.fullmatch(rf"{mine}\s*==\s*(.+)", body.strip()) or
                 re.fullmatch(rf"(.+?)\s*==\s*{mine}", body.strip()))
        if not found or re.search(rf"\b{result}\b", found.group(1)):
            return None
        foralls.append((var, body.strip()))
        element = element or (found.group(1).strip(), var)
    if element is None:
        return None
    return ElementMap(result, length.group(1), element[0], element[1], tuple(foralls), fresh_index(text))


def _code(spec: ElementMap, build: str, shape: str, invariant: str) -> str:
    r, a, i = spec.result, spec.source, spec.index
    stop = f"|{a}| - 1" if shape == "up_short" else f"|{a}|"
    length = f"|{r}| == {i}" if build == "append" else f"|{r}| == |{a}|"
    invariants = [f"0 <= {i} <= |{a}|"] + {"spec": [length] + spec.prefix(i), "forall": spec.prefix(i),
                                           "bounds": []}[invariant]
    start = f"{r} := [];" if build == "append" else f"{r} := {a};"
    step = (f"{r} := {r} + [{spec.element_at(i)}];" if build == "append"
            else f"{r} := {r}[{i} := {spec.element_at(i)}];")
    lines = "".join(f"        invariant {line}\n" for line in invariants)
    return (f"{{\n    {start}\n    var {i} := 0;\n    while {i} < {stop}\n{lines}    {{\n        {step}\n"
            f"        {i} := {i} + 1;\n    }}\n}}\n")


def map_pool(spec: ElementMap) -> list[Candidate]:
    """Every build x loop x invariant sketch for an element-wise map (12 candidates), unranked."""
    return [Candidate("dafny", _code(spec, build, shape, invariant),
                      features={"family": "map", "form": build, "shape": shape, "invariant": invariant})
            for build in BUILDS for shape in SHAPES for invariant in INVARIANTS]


def map_plans(spec: ElementMap) -> list[Plan]:
    """Rule (6): append in index order; replan: update a copy of the input in place."""
    return [Plan(f"map {build} up", (f"0 <= {spec.index} <= |{spec.source}|", *spec.prefix(spec.index)),
                 pitfalls=(LOOP_PITFALL,), revision=revision)
            for revision, build in enumerate(BUILDS)]
