"""Properties -> synchronous monitor circuits (spec Stage C).

A `Circuit` is a set of registers (width, initial value, next-state `Expr`) over free input
signals. `add_monitor` compiles an assertion into it and returns its two outputs:
  - `fail`: some attempt of the property is violated at this tick (safety);
  - `pending`: some strong obligation is still open after this tick (liveness).
Every tick starts a new attempt (the assertion is checked at each clock).
Antecedents stay nondeterministic: one register per NFA state means "some thread is here", exact
because an implication fires for any match. Consequents are determinised (subset construction),
one register per reachable subset, so that "every thread of this attempt died" is a gate; attempts
in the same subset have the same future, so merging them is exact for `fail`.
`$past(e, k)` becomes a chain of k history registers starting at 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import product

from proceedings.rwopd import ir
from proceedings.rwopd.automata import NFA, compile_sequence, max_length
from proceedings.rwopd.frontend import Unsupported
from proceedings.rwopd.ir import FALSE, TRUE, Expr, land, lnot, lor

MAX_GUARD_ATOMS = 10
MAX_SUBSETS = 512


@dataclass
class Register:
    width: int
    init: int
    next: Expr = FALSE


@dataclass
class Circuit:
    """Registers and input signals shared by the monitors of both properties of a check."""

    registers: dict[str, Register] = field(default_factory=dict)
    signals: dict[str, int] = field(default_factory=dict)
    _history: dict[tuple[Expr, int], Expr] = field(default_factory=dict)

    def register(self, prefix: str, width: int = 1) -> Expr:
        name = f"{prefix}{len(self.registers)}"
        self.registers[name] = Register(width, 0)
        return Expr("reg", (), width, name)

    @property
    def history_depth(self) -> int:
        """The longest `$past` distance in the circuit (0 when there is none)."""
        return max((cycles for _, cycles in self._history), default=0)

    def drive(self, reg: Expr, next_value: Expr) -> None:
        self.registers[reg.value].next = next_value

    def lower(self, expr: Expr) -> Expr:
        """Replace every `$past` node by a history register; collect the signals it reads."""
        if expr.op == "sig":
            self.signals[expr.value] = expr.width
            return expr
        if expr.op == "past":
            inner = self.lower(expr.args[0])
            return self._past(inner, expr.value)
        if not expr.args:
            return expr
        args = tuple(self.lower(a) for a in expr.args)
        return expr if args == expr.args else Expr(expr.op, args, expr.width, expr.value, expr.signed)

    def _past(self, value: Expr, cycles: int) -> Expr:
        if cycles <= 0:
            return value
        key = (value, cycles)
        if key not in self._history:
            reg = self.register("hist", value.width)
            self.drive(reg, self._past(value, cycles - 1))
            self._history[key] = reg
        return self._history[key]


@dataclass
class Outputs:
    fail: Expr
    pending: Expr
    strong: bool  # has strong obligations (liveness part)
    lookahead: int | None  # longest finite obligation in ticks, None if unbounded


def add_monitor(circuit: Circuit, assertion: ir.Assertion, tag: str, jasper: bool = True) -> Outputs:
    """Compile `assertion` into `circuit`; `jasper` makes unbounded consequent ranges strong."""
    builder = _Builder(circuit, tag, assertion.disable)
    start = TRUE if assertion.disable is None else lnot(assertion.disable)
    prop = _strengthen(assertion.prop) if jasper else assertion.prop
    fail, pending = builder.prop(prop, start)
    if assertion.disable is not None:
        fail = land(lnot(assertion.disable), fail)
    for name in builder.owned:
        reg = circuit.registers[name]
        reg.next = circuit.lower(builder.gate(reg.next))
    return Outputs(circuit.lower(fail), circuit.lower(pending), builder.strong, builder.lookahead)


def _strengthen(prop: ir.Prop) -> ir.Prop:
    """JasperGold-compatible reading (FVEval pec.md): `##[m:$]` consequents act as strong."""
    if isinstance(prop, ir.PSeq):
        return ir.PSeq(prop.seq, prop.strong or max_length(compile_sequence(prop.seq, True)) is None)
    if isinstance(prop, ir.PImplies):
        return ir.PImplies(prop.ante, _strengthen(prop.cons), prop.overlapped)
    if isinstance(prop, ir.PAnd):
        return ir.PAnd(_strengthen(prop.left), _strengthen(prop.right))
    if isinstance(prop, ir.PIf):
        return ir.PIf(prop.cond, _strengthen(prop.then), prop.other and _strengthen(prop.other))
    if isinstance(prop, (ir.PAlways, ir.PNext)):
        return replace(prop, prop=_strengthen(prop.prop))
    return prop


class _Builder:
    def __init__(self, circuit: Circuit, tag: str, disable: Expr | None) -> None:
        self.circuit, self.tag, self.disable = circuit, tag, disable
        self.owned: list[str] = []
        self.strong = False
        self.lookahead: int | None = 0

    def reg(self, kind: str) -> Expr:
        reg = self.circuit.register(f"{self.tag}_{kind}")
        self.owned.append(reg.value)
        return reg

    def gate(self, next_value: Expr) -> Expr:
        """`disable iff` cancels every attempt in flight."""
        return next_value if self.disable is None else land(lnot(self.disable), next_value)

    def delay(self, signal: Expr, cycles: int) -> Expr:
        for _ in range(cycles):
            if signal == FALSE:
                return FALSE
            reg = self.reg("dly")
            self.circuit.drive(reg, signal)
            signal = reg
        return signal

    def horizon(self, extra: int | None) -> None:
        self.lookahead = None if self.lookahead is None or extra is None else max(self.lookahead, extra)

    # -- properties -------------------------------------------------------------------------
    def prop(self, prop: ir.Prop, start: Expr) -> tuple[Expr, Expr]:
        if isinstance(prop, ir.PSeq):
            return self.consequent(compile_sequence(prop.seq, in_consequent=True), start, prop.strong)
        if isinstance(prop, ir.PImplies):
            nfa = compile_sequence(prop.ante)
            self.horizon(max_length(nfa))
            match = self.matches(nfa, start)
            return self.prop(prop.cons, match if prop.overlapped else self.delay(match, 1))
        if isinstance(prop, ir.PNot):
            nfa = compile_sequence(prop.seq)
            self.horizon(max_length(nfa))
            return self.matches(nfa, start), FALSE
        if isinstance(prop, ir.PAnd):
            (f1, p1), (f2, p2) = self.prop(prop.left, start), self.prop(prop.right, start)
            return lor(f1, f2), lor(p1, p2)
        if isinstance(prop, ir.PIf):
            f1, p1 = self.prop(prop.then, land(start, prop.cond))
            if prop.other is None:
                return f1, p1
            f2, p2 = self.prop(prop.other, land(start, lnot(prop.cond)))
            return lor(f1, f2), lor(p1, p2)
        if isinstance(prop, ir.PNext):
            self.horizon(prop.cycles)
            return self.prop(prop.prop, self.delay(start, prop.cycles))
        if isinstance(prop, ir.PAlways):
            return self.prop(prop.prop, self.always(start, prop.lo, prop.hi))
        if isinstance(prop, ir.PUntil):
            return self.until(prop, start)
        raise Unsupported(f"property node {type(prop).__name__}")

    def always(self, start: Expr, lo: int, hi: int | None) -> Expr:
        if hi is not None:
            self.horizon(hi)
            chain, taps = start, []
            for k in range(hi + 1):
                if k >= lo:
                    taps.append(chain)
                chain = self.delay(chain, 1) if k < hi else chain
            return lor(*taps)
        first = self.delay(start, lo)
        latch = self.reg("alw")
        active = lor(first, latch)
        self.circuit.drive(latch, active)
        return active

    def until(self, prop: ir.PUntil, start: Expr) -> tuple[Expr, Expr]:
        """`hold until stop`: one register, exact, since all open attempts share one future."""
        carry = self.reg("unt")
        open_now = lor(start, carry)
        fail = land(open_now, lnot(prop.hold)) if prop.with_ else land(open_now, lnot(prop.stop), lnot(prop.hold))
        still_open = land(open_now, lnot(prop.stop))
        self.circuit.drive(carry, still_open)
        self.horizon(None)
        if prop.strong:
            self.strong = True
            return fail, still_open
        return fail, FALSE

    # -- sequences --------------------------------------------------------------------------
    def matches(self, nfa: NFA, start: Expr) -> Expr:
        """1 at each tick where some attempt begun at a `start` tick completes a (non-empty) match."""
        regs = {s: self.reg("ant") for s in range(nfa.states)}
        active = {s: lor(regs[s], start if s in nfa.initial else FALSE) for s in range(nfa.states)}
        incoming: dict[int, list[Expr]] = {}
        hits = []
        for u, g, v in nfa.edges:
            step = land(active[u], g)
            incoming.setdefault(v, []).append(step)
            if v in nfa.final:
                hits.append(step)
        for s, reg in regs.items():
            self.circuit.drive(reg, lor(*incoming.get(s, [])))
        return lor(*hits)

    def consequent(self, nfa: NFA, start: Expr, strong: bool) -> tuple[Expr, Expr]:
        """Determinised obligation tracking: fail when all threads of an attempt die unmatched."""
        if nfa.nullable:
            raise Unsupported("a sequence that admits an empty match used as a property")
        self.horizon(max_length(nfa))
        if strong:
            self.strong = True
        outgoing: dict[int, list[tuple[Expr, int]]] = {}
        for u, g, v in nfa.edges:
            outgoing.setdefault(u, []).append((g, v))
        initial = frozenset(nfa.initial)
        transitions: dict[frozenset, dict] = {}
        todo = [initial]
        while todo:
            subset = todo.pop()
            if subset in transitions:
                continue
            transitions[subset] = _step_outcomes(subset, outgoing, nfa.final)
            todo.extend(t for t in transitions[subset] if isinstance(t, frozenset) and t not in transitions)
            if len(transitions) > MAX_SUBSETS:
                raise Unsupported(f"consequent needs more than {MAX_SUBSETS} automaton states")
        targets = {t for outs in transitions.values() for t in outs if isinstance(t, frozenset)}
        regs = {t: self.reg("con") for t in sorted(targets, key=sorted)}

        def entering(subset: frozenset) -> Expr:
            return lor(regs.get(subset, FALSE), start if subset == initial else FALSE)

        fail = lor(*(land(entering(s), outs["fail"]) for s, outs in transitions.items() if "fail" in outs))
        incoming: dict[frozenset, list[Expr]] = {t: [] for t in targets}
        for subset, outs in transitions.items():
            for target, condition in outs.items():
                if isinstance(target, frozenset):
                    incoming[target].append(land(entering(subset), condition))
        nexts = []
        for target, reg in regs.items():
            value = lor(*incoming[target])
            self.circuit.drive(reg, value)
            nexts.append(value)
        return fail, (lor(*nexts) if strong else FALSE)


def _step_outcomes(subset: frozenset, outgoing, final) -> dict:
    """For each outcome of one tick from `subset` ('hit', 'fail' or the next subset): its condition."""
    edges = [(g, v) for u in sorted(subset) for g, v in outgoing.get(u, ())]
    atoms = list(dict.fromkeys(g for g, _ in edges if g != TRUE))
    if len(atoms) > MAX_GUARD_ATOMS:
        raise Unsupported(f"consequent step with more than {MAX_GUARD_ATOMS} distinct conditions")
    outcomes: dict[object, list[Expr]] = {}
    for values in product((False, True), repeat=len(atoms)):
        truth = dict(zip(atoms, values))
        enabled = frozenset(v for g, v in edges if g == TRUE or truth[g])
        outcome = "hit" if enabled & final else "fail" if not enabled else enabled
        literal = land(*(a if val else lnot(a) for a, val in truth.items()))
        outcomes.setdefault(outcome, []).append(literal)
    return {k: lor(*v) for k, v in outcomes.items()}


def merge_equivalent_registers(circuit: Circuit, outputs: list[Outputs]) -> list[Outputs]:
    """Merge registers that hold equal values in every reachable state (register correspondence).

    Partition refinement: start from classes of equal (width, initial value) and split a class when
    its members' next-state functions differ under the current classes. At the fixed point, equal
    initial values and equal next-state functions make class members equal at every tick (induction
    on time), so each class keeps one register. When A and B share a sub-property (a reference
    checked against a rewrite of itself), their monitors share registers and k-induction can close.
    """
    names = list(circuit.registers)
    classes = {n: (circuit.registers[n].width, circuit.registers[n].init) for n in names}
    while True:
        signature = {n: (classes[n], _rename(circuit.registers[n].next, classes)) for n in names}
        numbering: dict = {}
        refined = {n: numbering.setdefault(signature[n], len(numbering)) for n in names}
        stable = len(numbering) == len(set(classes.values()))
        classes = refined
        if stable:
            break
    keep: dict[int, str] = {}
    for n in names:
        keep.setdefault(classes[n], n)
    mapping = {n: Expr("reg", (), circuit.registers[n].width, keep[classes[n]]) for n in names}
    merged = {keep[c]: circuit.registers[keep[c]] for c in sorted(set(classes.values()))}
    for register in merged.values():
        register.next = _substitute(register.next, mapping)
    circuit.registers = merged
    return [Outputs(_substitute(o.fail, mapping), _substitute(o.pending, mapping), o.strong, o.lookahead)
            for o in outputs]


def _rename(expr: Expr, classes: dict) -> Expr:
    if expr.op == "reg":
        return Expr("reg", (), expr.width, ("class", classes[expr.value]))
    if not expr.args:
        return expr
    return Expr(expr.op, tuple(_rename(a, classes) for a in expr.args), expr.width, expr.value, expr.signed)


def _substitute(expr: Expr, mapping: dict[str, Expr]) -> Expr:
    if expr.op == "reg":
        return mapping[expr.value]
    if not expr.args:
        return expr
    return Expr(expr.op, tuple(_substitute(a, mapping) for a in expr.args), expr.width, expr.value, expr.signed)
