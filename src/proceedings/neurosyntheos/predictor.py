"""NeuroSyntheos's predictor (paper §3): proposals of tautology clauses for a spec, from

1. *template transfer* — the final tautology set of the nearest solved training spec with the same
   template (numbers -> placeholders), its constants re-instantiated for this spec (spec §2.3:
   aligned constants map position by position; derived ones as c, c ± 1, c_a ± c_b);
2. the *GNN clause scorer* (`gnn.py`) over the spec's AST, ranking every 1- and 2-literal clause;
3. the *autoregressive tautology model* (`tautology_lm.py`), sampling whole clauses for the spec,
   new quantifier-elimination literals included.

The batch is template transfer ∪ the GNN's top 32 ∪ the model's 16 most frequent samples (spec §2.3),
verified in that order, ≤ 16 injected per iteration (the model's samples last: README, "Ordering").
`inject` is the only way a proposal reaches the abstraction: z3 must prove the clause ∀-valid (rlimit +
timeout; unknown = rejected); rejections are logged with z3's counter-model and the proposal's source,
and every injected clause remembers its source.
"""

from __future__ import annotations

import itertools
import logging
import re
from dataclasses import dataclass, field

from proceedings.neurosyntheos import theory
from proceedings.neurosyntheos.families import template
from proceedings.neurosyntheos.spec import MAX_INPUTS, Spec

log = logging.getLogger(__name__)

Candidate = tuple[tuple[str, bool], ...]  # (SMT-LIB literal text, polarity): a disjunction
VERIFY_TIMEOUT_MS = 1000  # spec §2.3: 1 s per verification
SOURCES = ("template", "gnn", "lm")  # the default order of verification (measured: README)


@dataclass
class Solved:
    """One training spec's final tautology set, literals by SMT-LIB text."""
    template: str
    constants: list[int]
    clauses: list[Candidate]


def parse_smt(text: str, spec: Spec):
    import z3
    return z3.parse_smt2_string(f"(assert {text})", decls=spec.z3_vars())[0]


def _token_map(source: list[int], target: list[int]) -> dict[int, int]:
    """Re-instantiation of every constant the source can derive: c_j, c_j ± 1, c_a - c_b, c_a + c_b
    (first derivation wins, exact alignments first)."""
    mapping: dict[int, int] = {}
    for s, t in zip(source, target):
        mapping.setdefault(s, t)
    for s, t in zip(source, target):
        for d in (1, -1):
            mapping.setdefault(s + d, t + d)
    for (sa, ta), (sb, tb) in itertools.permutations(list(zip(source, target)), 2):
        mapping.setdefault(sa - sb, ta - tb)
        mapping.setdefault(sa + sb, ta + tb)
    return mapping


def transfer(solved: Solved, spec: Spec) -> list[Candidate]:
    """The clauses of `solved` re-instantiated for `spec` (same template)."""
    mapping = _token_map(solved.constants, spec.constants())
    out = []
    for clause in solved.clauses:
        out.append(tuple((_reinstantiate_signed(text, mapping), pol) for text, pol in clause))
    return out


def _reinstantiate_signed(text: str, mapping: dict[int, int]) -> str:
    """Numerals inside `(- k)` are negative constants: map -k, then write the image back signed."""
    def sub_negative(m: re.Match) -> str:
        image = mapping.get(-int(m.group(1)), -int(m.group(1)))
        return f"(- {-image})" if image < 0 else str(image)

    def sub_positive(m: re.Match) -> str:
        image = mapping.get(int(m.group(1)), int(m.group(1)))
        return str(image) if image >= 0 else f"(- {-image})"

    text = re.sub(r"\(\* (\d+) ", lambda m: f"(* __c{m.group(1)} ", text)  # protect coefficients
    text = re.sub(r"\(\* \(- (\d+)\) ", lambda m: f"(* (- __c{m.group(1)}) ", text)
    text = re.sub(r"\(- (\d+)\)", lambda m: "__neg" + m.group(1), text)
    text = re.sub(r"(?<![\w_])(\d+)\b", sub_positive, text)
    text = re.sub(r"__neg(\d+)", sub_negative, text)
    return re.sub(r"__c(\d+)", r"\1", text)


@dataclass
class NeuroPredictor:
    """Template library + autoregressive model + GNN scorer; `inject` verifies and adds ≤ limit
    clauses per iteration."""
    library: list[Solved] = field(default_factory=list)
    scorer: object | None = None  # gnn.ClauseScorer
    lm: object | None = None  # tautology_lm.TautologyLM
    gnn_top: int = 32  # spec §2.3: top-K_gnn = 32 candidates
    lm_keep: int = 16  # spec §2.3: 16 sequences (here the most frequent of 32 samples)
    order: tuple[str, ...] = SOURCES  # the order proposals are verified and injected in
    log: list[dict] = field(default_factory=list)
    malformed: int = 0  # model samples that were no clause (never verified, never injected)
    _queue: dict = field(default_factory=dict)

    def proposals(self, spec: Spec) -> list[tuple[Candidate, str]]:
        """(candidate, source): template transfer (nearest same-template member), the GNN's ranking and the
        model's samples, sources in `order`; a candidate proposed twice keeps its first source."""
        by_source: dict[str, list[Candidate]] = {source: [] for source in SOURCES}
        key = template(spec)
        members = [s for s in self.library if s.template == key]
        if members:
            target = spec.constants()
            nearest = min(members, key=lambda s: sum(abs(a - b) for a, b in zip(s.constants, target)))
            by_source["template"] = transfer(nearest, spec)
        if self.lm is not None:
            from proceedings.neurosyntheos.tautology_lm import sample
            by_source["lm"], malformed = sample(self.lm, spec, keep=self.lm_keep)
            self.malformed += malformed
        if self.scorer is not None:
            by_source["gnn"] = self.scorer.rank(spec)[: self.gnn_top]
        first = {}
        for source in self.order:
            for candidate in by_source[source]:
                first.setdefault(tuple(sorted(candidate)), (candidate, source))
        return list(first.values())

    def inject(self, state, iteration: int, limit: int, budget) -> tuple[int, int]:
        """Verify queued proposals in order; add up to `limit` valid, new ones. Returns (added, rejected)."""
        if state.spec.name not in self._queue:
            self._queue = {state.spec.name: list(self.proposals(state.spec))}
        queue = self._queue[state.spec.name]
        added = rejected = 0
        while queue and added < limit and not budget.expired():
            candidate, source = queue.pop(0)
            clause = self._clause(state, candidate)
            if clause is None or state.implied(clause):
                continue
            verdict = theory.check_valid(theory.clause_formula(clause, state.table()), VERIFY_TIMEOUT_MS)
            if verdict.valid is True:
                state.add(clause, "predicted", iteration, source)
                added += 1
            else:
                rejected += 1
                self.log.append({"spec": state.spec.name, "clause": list(candidate), "source": source,
                                 "why": "unknown" if verdict.valid is None else "invalid",
                                 "counter_model": verdict.counter_model})
                log.info("rejected %s for %s: %s", candidate, state.spec.name, self.log[-1]["why"])
        return added, rejected

    def _clause(self, state, candidate: Candidate):
        """Map a candidate's literals onto the state's propositions. A literal that is constant on its own
        (z3 reads a sample's `(<= 12)` as true) is no proposition: under its polarity a false one is dropped
        from the disjunction, a true one makes the clause trivial. New input literals are interned only for
        a valid clause that no known clause subsumes; new output literals are never invented."""
        import z3
        try:  # a malformed literal (the tautology model can write one) makes no clause
            parsed = [(parse_smt(text, state.spec), pol) for text, pol in candidate]
        except z3.Z3Exception:
            return None
        if not all(z3.is_bool(expr) for expr, _ in parsed):
            return None
        known, new = set(), []
        for expr, pol in parsed:
            prop = state.find(expr)
            if prop is not None:
                known.add((prop, pol))
                continue
            names = theory.free_variable_names(expr)
            if any(state.spec.variables.get(n) and state.spec.variables[n].owner == "system" for n in names):
                return None
            constant = _constant(expr)
            if constant is None:
                new.append((expr, pol))
            elif constant == pol:
                return None
        if not new:
            return frozenset(known) or None
        if state.implied(frozenset(known)):
            return None
        if theory.check_valid(z3.Or([e if p else z3.Not(e) for e, p in parsed]), VERIFY_TIMEOUT_MS).valid is not True:
            return None
        if sum(not lit.output for lit in state.literals) + len(new) > MAX_INPUTS:
            return None
        return frozenset(known | {(state.intern(expr, "predicted"), pol) for expr, pol in new})


def _constant(expr) -> bool | None:
    """True / False when `expr` holds for every / no value of its variables; None otherwise or undecided."""
    import z3
    if theory.check_valid(expr, VERIFY_TIMEOUT_MS).valid is True:
        return True
    if theory.check_valid(z3.Not(expr), VERIFY_TIMEOUT_MS).valid is True:
        return False
    return None


def solved_from_trace(spec: Spec, records: list[dict]) -> Solved:
    """A training spec's final set (every clause its CEGRES run added), from its trace records."""
    clauses = [tuple((lit["smt"], lit["polarity"]) for lit in r["clause"]) for r in records]
    return Solved(template(spec), spec.constants(), clauses)
