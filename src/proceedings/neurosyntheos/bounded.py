"""Bounded synthesis (Finkbeiner & Schewe 2013) on z3 for Boolean LTL games, with explicit
certificates.

The game: inputs I (environment propositions), outputs O (system), φ over I ∪ O, plus the theory
knowledge CEGRES has found so far as clauses: environment clauses restrict which inputs can occur,
system clauses which outputs can answer an input (spec §2.2 step 2: G(assumptions) -> G(guarantees)
& φ, read as filters on the letters).

REALIZABLE: a Mealy machine with n states exists whose every run of the universal co-Büchi
automaton (the TGBA of ¬φ, degeneralised) has finitely many rejecting edges: z3 finds the
transition/output functions and a ranking λ(q,t) that grows strictly on rejecting edges (eq. of §3
in the bounded-synthesis paper). n grows 1, 2, ...; the dual (an environment Moore machine for ¬φ,
against the TGBA of φ) runs alternately. Either machine is then *model-checked* explicitly
(`mealy_satisfies`, `moore_refutes`: product with the automaton, SCC emptiness), not trusted from
the SMT encoding.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from proceedings.neurosyntheos.automaton import TGBA, accepting_cycle, translate
from proceedings.neurosyntheos.ltl import Formula, neg

Clause = frozenset[tuple[str, bool]]  # disjunction of (proposition, polarity)
WALL_SLACK = 5.0  # a z3 call may use this many wall seconds per CPU second left (shared machines)


@dataclass
class Budget:
    """A per-spec budget in CPU seconds of this process (z3 included). On a quiet machine CPU and wall
    time coincide; on a shared one (load 10-17 measured here) a wall budget would measure the
    neighbours, so every arm is charged only for its own work."""
    seconds: float
    start: float = field(default_factory=time.process_time)

    def left(self) -> float:
        return self.seconds - (time.process_time() - self.start)

    def expired(self) -> bool:
        return self.left() <= 0

    def z3_timeout_ms(self) -> int:
        return max(1, int(self.left() * WALL_SLACK * 1000))
Bits = tuple[bool, ...]


def clause_holds(clause: Clause, letter: dict[str, bool]) -> bool:
    return any(letter.get(p, False) == polarity for p, polarity in clause)


@dataclass
class Game:
    formula: Formula
    inputs: list[str]
    outputs: list[str]
    env_clauses: list[Clause] = field(default_factory=list)  # over inputs only
    sys_clauses: list[Clause] = field(default_factory=list)

    def allowed_inputs(self) -> list[Bits]:
        out = []
        for bits in itertools.product((False, True), repeat=len(self.inputs)):
            letter = dict(zip(self.inputs, bits))
            if all(clause_holds(c, letter) for c in self.env_clauses):
                out.append(bits)
        return out

    def allows(self, i: Bits, o: Bits) -> bool:
        letter = dict(zip(self.inputs, i)) | dict(zip(self.outputs, o))
        return all(clause_holds(c, letter) for c in self.sys_clauses)

    def possible_outputs(self) -> list[Bits]:
        """Output valuations not excluded by a system clause over outputs alone (whatever the input)."""
        only = [c for c in self.sys_clauses if all(p in self.outputs for p, _ in c)]
        out = []
        for o in itertools.product((False, True), repeat=len(self.outputs)):
            letter = dict(zip(self.outputs, o))
            if all(clause_holds(c, letter) for c in only):
                out.append(o)
        return out

    def letter(self, i: Bits, o: Bits) -> frozenset[str]:
        return frozenset(p for p, b in zip(self.inputs + self.outputs, i + o) if b)


@dataclass
class Mealy:
    """System strategy: in state t, on input i, output out[t, i] and move to nxt[t, i]."""
    inputs: list[str]
    outputs: list[str]
    n_states: int
    out: dict[tuple[int, Bits], Bits]
    nxt: dict[tuple[int, Bits], int]

    def reachable_edges(self) -> list[tuple[int, Bits, Bits, int]]:
        seen, todo, edges = {0}, [0], []
        while todo:
            t = todo.pop()
            for (s, i), o in sorted(self.out.items()):
                if s != t:
                    continue
                t2 = self.nxt[s, i]
                edges.append((t, i, o, t2))
                if t2 not in seen:
                    seen.add(t2)
                    todo.append(t2)
        return edges

    def to_json(self) -> dict:
        return {"inputs": self.inputs, "outputs": self.outputs, "n_states": self.n_states,
                "edges": [{"state": t, "input": list(i), "output": list(o), "next": t2}
                          for t, i, o, t2 in self.reachable_edges()]}


@dataclass
class Moore:
    """Environment counter-strategy: in state s, play inp[s]; on the system's answer o move to nxt[s, o]."""
    inputs: list[str]
    outputs: list[str]
    n_states: int
    inp: dict[int, Bits]
    nxt: dict[tuple[int, Bits], int]

    def reachable_states(self) -> list[int]:
        seen, todo = {0}, [0]
        while todo:
            s = todo.pop()
            for (t, _), t2 in self.nxt.items():
                if t == s and t2 not in seen:
                    seen.add(t2)
                    todo.append(t2)
        return sorted(seen)

    def to_json(self) -> dict:
        return {"inputs": self.inputs, "outputs": self.outputs, "n_states": self.n_states,
                "play": {str(s): list(self.inp[s]) for s in self.reachable_states()},
                "next": [{"state": s, "output": list(o), "next": t} for (s, o), t in sorted(self.nxt.items())
                         if s in self.reachable_states()]}


@dataclass
class Outcome:
    verdict: str  # REALIZABLE | UNREALIZABLE | UNKNOWN
    mealy: Mealy | None = None
    moore: Moore | None = None
    sys_bound: int = 0  # largest controller size proved impossible
    env_bound: int = 0  # largest counter-strategy size proved impossible
    smt_checks: int = 0
    seconds: float = 0.0


# -- explicit certificates -----------------------------------------------------------------------------

def mealy_satisfies(game: Game, mealy: Mealy, negation: TGBA | None = None) -> bool:
    """Every run of the machine on allowed inputs satisfies φ: the product of the machine with the
    automaton of ¬φ has no accepting cycle."""
    aut = negation or translate(neg(game.formula))
    inputs = game.allowed_inputs()

    def successors(node):
        t, q = node
        for i in inputs:
            o, t2 = mealy.out[t, i], mealy.nxt[t, i]
            letter = game.letter(i, o)
            for e in aut.edges[q]:
                if e.admits(letter):
                    yield (t2, e.target), e.marks

    return not accepting_cycle((0, aut.initial), successors, aut.n_sets)


def moore_refutes(game: Game, moore: Moore, automaton: TGBA | None = None) -> bool:
    """Every play of the counter-strategy against every allowed system answer violates φ: its product
    with the automaton of φ has no accepting cycle."""
    aut = automaton or translate(game.formula)
    outputs = game.possible_outputs()
    allowed_inputs = set(game.allowed_inputs())
    if any(moore.inp[s] not in allowed_inputs for s in moore.reachable_states()):
        return False

    def successors(node):
        s, q = node
        i = moore.inp[s]
        for o in outputs:
            if not game.allows(i, o):
                continue
            letter = game.letter(i, o)
            for e in aut.edges[q]:
                if e.admits(letter):
                    yield (moore.nxt[s, o], e.target), e.marks

    return not accepting_cycle((0, aut.initial), successors, aut.n_sets)


# -- the SMT encodings -------------------------------------------------------------------------------

def degeneralise(aut: TGBA) -> tuple[list[tuple[int, int]], dict[tuple[int, int], list[tuple[object, tuple[int, int], bool]]]]:
    """Counter construction: states (q, j); an edge advances j over the marks it carries, and is
    *rejecting* (counted by the ranking) when j completes the round; no sets: every edge counts."""
    k = aut.n_sets
    states, edges, todo = [(aut.initial, 0)], {}, [(aut.initial, 0)]
    seen = {(aut.initial, 0)}
    while todo:
        q, j = todo.pop()
        out = []
        for e in aut.edges[q]:
            j2, counted = j, k == 0
            while j2 < k and j2 in e.marks:
                j2 += 1
            if j2 == k:
                counted, j2 = True, 0
            out.append((e, (e.target, j2), counted))
            if (e.target, j2) not in seen:
                seen.add((e.target, j2))
                states.append((e.target, j2))
                todo.append((e.target, j2))
        edges[q, j] = out
    return states, edges


def _consistent(edge, letter: dict[str, bool]) -> bool:
    """The edge's guard does not contradict the propositions fixed in `letter`."""
    return not any(letter.get(p) is False for p in edge.pos) and not any(letter.get(p) is True for p in edge.neg)


def _progress(s, reach, rank, here, there, chosen, guard, n: int) -> None:
    """Annotation constraint: reach(d, t) ∧ guard ∧ chosen == t2 -> reach(d2, t2) ∧ λ(d2, t2) ≥ λ(d, t),
    strictly on a counted (rejecting) edge of the co-Büchi automaton."""
    import z3
    (d, t), (d2, counted) = here, there
    for t2 in range(n):
        step = rank[d2, t2] > rank[d, t] if counted else rank[d2, t2] >= rank[d, t]
        s.add(z3.Implies(z3.And([reach[d, t], chosen == t2] + guard), z3.And(reach[d2, t2], step)))


def _solve_mealy(game: Game, n: int, deg, timeout_ms: int):
    import z3
    states, edges = deg
    inputs = game.allowed_inputs()
    if not inputs:  # no input can occur: any machine is vacuously correct
        inputs = []
    s = z3.Solver()
    s.set("timeout", max(1, timeout_ms))
    out = {(t, i): [z3.Bool(f"o_{t}_{''.join('1' if b else '0' for b in i)}_{k}") for k in range(len(game.outputs))]
           for t in range(n) for i in inputs}
    nxt = {(t, i): z3.Int(f"n_{t}_{''.join('1' if b else '0' for b in i)}") for t in range(n) for i in inputs}
    reach = {(d, t): z3.Bool(f"r_{d[0]}_{d[1]}_{t}") for d in states for t in range(n)}
    rank = {(d, t): z3.Int(f"k_{d[0]}_{d[1]}_{t}") for d in states for t in range(n)}
    for key, v in nxt.items():
        s.add(v >= 0, v < n)
    for (t, i), os in out.items():  # system clauses: the answer must respect known theory facts
        letter_in = dict(zip(game.inputs, i))
        for c in game.sys_clauses:
            lits = []
            for p, pol in c:
                if p in letter_in:
                    if letter_in[p] == pol:
                        lits = None
                        break
                else:
                    v = os[game.outputs.index(p)]
                    lits.append(v if pol else z3.Not(v))
            if lits is not None:
                s.add(z3.Or(lits) if lits else z3.BoolVal(False))
    s.add(reach[states[0], 0])
    index_out = {p: k for k, p in enumerate(game.outputs)}
    for d in states:
        for e, d2, counted in edges[d]:
            for i in inputs:
                if not _consistent(e, dict(zip(game.inputs, i))):
                    continue
                for t in range(n):
                    guard = [out[t, i][index_out[p]] for p in e.pos if p in index_out] + \
                            [z3.Not(out[t, i][index_out[p]]) for p in e.neg if p in index_out]
                    _progress(s, reach, rank, (d, t), (d2, counted), nxt[t, i], guard, n)
    result = s.check()
    if result != z3.sat:
        return result, None
    m = s.model()
    mealy = Mealy(game.inputs, game.outputs, n,
                  {(t, i): tuple(z3.is_true(m.eval(v, model_completion=True)) for v in out[t, i]) for t, i in out},
                  {key: m.eval(v, model_completion=True).as_long() for key, v in nxt.items()})
    return result, mealy


def _solve_moore(game: Game, n: int, deg, timeout_ms: int):
    import z3
    states, edges = deg
    outputs = game.possible_outputs()
    s = z3.Solver()
    s.set("timeout", max(1, timeout_ms))
    inp = {t: [z3.Bool(f"i_{t}_{k}") for k in range(len(game.inputs))] for t in range(n)}
    nxt = {(t, o): z3.Int(f"n_{t}_{''.join('1' if b else '0' for b in o)}") for t in range(n) for o in outputs}
    reach = {(d, t): z3.Bool(f"r_{d[0]}_{d[1]}_{t}") for d in states for t in range(n)}
    rank = {(d, t): z3.Int(f"k_{d[0]}_{d[1]}_{t}") for d in states for t in range(n)}
    index_in = {p: k for k, p in enumerate(game.inputs)}
    index_out = {p: k for k, p in enumerate(game.outputs)}

    def holds(c, t, o) -> object:  # a clause under symbolic input inp[t] and concrete output o
        lits = []
        for p, pol in c:
            if p in index_out:
                if o[index_out[p]] == pol:
                    return z3.BoolVal(True)
            else:
                v = inp[t][index_in[p]]
                lits.append(v if pol else z3.Not(v))
        return z3.Or(lits) if lits else z3.BoolVal(False)

    for v in nxt.values():
        s.add(v >= 0, v < n)
    for t in range(n):
        for c in game.env_clauses:
            s.add(holds(c, t, ()))
    s.add(reach[states[0], 0])
    for d in states:
        for e, d2, counted in edges[d]:
            for o in outputs:
                if not _consistent(e, dict(zip(game.outputs, o))):
                    continue
                for t in range(n):
                    guard = [inp[t][index_in[p]] for p in e.pos if p in index_in] + \
                            [z3.Not(inp[t][index_in[p]]) for p in e.neg if p in index_in]
                    allowed = [holds(c, t, o) for c in game.sys_clauses]
                    _progress(s, reach, rank, (d, t), (d2, counted), nxt[t, o], guard + allowed, n)
    result = s.check()
    if result != z3.sat:
        return result, None
    m = s.model()
    moore = Moore(game.inputs, game.outputs, n,
                  {t: tuple(z3.is_true(m.eval(v, model_completion=True)) for v in inp[t]) for t in range(n)},
                  {key: m.eval(v, model_completion=True).as_long() for key, v in nxt.items()})
    return result, moore


MAX_DUAL_OUTPUTS = 10  # the counter-strategy enumerates 2^|O| answers


def synthesize(game: Game, budget: Budget, max_size: int = 8) -> Outcome:
    """Grow controller and counter-strategy sizes alternately until one exists and model-checks, the
    deadline passes (UNKNOWN with both bounds), or max_size is exhausted."""
    import z3
    start = time.monotonic()
    negation, positive = translate(neg(game.formula)), translate(game.formula)
    deg_sys, deg_env = degeneralise(negation), degeneralise(positive)
    outcome = Outcome("UNKNOWN")
    dual = len(game.outputs) <= MAX_DUAL_OUTPUTS
    for n in range(1, max_size + 1):
        for side in ("system", "environment"):
            if side == "environment" and not dual:
                continue
            if budget.expired():
                outcome.seconds = time.monotonic() - start
                return outcome
            solve = _solve_mealy if side == "system" else _solve_moore
            result, machine = solve(game, n, deg_sys if side == "system" else deg_env,
                                    budget.z3_timeout_ms())
            outcome.smt_checks += 1
            if result == z3.unknown:
                outcome.seconds = time.monotonic() - start
                return outcome
            if machine is None:
                if side == "system":
                    outcome.sys_bound = n
                else:
                    outcome.env_bound = n
                continue
            if side == "system" and mealy_satisfies(game, machine, negation):
                outcome.verdict, outcome.mealy = "REALIZABLE", machine
            elif side == "environment" and moore_refutes(game, machine, positive):
                outcome.verdict, outcome.moore = "UNREALIZABLE", machine
            else:
                raise AssertionError(f"bounded synthesis returned a {side} machine that fails its model check")
            outcome.seconds = time.monotonic() - start
            return outcome
    outcome.seconds = time.monotonic() - start
    return outcome
