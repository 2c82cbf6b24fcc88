"""Properties -> synchronous monitor circuits (spec Stage C).

A `Circuit` is a set of registers (width, initial value, next-state `Expr`) over free input
signals. `add_monitor` compiles an assertion into it and returns its two outputs:
  - `fail`: some attempt of the property is violated at this tick (safety);
  - `pending`: the breakpoint set of open strong obligations is non-empty (liveness, decided per
    attempt: on a lasso some attempt stays open forever iff `pending` is high all loop long).
Every tick starts a new attempt (the assertion is checked at each clock).
Antecedents stay nondeterministic: one register per NFA state means "some thread is here", exact
because an implication fires for any match. Consequents are determinised (subset construction),
one register per reachable subset, so that "every thread of this attempt died" is a gate; attempts
in the same subset have the same future, so merging them is exact for `fail`.
`$past(e, k)` becomes a chain of k history registers starting at 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from proceedings.rwopd import ir
from proceedings.rwopd.automata import NFA, compile_sequence, max_length, outgoing_edges, step_outcomes
from proceedings.rwopd.frontend import Unsupported
from proceedings.rwopd.ir import FALSE, TRUE, Expr, land, lnot, lor

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
    pending: Expr  # the breakpoint set of open strong obligations is non-empty (see `_Obligation`)
    strong: bool  # has strong obligations (liveness part)
    lookahead: int | None  # ticks from an attempt's start to its last decided tick, None if unbounded


@dataclass
class _Obligation:
    """One register of the Miyano-Hayashi breakpoint set for strong obligations.

    Liveness is decided per attempt: A violates a strong obligation iff some attempt stays open
    forever. The breakpoint set holds the attempts open at the last breakpoint and follows them;
    when all of them are discharged (the set is empty) it reloads every attempt then open. Some
    attempt stays open forever iff, from some tick on, the set never empties again; on a lasso: iff
    `pending` is high at every tick of the loop. New attempts opening every tick never hide this,
    nor fake it (issue 15: a global "any attempt open" flag did both).
    """

    owe: Expr  # register: owed attempts are in this automaton state
    follow: Expr  # its next value while the set is non-empty: the owed attempts move on
    reload: Expr  # its next value at a breakpoint: every attempt open after this tick


def add_monitor(circuit: Circuit, assertion: ir.Assertion, tag: str, jasper: bool = True) -> Outputs:
    """Compile `assertion` into `circuit`; `jasper` makes unbounded consequent ranges strong."""
    builder = _Builder(circuit, tag, assertion.disable)
    start = TRUE if assertion.disable is None else lnot(assertion.disable)
    prop = _strengthen(assertion.prop) if jasper else assertion.prop
    fail = builder.prop(prop, start)
    pending = builder.close_obligations()
    if assertion.disable is not None:
        fail = land(lnot(assertion.disable), fail)
    for name in builder.owned:
        reg = circuit.registers[name]
        reg.next = circuit.lower(builder.gate(reg.next))
    return Outputs(circuit.lower(fail), circuit.lower(pending), bool(builder.obligations),
                   obligation_span(prop))


def obligation_span(prop: ir.Prop) -> int | None:
    """Ticks from an attempt's start to the last tick that can decide it; nested delays add up."""
    if isinstance(prop, (ir.PSeq, ir.PNot)):
        return max_length(compile_sequence(prop.seq))
    if isinstance(prop, ir.PImplies):
        return _add(max_length(compile_sequence(prop.ante)), 0 if prop.overlapped else 1,
                    obligation_span(prop.cons))
    if isinstance(prop, ir.PAnd):
        return _max(obligation_span(prop.left), obligation_span(prop.right))
    if isinstance(prop, ir.PIf):
        return _max(obligation_span(prop.then), 0 if prop.other is None else obligation_span(prop.other))
    if isinstance(prop, ir.PNext):
        return _add(prop.cycles, obligation_span(prop.prop))
    if isinstance(prop, ir.PAlways):
        return _add(prop.hi, obligation_span(prop.prop))
    return None  # until family: open until the stop condition comes


def _add(*parts: int | None) -> int | None:
    return None if any(p is None for p in parts) else sum(parts)


def _max(*parts: int | None) -> int | None:
    return None if any(p is None for p in parts) else max(parts)


def _strengthen(prop: ir.Prop) -> ir.Prop:
    """JasperGold-compatible reading (FVEval pec.md): `##[m:$]` consequents act as strong."""
    if isinstance(prop, ir.PSeq):
        return ir.PSeq(prop.seq, prop.strong or max_length(compile_sequence(prop.seq)) is None)
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
        self.obligations: list[_Obligation] = []

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

    def close_obligations(self) -> Expr:
        """Drive the breakpoint set (one shared set for all strong parts); `pending` = non-empty."""
        if not self.obligations:
            return FALSE
        pending = lor(*(o.owe for o in self.obligations))
        for o in self.obligations:
            self.circuit.drive(o.owe, lor(land(pending, o.follow), land(lnot(pending), o.reload)))
        return pending

    # -- properties: each returns the tick's `fail` ----------------------------------------------
    def prop(self, prop: ir.Prop, start: Expr) -> Expr:
        if isinstance(prop, ir.PSeq):
            return self.consequent(compile_sequence(prop.seq), start, prop.strong)
        if isinstance(prop, ir.PImplies):
            match = self.matches(compile_sequence(prop.ante), start)
            return self.prop(prop.cons, match if prop.overlapped else self.delay(match, 1))
        if isinstance(prop, ir.PNot):
            return self.matches(compile_sequence(prop.seq), start)
        if isinstance(prop, ir.PAnd):
            return lor(self.prop(prop.left, start), self.prop(prop.right, start))
        if isinstance(prop, ir.PIf):
            then = self.prop(prop.then, land(start, prop.cond))
            if prop.other is None:
                return then
            return lor(then, self.prop(prop.other, land(start, lnot(prop.cond))))
        if isinstance(prop, ir.PNext):
            return self.prop(prop.prop, self.delay(start, prop.cycles))
        if isinstance(prop, ir.PAlways):
            return self.prop(prop.prop, self.always(start, prop.lo, prop.hi))
        if isinstance(prop, ir.PUntil):
            return self.until(prop, start)
        raise Unsupported(f"property node {type(prop).__name__}")

    def always(self, start: Expr, lo: int, hi: int | None) -> Expr:
        if hi is not None:
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

    def until(self, prop: ir.PUntil, start: Expr) -> Expr:
        """`hold until stop`: one register, exact, since all open attempts share one future."""
        carry = self.reg("unt")
        open_now = lor(start, carry)
        fail = land(open_now, lnot(prop.hold)) if prop.with_ else land(open_now, lnot(prop.stop), lnot(prop.hold))
        still_open = land(open_now, lnot(prop.stop))
        self.circuit.drive(carry, still_open)
        if prop.strong:  # s_until: the stop condition must come
            owe = self.reg("owe")
            self.obligations.append(_Obligation(owe, land(owe, lnot(prop.stop)), still_open))
        return fail

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

    def consequent(self, nfa: NFA, start: Expr, strong: bool) -> Expr:
        """Determinised obligation tracking: fail when all threads of an attempt die unmatched.

        `strong` adds the attempts' liveness obligation (a match must come); for a bounded sequence
        it is implied by not failing (IEEE 1800 §16.12.2 on infinite traces), so only unbounded
        strong sequences get breakpoint registers.
        """
        if nfa.nullable:
            raise Unsupported("a sequence that admits an empty match used as a property")
        outgoing = outgoing_edges(nfa)
        initial = frozenset(nfa.initial)
        transitions: dict[frozenset, dict] = {}
        todo = [initial]
        while todo:
            subset = todo.pop()
            if subset in transitions:
                continue
            transitions[subset] = step_outcomes(subset, outgoing, nfa.final)
            todo.extend(t for t in transitions[subset] if isinstance(t, frozenset) and t not in transitions)
            if len(transitions) > MAX_SUBSETS:
                raise Unsupported(f"consequent needs more than {MAX_SUBSETS} automaton states")
        targets = sorted({t for outs in transitions.values() for t in outs if isinstance(t, frozenset)}, key=sorted)
        regs = {t: self.reg("con") for t in targets}

        def entering(subset: frozenset) -> Expr:
            return lor(regs.get(subset, FALSE), start if subset == initial else FALSE)

        fail = lor(*(land(entering(s), outs["fail"]) for s, outs in transitions.items() if "fail" in outs))
        nexts = {t: lor(*(land(entering(s), outs[t]) for s, outs in transitions.items() if t in outs))
                 for t in targets}
        for target, reg in regs.items():
            self.circuit.drive(reg, nexts[target])
        if strong and max_length(nfa) is None:
            owes = {t: self.reg("owe") for t in targets}
            for t in targets:
                follow = lor(*(land(owes[s], outs[t]) for s, outs in transitions.items() if t in outs and s in owes))
                self.obligations.append(_Obligation(owes[t], follow, nexts[t]))
        return fail


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


def cone_signals(circuit: Circuit, outputs: Outputs) -> frozenset[str]:
    """The input signals the monitor's outputs read, directly or through its registers."""
    signals: set[str] = set()
    seen: set[str] = set()
    todo = [outputs.fail, outputs.pending]
    while todo:
        expr = todo.pop()
        if expr.op == "sig":
            signals.add(expr.value)
        elif expr.op == "reg" and expr.value not in seen:
            seen.add(expr.value)
            todo.append(circuit.registers[expr.value].next)
        todo.extend(expr.args)
    return frozenset(signals)
