"""The `sketch` agent: a search-based proposer that can succeed without a capable model (issue 24).

From the task's protected text alone (folds.py: the spec function, its base case, which end it peels,
its combination) it writes a pool of program sketches x proof idioms, once per backend (Coq:
coq_sketch.py, recursion and accumulator shapes with induction scripts); for Dafny:
- code shapes: loop up, loop down, and a loop that stops one short (a plausible bug the tests catch);
  the accumulator update in the spec's operand order or swapped;
- proof idioms: the invariant "accumulator = spec of the processed part" over the prefix a[..i] or the
  suffix a[i..], with no hint, the slicing fact of that part, the slicing fact plus the final
  `a[..|a|] == a`, or a bridging lemma (append/prepend) with its proof by Dafny's automatic
  induction or by an explicit induction peeling the front or the back.
The pool is ranked once (ranker.py) and shared by every workflow: J walks it in rank order, S walks
its distinct codes in rank order and, for the frozen code, its proofs; P's plan keeps only the
candidates its rules allow (below) and discharges lemmas with the ranked lemma proofs.

For a relation task (commit0-mini: the spec states a lemma, the code region is its proof;
relations.py) the pool is the induction idiom: for each sequence parameter, peel the front or the
back, with or without the slicing fact of the peeled sequence, and the lemma called on the shorter one.
Round 13: a bool spec `result <==> (forall|exists V :: range ...)` gets the early-exit and flag
sketches of quantifiers.py, an element-wise `forall V :: result[V] == E(V)` spec those of maps.py
(each module documents its PlanFirst rule: (5) and (6)).

PlanFirst's rules (spec §2.2 P.1, documented and generic, derived from the spec, never from a
solution): (1) iterate from the end the spec does not peel, so one unfolding of the spec preserves
"accumulator = spec of the processed part" (front-peeling spec -> loop down over the suffix;
back-peeling -> loop up over the prefix); (2) the update is the spec's recursive case with the
recursive result replaced by the accumulator, in the spec's operand order; (3) replan: the other loop
direction with the bridging lemma that the mismatched invariant needs, stated by the plan and
discharged on its own. For a relation: (4) induct from the end the spec functions peel, on the
sequence that end unfolds (front: the first sequence parameter, back: the last), then from the other
end, then on another sequence parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen import coq_sketch, maps, quantifiers
from proceedings.verified_codegen.agents import Agent, Plan
from proceedings.verified_codegen.candidates import Candidate, Lemma
from proceedings.verified_codegen.folds import Fold, coq_fold, dafny_fold
from proceedings.verified_codegen.ranker import Ranker, SizeRanker
from proceedings.verified_codegen.relations import RelationSpec, dafny_relation
from proceedings.verified_codegen.tasks import Task

SHAPES = ("up", "down", "up_short")
ORDERS = ("spec", "swapped")
INVARIANTS = ("prefix", "suffix")
HINTS = ("none", "slice", "slice_end")
LEMMA_PROOFS = ("auto", "induct_front", "induct_back")


def _update(fold: Fold, order: str, element: str) -> str:
    if order == "spec":
        return fold.apply(x=element, rest=fold.result)
    return fold.apply(x=fold.result, rest=element)


def _bridge(fold: Fold, invariant: str, order: str) -> Lemma:
    """The lemma a loop needs when its invariant's part grows at the end the spec does not peel."""
    grown = "s + [x]" if invariant == "prefix" else "[x] + s"
    combined = fold.apply(x="x", rest=fold.call("s")) if order == "spec" else fold.apply(x=fold.call("s"), rest="x")
    name = f"{fold.function}{'Append' if invariant == 'prefix' else 'Prepend'}"
    return Lemma(name, f"lemma {name}(s: seq<int>, x: int{fold.extra_params()})\n"
                       f"    ensures {fold.call(grown)} == {combined}")


def _lemma_proof(fold: Fold, lemma: Lemma, idiom: str, invariant: str) -> str:
    """Dafny's automatic induction (empty body), or an explicit induction peeling the front or the back."""
    if idiom == "auto":
        return "{\n}"
    grown = "s + [x]" if invariant == "prefix" else "[x] + s"
    if idiom == "induct_front":
        shrunk, rest = "s[1..]", "s[1..] + [x]" if invariant == "prefix" else "s"
        fact = f"({grown})[1..] == {rest}"
    else:
        shrunk, rest = "s[..|s| - 1]", "s" if invariant == "prefix" else "[x] + s[..|s| - 1]"
        fact = f"({grown})[..|{grown}| - 1] == {rest}"
    return f"{{\n    if |s| > 0 {{\n        assert {fact};\n        {lemma.name}({shrunk}, x{fold.extra_args()});\n    }}\n}}"


def _dafny_code(fold: Fold, shape: str, order: str, invariant: str, hints: str, bridge: Lemma | None) -> str:
    a, r, extra = fold.param, fold.result, fold.extra_args()
    part = f"{a}[..i]" if invariant == "prefix" else f"{a}[i..]"
    slice_fact = (f"assert {a}[..i + 1][..i] == {a}[..i];" if invariant == "prefix"
                  else f"assert {a}[i..][1..] == {a}[i + 1..];")
    end_fact = f"assert {a}[..|{a}|] == {a};" if invariant == "prefix" else f"assert {a}[0..] == {a};"
    body_hints = [slice_fact] if hints in ("slice", "slice_end", "lemma") else []
    if bridge is not None:
        if invariant == "prefix":
            body_hints = [f"{bridge.name}({a}[..i], {a}[i]{extra});", f"assert {a}[..i + 1] == {a}[..i] + [{a}[i]];"]
        else:
            body_hints = [f"{bridge.name}({a}[i + 1..], {a}[i]{extra});", f"assert {a}[i..] == [{a}[i]] + {a}[i + 1..];"]
    end_hints = [end_fact] if hints in ("slice_end", "lemma") else []
    update = f"{r} := {_update(fold, order, f'{a}[i]')};"
    inv = f"        invariant 0 <= i <= |{a}|\n        invariant {r} == {fold.call(part)}\n"
    if shape == "down":
        body = ["i := i - 1;", *body_hints, update]
        head = f"    var i := |{a}|;\n    while i > 0\n"
    else:
        body = [*body_hints, update, "i := i + 1;"]
        bound = f"|{a}| - 1" if shape == "up_short" else f"|{a}|"
        head = f"    var i := 0;\n    while i < {bound}\n"
    lines = "".join(f"        {line}\n" for line in body)
    ends = "".join(f"    {line}\n" for line in end_hints)
    return f"{{\n    {r} := {fold.base};\n{head}{inv}    {{\n{lines}    }}\n{ends}}}\n"


def dafny_pool(fold: Fold) -> list[Candidate]:
    """Every sketch x proof idiom for a Dafny fold task (72 candidates), unranked."""
    pool = []
    for shape in SHAPES:
        for order in ORDERS:
            for invariant in INVARIANTS:
                base = {"shape": shape, "order": order, "invariant": invariant}
                for hints in HINTS:
                    code = _dafny_code(fold, shape, order, invariant, hints, None)
                    pool.append(Candidate("dafny", code, features={**base, "hints": hints}))
                bridge = _bridge(fold, invariant, order)
                code = _dafny_code(fold, shape, order, invariant, "lemma", bridge)
                for idiom in LEMMA_PROOFS:
                    lemma = replace(bridge, proof=_lemma_proof(fold, bridge, idiom, invariant))
                    pool.append(Candidate("dafny", code, (lemma,), features={**base, "hints": "lemma", "lemma": idiom}))
    return pool


def dafny_plans(fold: Fold) -> list[Plan]:
    """PlanFirst's rules (module docstring): the matched loop first, then the bridged one."""
    matched = "down" if fold.direction == "front" else "up"
    other = "up" if matched == "down" else "down"
    plans = []
    for revision, (shape, bridged) in enumerate(((matched, False), (other, True))):
        invariant = "prefix" if shape == "up" else "suffix"
        lemmas = (_bridge(fold, invariant, "spec"),) if bridged else ()
        part = "a[..i]" if invariant == "prefix" else "a[i..]"
        plans.append(Plan(f"loop {shape}", (f"0 <= i <= |{fold.param}|", f"{fold.result} == {fold.call(part)}"),
                          lemmas, ("no partial constructs: a terminating while with a decreasing index",),
                          revision))
    return plans


def _induction(relation: RelationSpec, seq: str, direction: str, hints: str) -> str:
    if direction == "front":
        shrunk, fact = f"{seq}[1..]", f"assert {seq} == [{seq}[0]] + {seq}[1..];"
    else:
        shrunk, fact = f"{seq}[..|{seq}| - 1]", f"assert {seq} == {seq}[..|{seq}| - 1] + [{seq}[|{seq}| - 1]];"
    lines = ([fact] if hints == "slice" else []) + [relation.call(seq, shrunk)]
    body = "".join(f"        {line}\n" for line in lines)
    return f"{{\n    if |{seq}| > 0 {{\n{body}    }}\n}}\n"


def relation_pool(relation: RelationSpec) -> list[Candidate]:
    """Every induction idiom for a relation's lemma (4 per sequence parameter), unranked."""
    return [Candidate("dafny", _induction(relation, seq, direction, hints),
                      features={"induct": seq, "direction": direction, "hints": hints})
            for seq in relation.sequences for direction in ("front", "back") for hints in ("none", "slice")]


def relation_plans(relation: RelationSpec) -> list[Plan]:
    """PlanFirst's rule (4): the sequence and end the spec functions unfold, the other end, another sequence."""
    seqs = relation.sequences
    first = seqs[0] if relation.peels == "front" else seqs[-1]
    other_end = "back" if relation.peels == "front" else "front"
    order = [(first, relation.peels), (first, other_end)] + [(s, relation.peels) for s in seqs if s != first]
    return [Plan(f"induct {seq} {direction}", pitfalls=("the recursive call on a strictly shorter sequence",),
                 revision=revision) for revision, (seq, direction) in enumerate(order)]


def dafny_sketches(task: Task) -> tuple[list[Candidate], list[Plan]]:
    """(pool, plans) of the first family whose reader accepts the task's spec; ([], []) when none does."""
    readers = ((dafny_fold, dafny_pool, dafny_plans), (dafny_relation, relation_pool, relation_plans),
               (quantifiers.dafny_search, quantifiers.search_pool, quantifiers.search_plans),
               (maps.dafny_map, maps.map_pool, maps.map_plans))
    for read, pool, plans in readers:
        spec = read(task)
        if spec is not None:
            return pool(spec), plans(spec)
    return [], []


def _allowed(plan: Plan, candidate: Candidate) -> bool:
    if candidate.backend == "coq":
        return coq_sketch.allowed(plan, candidate)
    if candidate.features.get("family") in ("search", "map"):  # rules (5) and (6): "FAMILY FORM SHAPE", spec invariant
        _, form, shape = plan.approach.split()
        features = candidate.features
        return (features["form"], features["shape"], features["invariant"]) == (form, shape, "spec")
    if "induct" in candidate.features:
        _, seq, direction = plan.approach.split()
        return candidate.features["induct"] == seq and candidate.features["direction"] == direction
    shape = plan.approach.split()[-1]
    invariant = "prefix" if shape == "up" else "suffix"
    wanted = {"shape": shape, "order": "spec", "invariant": invariant}
    if any(candidate.features.get(k) != v for k, v in wanted.items()):
        return False
    return (candidate.features["hints"] == "lemma") == bool(plan.lemmas)


@dataclass
class SketchAgent(Agent):
    """Search over sketches and idioms, ranked once per task and shared by all workflows."""

    ranker: Ranker = field(default_factory=SizeRanker)
    name: str = "sketch"
    log: list[str] = field(default_factory=list)  # what it proposed, in order (blind to references)

    def __post_init__(self):
        self._pools: dict[str, list[Candidate]] = {}
        self.reset()

    def reset(self):
        self._given: dict[str, int] = {}
        self._seen_codes: list[str] = []
        self._proofs_for: dict[str, int] = {}

    def prepare(self, task: Task, backend: str) -> None:
        if backend in ("dafny", "coq"):
            self.pool(task, backend)

    def pool(self, task: Task, backend: str) -> list[Candidate]:
        key = f"{task.id}/{backend}"
        if key not in self._pools:
            if backend == "coq":
                fold = coq_fold(task)  # a spec no sketch covers: an empty pool
                pool = coq_sketch.coq_pool(fold) if fold else []
            elif backend == "dafny":
                pool = dafny_sketches(task)[0]
            else:
                raise ProceedingsError(f"the sketch agent has no {backend} sketches (task '{task.id}')")
            self._pools[key] = self.ranker.rank(task, pool) if pool else []
        return self._pools[key]

    def _next(self, kind: str, items: list):
        index = self._given.get(kind, 0)
        self._given[kind] = index + 1
        item = items[index] if index < len(items) else None
        self.log.append(f"{kind}: {_describe(item)}")
        return item

    def joint(self, task, backend, feedback):
        return self._next("joint", self.pool(task, backend))

    def code(self, task, backend, feedback):
        codes, keys = [], set()
        for candidate in self.pool(task, backend):
            if candidate.code_key() not in keys:
                keys.add(candidate.code_key())
                codes.append(candidate)
        return self._next("code", codes)

    def proof(self, task, backend, code, feedback):
        same = [c for c in self.pool(task, backend) if c.code_key() == code.code_key()]
        return self._next(f"proof:{code.code_key()}", same)

    def plan(self, task, backend, feedback):
        if backend == "coq":
            fold = coq_fold(task)
            return self._next("plan", coq_sketch.coq_plans(fold) if fold else [])
        return self._next("plan", dafny_sketches(task)[1])

    def elaborate(self, task, backend, plan, feedback):
        allowed, scaffolds = [], set()
        for candidate in self.pool(task, backend):
            if _allowed(plan, candidate):
                blank = replace(candidate, lemmas=tuple(replace(l, proof="") for l in candidate.lemmas))
                if blank not in scaffolds:  # lemma idioms differ only in proofs: one scaffold
                    scaffolds.add(blank)
                    allowed.append(blank)
        return self._next(f"elaborate:{plan.revision}", allowed)

    def discharge(self, task, backend, scaffold, lemma, feedback):
        proofs = [l.proof for c in self.pool(task, backend) for l in c.lemmas
                  if l.name == lemma.name and l.statement == lemma.statement and c.code_key() == scaffold.code_key()]
        unique = list(dict.fromkeys(proofs))
        return self._next(f"discharge:{lemma.name}", unique)


def _describe(item) -> str:
    if item is None:
        return "nothing left"
    if isinstance(item, Candidate):
        return ",".join(f"{k}={v}" for k, v in sorted(item.features.items()))
    if isinstance(item, Plan):
        return f"plan {item.approach} ({len(item.lemmas)} lemma(s))"
    return f"lemma proof {item.splitlines()[1].strip() if item.count(chr(10)) > 1 else item}"
