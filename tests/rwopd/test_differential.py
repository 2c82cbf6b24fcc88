"""Interpreter vs PEC (issue 15): the Annex F interpreter (`interpreter.py`) and the compiled
monitors / the equivalence decision agree on random properties over strong/weak sequences,
first_match, s_eventually, the until family and `$` ranges, on random lasso traces."""

import random

import pytest

pytest.importorskip("pyslang")
pytest.importorskip("z3")
from hypothesis import HealthCheck, assume, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from proceedings.rwopd.equivalence import Unroller  # noqa: E402
from proceedings.rwopd.frontend import SvaSyntaxError, Unsupported, parse_assertion  # noqa: E402
from proceedings.rwopd.interpreter import LassoInterpreter  # noqa: E402
from proceedings.rwopd.monitor import Circuit, add_monitor  # noqa: E402
from proceedings.rwopd.pec import Verdict, check_equivalence  # noqa: E402
from proceedings.rwopd.semantics import IntAlgebra  # noqa: E402

SIGNALS = {"a": 1, "b": 1, "c": 1}


def _bool(rng: random.Random) -> str:
    s, t = rng.choice("abc"), rng.choice("abc")
    return rng.choice([s, s, f"!{s}", f"({s} && {t})", f"({s} || {t})", f"$rose({s})", f"$past({s})"])


def _seq(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return _bool(rng)
    a, b = _seq(rng, depth - 1), _seq(rng, depth - 1)
    m = rng.randint(0, 2)
    return rng.choice([
        f"({a} ##{m} {b})", f"({a} ##[{m}:{m + rng.randint(0, 2)}] {b})", f"({a} ##[{m}:$] {b})",
        f"({a}[*{rng.randint(1, 2)}:{rng.randint(2, 3)}])", f"({a}[*{rng.randint(0, 1)}:$])",
        f"({_bool(rng)}[->{rng.randint(1, 2)}])", f"({_bool(rng)}[={rng.randint(1, 2)}] ##1 {b})",
        f"({a} or {b})", f"({a} intersect {b})", f"({a} and {b})", f"({_bool(rng)} throughout {b})",
        f"({a} within {b})", f"(##{rng.randint(1, 2)} {b})", f"first_match({a})", f"(first_match({a}) ##1 {b})"])


def _prop(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.25:
        return rng.choice([_seq(rng, 1), f"strong({_seq(rng, 1)})", f"s_eventually {_seq(rng, 1)}"])
    p, q = _prop(rng, depth - 1), _prop(rng, depth - 1)
    s = _seq(rng, 2)
    x, y = _bool(rng), _bool(rng)
    return rng.choice([f"({s} |-> {p})", f"({s} |=> {p})", f"(not strong({_seq(rng, 1)}))", f"({p} and {q})",
                       f"(if ({x}) {p} else {q})", f"(nexttime {p})", f"(always [0:{rng.randint(0, 2)}] {p})",
                       f"({x} until {y})", f"({x} s_until {y})", f"({x} until_with {y})", f"({x} s_until_with {y})",
                       f"(s_eventually {_seq(rng, 2)})", f"({s} |-> strong({_seq(rng, 2)}))"])


def _lasso(rng: random.Random) -> tuple[list[dict], int]:
    length = rng.randint(1, 5)
    steps = [{s: rng.randint(0, 1) for s in SIGNALS} for _ in range(length)]
    return steps, rng.randint(0, length - 1)


def _compiled(text: str):
    try:
        assertion = parse_assertion(text, signals=SIGNALS).assertion
        circuit = Circuit()
        return assertion, circuit, add_monitor(circuit, assertion, "P", jasper=False)
    except (Unsupported, SvaSyntaxError):  # e.g. slang refuses a property that admits an empty match
        return None


def monitor_holds(circuit, outputs, steps, loop_start) -> bool:
    """Run the monitor until (state, loop position) repeats: then the infinite lasso is decided."""
    trace = LassoInterpreter(steps, loop_start)
    run = Unroller(circuit, [outputs], IntAlgebra(), trace.at)
    state = {name: reg.init for name, reg in circuit.registers.items()}
    seen, pending = {}, []
    tick = 0
    while True:
        position = tick if tick < len(steps) else loop_start + (tick - loop_start) % trace.period
        key = (position, tuple(state.values())) if tick >= len(steps) else None
        if key in seen:
            return not outputs.strong or not all(pending[seen[key]:])
        if key is not None:
            seen[key] = tick
        ((fail, pend),), state = run.step(state, tick)
        if fail:
            return False
        pending.append(bool(pend))
        tick += 1


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(prop_seed=st.integers(0, 10**6), trace_seed=st.integers(0, 10**6))
def test_monitor_and_interpreter_agree_on_random_properties_and_lassos(prop_seed, trace_seed):
    text = _prop(random.Random(prop_seed), 2)
    compiled = _compiled(text)
    assume(compiled is not None)
    assertion, circuit, outputs = compiled
    steps, loop_start = _lasso(random.Random(trace_seed))
    expected = LassoInterpreter(steps, loop_start).holds(assertion)
    event(f"holds={expected} strong={outputs.strong}")
    assert monitor_holds(circuit, outputs, steps, loop_start) == expected, (text, steps, loop_start)


# Small edits that keep a property close to the original (often equivalent, sometimes subtly not):
# where a wrong EQUIVALENT would hide.
MUTATIONS = ((r"\|=> ", "|-> ##1 "), (r"strong\(", "("), (r"s_until", "until"), (r"s_eventually ", "##[0:$] "),
             (r"##1 ", "##[1:2] "), (r"first_match\(", "("), (r"\[\*0:\$\]", "[*1:$]"), (r"\|-> ", "|=> "))


def _mutated(text: str, rng: random.Random) -> str:
    import re

    usable = [(pattern, repl) for pattern, repl in MUTATIONS if re.search(pattern, text)]
    if not usable:
        return f"if (c) ({text}) else ({text})"
    pattern, repl = rng.choice(usable)
    return re.sub(pattern, repl, text, count=1)


def _interpreted(text: str, steps, loop_start) -> bool:
    steps = [{**dict.fromkeys(SIGNALS, 0), **step} for step in steps]  # a trace names only the signals read
    return LassoInterpreter(steps, loop_start).holds(parse_assertion(text, signals=SIGNALS).assertion)


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10**6))
def test_pec_verdicts_agree_with_the_interpreter(seed):
    rng = random.Random(seed)
    a = _prop(rng, 1)
    b = _mutated(a, rng) if rng.random() < 0.6 else _prop(rng, 1)
    result = check_equivalence(a, b, signals=SIGNALS, semantics="ieee", timeout_s=10)
    assume(result.verdict not in (Verdict.UNSUPPORTED, Verdict.TIMEOUT, Verdict.SYNTAX_ERROR))
    event(result.verdict.value)
    if result.counterexample:  # the separating lasso separates them in the interpreter too
        trace = result.counterexample
        holds_a = _interpreted(a, trace["steps"], trace["loop_start"])
        holds_b = _interpreted(b, trace["steps"], trace["loop_start"])
        assert (holds_a, holds_b) == ((True, False) if trace["separates"] == "A_not_B" else (False, True)), (a, b)
    one_way = {Verdict.EQUIVALENT: (True, True), Verdict.EQUIVALENT_BOUNDED: (True, True),
               Verdict.A_IMPLIES_B: (True, False), Verdict.B_IMPLIES_A: (False, True)}.get(result.verdict)
    if one_way is None or result.message.startswith("equal on every trace"):
        return
    for _ in range(10):  # no random lasso contradicts a direction the PEC says holds
        steps, loop_start = _lasso(rng)
        holds_a, holds_b = _interpreted(a, steps, loop_start), _interpreted(b, steps, loop_start)
        assert not (one_way[0] and holds_a and not holds_b), (a, b, steps, loop_start)
        assert not (one_way[1] and holds_b and not holds_a), (a, b, steps, loop_start)
