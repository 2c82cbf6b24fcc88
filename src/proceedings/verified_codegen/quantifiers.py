"""Quantified boolean specs and their early-exit sketches (issue 24: "loop up/down, early exit").

A Verina predicate task states its answer as one quantifier over an integer range: Dafny
`ensures result <==> (forall V :: L <= V < U ==> ...)` or `(exists V :: L <= V < U && ...)` (basic
15, 19, 28, 41, 44). `Search` records the quantifier, its variable, its range [L, U) and its whole
matrix M(V); the sketches never look inside M beyond the range, so they serve any body. Only the
protected regions are read: never a reference solution.

Sketches: the early exit (return at the first index that decides: a forall's counterexample, an
exists' witness) or a flag set over the whole range; loop up from L, down from U, or up stopping one
short (a plausible bug the tests catch); invariant the spec's quantifier over the processed part, or
the loop bounds alone: 12 candidates.

PlanFirst's rule (5) (documented, generic, derived from the spec): walk the quantifier's range from
its lower bound, keep "the spec's quantifier holds on the processed part" as the invariant, and
exit at the first index that decides the answer; replan: the flag over the whole range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proceedings.verified_codegen.agents import Plan
from proceedings.verified_codegen.candidates import Candidate
from proceedings.verified_codegen.folds import protected_text
from proceedings.verified_codegen.tasks import Task

FORMS = ("exit", "flag")
SHAPES = ("up", "down", "up_short")
INVARIANTS = ("spec", "bounds")
LOOP_PITFALL = "no partial constructs: a terminating while with an increasing index"


@dataclass(frozen=True)
class Search:
    result: str  # the method's bool result
    quantifier: str  # "forall" | "exists"
    var: str  # the spec's bound variable
    low: str  # L
    high: str  # U (exclusive)
    matrix: str  # M(var), range included
    index: str  # the loop's index: a name the spec does not use

    def at(self, index: str) -> str:
        """M with the bound variable replaced by `index`."""
        return re.sub(rf"\b{self.var}\b", index, self.matrix)

    def over(self, low: str, high: str) -> str:
        """The spec's quantifier restricted to [low, high)."""
        if self.quantifier == "forall":
            return f"forall {self.var} :: {low} <= {self.var} < {high} ==> ({self.matrix})"
        return f"exists {self.var} :: {low} <= {self.var} < {high} && ({self.matrix})"


def _outer(text: str) -> str:
    """`text` without one pair of parentheses around the whole of it."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for position, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and position < len(text) - 1:
            return text
    return text[1:-1].strip()


def dafny_search(task: Task) -> Search | None:
    """The quantifier a bool method's `ensures R <==> (Q V :: L <= V < U ...)` states, or None."""
    text = protected_text(task, "dafny")
    method = returning(text, "bool")
    if not method:
        return None
    result = method.group(2)
    ensures = re.search(rf"ensures\s+{result}\s*<==>\s*(.+)$", text, re.M)
    if not ensures:
        return None
    found = re.fullmatch(r"(forall|exists)\s+(\w+)\s*::\s*(.+)", _outer(ensures.group(1)), re.S)
    if not found:
        return None
    quantifier, var, matrix = found.groups()
    bounds = re.match(rf"(\w+)\s*<=\s*{var}\s*<\s*(.+?)\s*(==>|&&|$)", matrix)
    if not bounds or (quantifier == "forall") != ("==>" in matrix):  # forall V :: range ==> ...; exists: range && ...
        return None
    return Search(result, quantifier, var, bounds.group(1), bounds.group(2).strip(), matrix.strip(), fresh_index(text))


def returning(text: str, type_: str) -> re.Match | None:
    """The method whose one result has `type_`: groups (parameters, result name)."""
    return re.search(rf"method\s+\w+\s*\(([^)]*)\)\s*returns\s*\(\s*(\w+)\s*:\s*{re.escape(type_)}\s*\)", text)


def fresh_index(text: str) -> str:
    """A loop index no word of the protected text uses (bound variables included)."""
    taken = set(re.findall(r"\w+", text))
    return next(name for name in ("i", "j", "idx", "i0", "i1") if name not in taken)


def _decides(search: Search, index: str) -> str:
    """The test on one index that decides the answer: a forall's counterexample, an exists' witness."""
    return f"!({search.at(index)})" if search.quantifier == "forall" else f"{search.at(index)}"


def _code(search: Search, form: str, shape: str, invariant: str) -> str:
    i, low, high = search.index, search.low, search.high
    found = "false" if search.quantifier == "forall" else "true"  # the answer once an index decides
    done = "true" if found == "false" else "false"  # the answer when no index does
    if shape == "down":
        head = f"    var {i} := {high};\n    while {i} > {low}\n"
        bounds = [f"{i} <= {high}", f"{low} <= {i} || {i} == {high}"]
        part, step = search.over(i, high), [f"{i} := {i} - 1;"]
    else:
        stop = f"{high} - 1" if shape == "up_short" else high
        head = f"    var {i} := {low};\n    while {i} < {stop}\n"
        bounds = [f"{low} <= {i}", f"{i} <= {high} || {i} == {low}"]
        part, step = search.over(low, i), []
    if form == "exit":
        kept = [f"{part}"] if search.quantifier == "forall" else [f"!({part})"]
        decide = [f"if {_decides(search, i)} {{", f"    return {found};", "}"]
        start, end = "", f"    return {done};\n"
    else:
        kept = [f"{search.result} <==> ({part})"]
        decide = [f"if {_decides(search, i)} {{", f"    {search.result} := {found};", "}"]
        start, end = f"    {search.result} := {done};\n", ""
    body = step + decide + ([] if step else [f"{i} := {i} + 1;"])
    invariants = bounds + (kept if invariant == "spec" else [])
    lines = "".join(f"        invariant {line}\n" for line in invariants)
    inner = "".join(f"        {line}\n" for line in body)
    return f"{{\n{start}{head}{lines}    {{\n{inner}    }}\n{end}}}\n"


def search_pool(search: Search) -> list[Candidate]:
    """Every early-exit / flag sketch x invariant for a quantified bool spec (12 candidates), unranked."""
    return [Candidate("dafny", _code(search, form, shape, invariant),
                      features={"family": "search", "form": form, "shape": shape, "invariant": invariant})
            for form in FORMS for shape in SHAPES for invariant in INVARIANTS]


def search_plans(search: Search) -> list[Plan]:
    """Rule (5): exit early walking up from the range's lower bound; replan: the flag over the whole range."""
    part = search.over(search.low, search.index)
    return [Plan(f"search {form} up", (f"{search.low} <= {search.index}", part),
                 pitfalls=(LOOP_PITFALL,), revision=revision)
            for revision, form in enumerate(FORMS)]
