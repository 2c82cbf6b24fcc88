"""CEGRES: counter-example guided refinement of the Boolean abstraction of an LTLt spec (Rodríguez,
Gorostiaga & Sánchez, CAV'25; spec §2.2), with the two batching variants compared in the paper:

- `cegres`: one tautology per synthesis call (Syntheos stops at the first illegal edge);
- `all-edges`: every illegal edge's tautology in the same iteration (≤ `batch`);
- `neuro`: before each call a predictor proposes clauses, z3 proves each ∀-valid, ≤ `batch` are
  injected (NeuroSyntheos, paper §3), then the unchanged CEGRES iteration runs.

A verdict is only returned with a checked certificate: REALIZABLE = a Mealy machine that passed its
explicit model check and whose every reachable edge with a feasible input is theory-feasible;
UNREALIZABLE = a counter-strategy that passed its model check and whose every input is feasible.
Anything else (deadline, bound exhausted, an undecided z3 query) is UNKNOWN, never a verdict.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from proceedings.neurosyntheos import theory
from proceedings.neurosyntheos.certificate import certificate
from proceedings.neurosyntheos.bounded import Bits, Budget, Clause, Game, Outcome, synthesize
from proceedings.neurosyntheos.spec import MAX_INPUTS, Literal, Spec

log = logging.getLogger(__name__)
ARMS = ("cegres", "all-edges", "neuro")


@dataclass
class Tautology:
    clause: Clause
    origin: str  # cegres | predicted
    iteration: int
    source: str = ""  # predicted: template | lm | gnn (predictor.SOURCES)

    def text(self, table: dict[str, Literal]) -> str:
        return " | ".join(("" if pol else "!") + f"[{table[p].text}]" for p, pol in sorted(self.clause))


@dataclass
class Run:
    spec: str
    arm: str
    verdict: str = "UNKNOWN"
    expected: str = ""
    calls: int = 0  # Boolean synthesis calls (CEGRES iterations)
    smt_checks: int = 0
    seconds: float = 0.0  # wall
    cpu_s: float = 0.0  # what the budget charges
    neural_s: float = 0.0  # proposing + verifying (NeuroSyntheos only)
    sys_bound: int = 0
    env_bound: int = 0
    injected: int = 0
    rejected: int = 0
    by_source: dict = field(default_factory=dict)  # NeuroSyntheos: source -> injected / rejected / malformed
    reason: str = ""
    tautologies: list[Tautology] = field(default_factory=list)
    literals: list[Literal] = field(default_factory=list)
    certificate: dict = field(default_factory=dict)
    trace: list[dict] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        return self.verdict in ("REALIZABLE", "UNREALIZABLE")

    def table(self) -> dict[str, Literal]:
        return {lit.prop: lit for lit in self.literals}

    def summary(self) -> dict:
        keys = ("spec", "arm", "verdict", "expected", "calls", "smt_checks", "seconds", "cpu_s", "neural_s",
                "sys_bound", "env_bound", "injected", "rejected", "by_source", "reason")
        out = {k: getattr(self, k) for k in keys}
        out["tautologies"] = [t.text(self.table()) for t in self.tautologies]
        return out

    def save(self, out: str | Path) -> Path:
        """controller.json (the certificate), trace.jsonl (one refinement a line), report.json."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "controller.json").write_text(json.dumps(self.certificate, indent=1))
        (out / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in self.trace))
        (out / "report.json").write_text(json.dumps(self.summary(), indent=1))
        return out


class Undecided(Exception):
    """A z3 query returned unknown: the edge can be neither certified nor refined."""


@dataclass
class State:
    """The growing abstraction: literal table (spec literals first) and the tautologies known."""
    spec: Spec
    literals: list[Literal]
    tautologies: list[Tautology] = field(default_factory=list)

    def table(self) -> dict[str, Literal]:
        return {lit.prop: lit for lit in self.literals}

    def find(self, expr) -> str | None:
        """The proposition of a literal equivalent to `expr` (z3 simplify is not canonical across
        construction orders, so equal texts first, then a validity check of a <-> b)."""
        import z3
        text = z3.simplify(expr).sexpr()
        names = theory.free_variable_names(expr)
        for lit in self.literals:
            if z3.simplify(lit.expr).sexpr() == text:
                return lit.prop
        for lit in self.literals:
            if theory.free_variable_names(lit.expr) == names and theory.check_valid(lit.expr == expr).valid:
                return lit.prop
        return None

    def intern(self, expr, origin: str) -> str | None:
        """The proposition of an input literal `expr`, adding it when new (None: the input cap is hit)."""
        known = self.find(expr)
        if known is not None:
            return known
        if sum(not lit.output for lit in self.literals) >= MAX_INPUTS:
            return None
        names = theory.free_variable_names(expr)
        lit = Literal(f"l{len(self.literals)}", expr, str(expr), output=False,
                      fetched=any(n.startswith("y_") for n in names), origin=origin)
        self.literals.append(lit)
        return lit.prop

    def game(self) -> Game:
        inputs = [lit.prop for lit in self.literals if not lit.output]
        outputs = [lit.prop for lit in self.literals if lit.output]
        env, sys = [], []
        for t in self.tautologies:
            (env if all(p in inputs for p, _ in t.clause) else sys).append(t.clause)
        return Game(self.spec.formula, inputs, outputs, env, sys)

    def implied(self, clause: Clause) -> bool:
        """Subsumed by a known clause (a cheap syntactic test; duplicates are never injected)."""
        return any(t.clause <= clause for t in self.tautologies)

    def add(self, clause: Clause, origin: str, iteration: int, source: str = "") -> bool:
        if self.implied(clause):
            return False
        self.tautologies.append(Tautology(clause, origin, iteration, source))
        return True


def cube(state: State, props: list[str], bits: Bits) -> dict[str, object]:
    table = state.table()
    return {p: theory.literal_expr(table[p], b) for p, b in zip(props, bits)}


def system_edge_tautology(state: State, game: Game, i: Bits, o: Bits, qe_cache: dict) -> Clause | None:
    """None if the answer o is achievable for every environment value matching i (legal edge);
    else a valid clause the edge violates (CEGRES step 4/5)."""
    import z3
    inputs, outputs = cube(state, game.inputs, i), cube(state, game.outputs, o)
    if not outputs:
        return None
    if o not in qe_cache:
        qe_cache[o] = theory.eliminate(theory.system_variables(state.spec), z3.And(list(outputs.values())))
    achievable = qe_cache[o]
    if achievable is None:
        raise Undecided("quantifier elimination failed")
    s = theory.solver()
    s.add(*inputs.values(), z3.Not(achievable))
    verdict = s.check()
    if verdict == z3.unknown:
        raise Undecided("edge check unknown")
    if verdict == z3.unsat:
        return None
    witness = s.model()
    core = theory.unsat_core({**{f"i{p}": f for p, f in inputs.items()}, **{f"o{p}": f for p, f in outputs.items()}})
    if core is not None:  # the literal combination itself is impossible: ¬(core)
        bits = dict(zip(game.inputs, i)) | dict(zip(game.outputs, o))
        return frozenset((name[1:], not bits[name[1:]]) for name in core)
    parts = achievable.children() if z3.is_and(achievable) else [achievable]
    missing = next(q for q in parts if z3.is_false(witness.eval(q, model_completion=True)))
    core = theory.unsat_core({**{f"o{p}": f for p, f in outputs.items()}, "q": z3.Not(missing)})
    answer = frozenset((name[1:], not dict(zip(game.outputs, o))[name[1:]]) for name in core or [] if name != "q")
    if not theory.free_variable_names(missing):
        return answer
    prop = state.intern(missing, "qe")
    if prop is None:
        raise Undecided(f"quantifier elimination needs more than {MAX_INPUTS} input literals")
    return answer | {(prop, True)}


def environment_edge_tautology(state: State, game: Game, i: Bits) -> Clause | None:
    """None if the input cube i can be played; else ¬(unsat core of i)."""
    inputs = cube(state, game.inputs, i)
    core = theory.unsat_core({p: f for p, f in inputs.items()})
    if core is None:
        return None
    bits = dict(zip(game.inputs, i))
    return frozenset((p, not bits[p]) for p in core)


def illegal_edges(state: State, game: Game, outcome: Outcome) -> list[tuple[dict, Clause]]:
    """The winner's theory-infeasible moves, each with the tautology that removes it."""
    found, seen = [], set()
    if outcome.mealy is not None:
        qe_cache: dict = {}
        for t, i, o, _ in outcome.mealy.reachable_edges():
            if (i, o) in seen:
                continue
            seen.add((i, o))
            if theory.satisfiable(list(cube(state, game.inputs, i).values())) is False:
                continue  # the loser's impossible move: unreachable, harmless
            clause = system_edge_tautology(state, game, i, o, qe_cache)
            if clause is not None:
                found.append(({"state": t, "input": list(i), "output": list(o)}, clause))
    else:
        for s in outcome.moore.reachable_states():
            i = outcome.moore.inp[s]
            if i in seen:
                continue
            seen.add(i)
            clause = environment_edge_tautology(state, game, i)
            if clause is not None:
                found.append(({"state": s, "input": list(i)}, clause))
    return found


def cegres(spec: Spec, budget_s: float = 10.0, arm: str = "cegres", predictor=None, batch: int = 16,
           max_size: int = 6) -> Run:
    """Run one arm on one spec within `budget_s` CPU seconds (proposal + verification included)."""
    start = time.monotonic()
    budget = Budget(budget_s)
    state = State(spec, list(spec.literals))
    run = Run(spec.name, arm, expected=spec.expected)
    iteration = 0
    log_start, malformed_start = (len(predictor.log), predictor.malformed) if predictor is not None else (0, 0)
    try:
        while not budget.expired():
            iteration += 1
            if predictor is not None:
                t0 = time.process_time()
                injected, rejected = predictor.inject(state, iteration, limit=batch, budget=budget)
                run.neural_s += time.process_time() - t0
                run.injected += injected
                run.rejected += rejected
            game = state.game()
            outcome = synthesize(game, budget, max_size)
            run.calls += 1
            run.smt_checks += outcome.smt_checks
            run.sys_bound, run.env_bound = outcome.sys_bound, outcome.env_bound
            if outcome.verdict == "UNKNOWN":
                run.reason = "budget" if budget.expired() else f"no machine up to size {max_size}"
                break
            illegal = illegal_edges(state, game, outcome)
            if not illegal:
                if outcome.verdict == "UNREALIZABLE" and any(lit.fetched for lit in state.literals if not lit.output):
                    run.reason = "counter-strategy reads fetched values (y) as free inputs: not certified"
                    break
                run.verdict = outcome.verdict
                run.certificate = certificate(outcome.verdict, outcome.mealy or outcome.moore, state.literals,
                                              [t.clause for t in state.tautologies])
                break
            for edge, clause in illegal[:1] if arm == "cegres" else illegal[:batch]:
                if state.add(clause, "cegres", iteration):
                    run.trace.append(trace_record(spec, state, arm, iteration, edge, clause))
        else:
            run.reason = "budget"
    except Undecided as why:
        run.reason = str(why)
    if not run.solved:
        log.info("%s (%s): UNKNOWN after %d calls: %s", spec.name, arm, run.calls, run.reason)
    run.seconds = time.monotonic() - start
    run.cpu_s = time.process_time() - budget.start
    run.tautologies, run.literals = state.tautologies, state.literals
    if predictor is not None:
        run.by_source = source_counts(run.tautologies, predictor.log[log_start:], predictor.malformed - malformed_start)
    return run


def source_counts(tautologies: list[Tautology], rejections: list[dict], malformed: int) -> dict:
    """Per proposal source: clauses injected (each proved valid) and proposals z3 rejected; the model's
    malformed samples (no clause at all)."""
    from proceedings.neurosyntheos.predictor import SOURCES
    counts = {source: {"injected": sum(t.origin == "predicted" and t.source == source for t in tautologies),
                       "rejected": sum(r["source"] == source for r in rejections)} for source in SOURCES}
    counts["lm"]["malformed"] = malformed
    return counts


def trace_record(spec: Spec, state: State, arm: str, iteration: int, edge: dict, clause: Clause) -> dict:
    """One refinement, as a JSON line: enough to rebuild and re-verify the clause over any template
    instance (each literal by its SMT-LIB text)."""
    import z3
    table = state.table()
    return {"spec": spec.name, "family": spec.family, "params": spec.params, "arm": arm, "iteration": iteration,
            "edge": edge, "clause": [{"prop": p, "polarity": pol, "smt": z3.simplify(table[p].expr).sexpr(),
                                       "text": table[p].text, "output": table[p].output} for p, pol in sorted(clause)],
            "literals": len(state.literals)}


def recheck(spec: Spec, run: Run) -> list[str]:
    """Soundness guard: every tautology of a run re-verified ∀-valid by a fresh z3 query; the problems."""
    table = run.table()
    problems = []
    for t in run.tautologies:
        verdict = theory.check_valid(theory.clause_formula(t.clause, table), timeout_ms=5000)
        if verdict.valid is not True:
            problems.append(f"{spec.name}: tautology {t.text(table)} is not valid ({verdict.counter_model})")
    return problems

