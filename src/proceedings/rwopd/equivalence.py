"""Deciding "always A => always B" on two monitors with z3 (spec Stage D).

`check_direction` asks whether some infinite trace satisfies A and violates B:
  - lasso search (bounded): a prefix plus a loop of total length <= depth whose monitor state closes
    on itself, on which A never fails and (if A has strong obligations) A's breakpoint set empties
    somewhere in the loop (every attempt is discharged), while B fails somewhere or B's breakpoint
    set stays non-empty all loop long (some attempt waits forever; `monitor._Obligation`).
    A lasso fixes the whole infinite trace, so a counterexample found here is real; it is replayed
    through both monitors with concrete integers before it is reported.
  - k-induction (unbounded): from any state, k steps without A or B failing cannot be followed by a
    B failure. This proves the safety part of B; B's liveness part stays bounded (flagged).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from proceedings.rwopd.ir import FALSE, land, lnot
from proceedings.rwopd.monitor import Circuit, Outputs
from proceedings.rwopd.semantics import IntAlgebra, Z3Algebra, evaluate


class SolverTimeout(Exception):
    """z3 answered 'unknown' or the check's wall-clock budget ran out."""


@dataclass
class Trace:
    """A lasso: `steps[t]` maps each signal to its value at tick t; ticks loop_start.. repeat forever."""

    steps: list[dict[str, int]]
    loop_start: int

    def to_dict(self) -> dict:
        return {"steps": self.steps, "loop_start": self.loop_start}


@dataclass
class Direction:
    holds: bool  # no trace satisfies A and violates B (up to `depth` when not proved)
    proved: bool  # holds for every trace length (induction closed)
    depth: int
    counterexample: Trace | None = None
    notes: list[str] = field(default_factory=list)


class Unroller:
    """Symbolic (z3) or concrete (int) execution of the circuit, one tick at a time."""

    def __init__(self, circuit: Circuit, outputs: list[Outputs], algebra, inputs) -> None:
        self.circuit, self.outputs, self.algebra, self.inputs = circuit, outputs, algebra, inputs

    def step(self, state: dict, tick: int):
        """(fail and pending values per output, next state) of one tick from `state`."""
        leaf_inputs = self.inputs(tick)

        def leaf(node):
            return state[node.value] if node.op == "reg" else leaf_inputs[node.value]

        memo: dict = {}
        flags = [(evaluate(o.fail, leaf, self.algebra, memo), evaluate(o.pending, leaf, self.algebra, memo))
                 for o in self.outputs]
        nxt = {name: evaluate(reg.next, leaf, self.algebra, memo) for name, reg in self.circuit.registers.items()}
        return flags, nxt


def check_direction(circuit: Circuit, a: Outputs, b: Outputs, depth: int, deadline: float,
                    induction_depth: int | None = None) -> Direction:
    """Does every trace that satisfies A satisfy B?

    Induction runs first: when it closes and B has no liveness part the direction is proved
    without any lasso search (the common case of equivalent safety properties). B's liveness part
    is proved when k-induction also shows "B's breakpoint set non-empty => A's non-empty" while A
    holds: then every breakpoint of A (infinitely many on a trace satisfying A) is one of B.
    """
    if not circuit.registers:
        depth = 0  # combinational: one tick decides
    k = induction_depth or depth
    proved_safety = _proved(circuit, a, b, k, deadline)
    if proved_safety and (not b.strong or (a.strong and _proved(circuit, a, _liveness_cover(a, b), k, deadline))):
        return Direction(True, True, depth)
    counterexample = find_separating_lasso(circuit, a, b, depth, deadline)
    if counterexample is not None:
        return Direction(False, True, depth, counterexample)
    notes = []
    if not proved_safety:
        notes.append(f"induction did not close up to depth {k}: bounded result")
    if b.strong:
        notes.append("B's liveness obligations not covered by A's by induction: checked on lassos up to the depth")
    return Direction(True, False, depth, None, notes)


def _liveness_cover(a: Outputs, b: Outputs) -> Outputs:
    """A pseudo-property that "fails" where B owes an attempt while A owes none."""
    return Outputs(land(b.pending, lnot(a.pending)), FALSE, False, 0)


def _proved(circuit: Circuit, a: Outputs, b: Outputs, depth: int, deadline: float) -> bool:
    """k-induction with its base case: while A never fails, B never fails."""
    closed_at = _induction(circuit, a, b, depth, deadline)
    return closed_at is not None and _base_case_holds(circuit, a, b, closed_at, deadline)


def _symbolic_inputs(circuit: Circuit):
    import z3

    cache: dict[int, dict] = {}

    def inputs(tick: int) -> dict:
        if tick not in cache:
            cache[tick] = {name: z3.BitVec(f"{name}@{tick}", width) for name, width in circuit.signals.items()}
        return cache[tick]

    return inputs


def _solve(solver, deadline: float):
    import z3

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise SolverTimeout("time budget exhausted")
    solver.set("timeout", max(1, int(remaining * 1000)))
    answer = solver.check()
    if answer == z3.unknown:
        raise SolverTimeout(solver.reason_unknown())
    return answer


def checkpoints(depth: int) -> list[int]:
    """Unrolling lengths at which to ask the solver: 0, 1, 2, 4, 8, ... and `depth` itself.

    A lasso of length n can be unrolled into one of any length >= n (move the loop start along the
    loop), and k-induction that closes at k closes at every larger k, so sparse checkpoints lose
    nothing but the minimality of counterexamples; they save most of the solver calls.
    """
    points, k = {0, depth}, 1
    while k < depth:
        points.add(k)
        k *= 2
    return sorted(points)


def _state_vector(state: dict):
    import z3

    values = list(state.values())
    return values[0] if len(values) == 1 else z3.Concat(*values)


def find_separating_lasso(circuit: Circuit, a: Outputs, b: Outputs, depth: int, deadline: float) -> Trace | None:
    import z3

    inputs = _symbolic_inputs(circuit)
    run = Unroller(circuit, [a, b], Z3Algebra(), inputs)
    solver = z3.SolverFor("QF_BV")
    states = [{name: z3.BitVecVal(reg.init, reg.width) for name, reg in circuit.registers.items()}]
    vectors = [_state_vector(states[0])] if circuit.registers else []
    a_live_from, b_dead_from = [], []
    b_failed = z3.BoolVal(False)
    targets = set(checkpoints(depth))
    for k in range(depth + 1):
        ((fa, pa), (fb, pb)), nxt = run.step(states[k], k)
        states.append(nxt)
        if circuit.registers:
            vectors.append(_state_vector(nxt))
        solver.add(fa == 0)
        b_failed = z3.Or(b_failed, fb == 1)
        # suffix summaries for every loop start l <= k: A released somewhere in l..k, B pending all of l..k
        a_live_from = [z3.Or(x, pa == 0) for x in a_live_from] + [pa == 0]
        b_dead_from = [z3.And(x, pb == 1) for x in b_dead_from] + [pb == 1]
        if k not in targets:
            continue
        loops = []
        for start in range(k + 1):
            closes = vectors[k + 1] == vectors[start] if circuit.registers else z3.BoolVal(True)
            a_live = a_live_from[start] if a.strong else z3.BoolVal(True)
            b_fails = z3.Or(b_failed, b_dead_from[start]) if b.strong else b_failed
            loops.append(z3.And(closes, a_live, b_fails))
        solver.push()
        solver.add(z3.Or(loops))
        if _solve(solver, deadline) == z3.sat:
            model = solver.model()
            trace = _extract(model, circuit, inputs, k, states, loops)
            solver.pop()
            return trace
        solver.pop()
    return None


def _extract(model, circuit: Circuit, inputs, k: int, states, loops) -> Trace:
    import z3

    steps = [{name: model.eval(var, model_completion=True).as_long() for name, var in inputs(t).items()}
             for t in range(k + 1)]
    loop_start = next(i for i, cond in enumerate(loops) if z3.is_true(model.eval(cond, model_completion=True)))
    return Trace(steps, loop_start)


def _base_case_holds(circuit: Circuit, a: Outputs, b: Outputs, k: int, deadline: float) -> bool:
    """The base of k-induction: from the initial state, A never failing in ticks 0..k leaves B unfailed.

    Requiring A to hold over all k+1 ticks is sound here: on a trace that satisfies A, A fails nowhere.
    """
    import z3

    run = Unroller(circuit, [a, b], Z3Algebra(), _symbolic_inputs(circuit))
    solver = z3.SolverFor("QF_BV")
    state = {name: z3.BitVecVal(reg.init, reg.width) for name, reg in circuit.registers.items()}
    b_fails = []
    for tick in range(k + 1):
        ((fa, _), (fb, _)), state = run.step(state, tick)
        solver.add(fa == 0)
        b_fails.append(fb == 1)
    solver.add(z3.Or(b_fails))
    return _solve(solver, deadline) == z3.unsat


def _induction(circuit: Circuit, a: Outputs, b: Outputs, depth: int, deadline: float) -> int | None:
    """The step of k-induction on "no B failure while A holds": the k <= depth where it closes, or None.

    Only a proof together with `_base_case_holds` at the same k.
    """
    import z3

    inputs = _symbolic_inputs(circuit)
    run = Unroller(circuit, [a, b], Z3Algebra(), inputs)
    solver = z3.SolverFor("QF_BV")
    state = {name: z3.BitVec(f"{name}#0", reg.width) for name, reg in circuit.registers.items()}
    # from an arbitrary state, at least one step; with no registers the state is empty and tick 0 decides
    targets = set(checkpoints(depth)) - {0} if circuit.registers else {0}
    for k in range(depth + 1):
        ((fa, _), (fb, _)), state = run.step(state, k)
        solver.add(fa == 0)
        if k in targets:
            solver.push()
            solver.add(fb == 1)
            if _solve(solver, deadline) == z3.unsat:
                return k
            solver.pop()
        solver.add(fb == 0)
    return None


def replay(circuit: Circuit, a: Outputs, b: Outputs, trace: Trace) -> dict:
    """Run the lasso through both monitors with concrete integers; say whether it separates them."""
    run = Unroller(circuit, [a, b], IntAlgebra(), lambda t: trace.steps[t])
    state = {name: reg.init for name, reg in circuit.registers.items()}
    history, flags = [dict(state)], []
    for tick in range(len(trace.steps)):
        step_flags, state = run.step(state, tick)
        flags.append(step_flags)
        history.append(dict(state))
    closes = history[-1] == history[trace.loop_start]
    loop = flags[trace.loop_start:]
    a_fails = any(f[0][0] for f in flags)
    a_live = not a.strong or any(not f[0][1] for f in loop)
    b_fails = any(f[1][0] for f in flags) or (b.strong and all(f[1][1] for f in loop))
    return {"loop_closes": closes, "a_holds": closes and not a_fails and a_live, "b_fails": b_fails,
            "fail_a": [f[0][0] for f in flags], "fail_b": [f[1][0] for f in flags],
            "separates": closes and not a_fails and a_live and b_fails}
