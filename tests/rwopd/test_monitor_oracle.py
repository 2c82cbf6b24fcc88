"""Monitors against the reference interpreter (spec Stage E): on random properties and random lasso
traces, the compiled monitor raises `fail` exactly when the IEEE semantics says an attempt fails."""

import random

import pytest

pytest.importorskip("pyslang")
from hypothesis import HealthCheck, assume, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from proceedings.rwopd.equivalence import Unroller  # noqa: E402
from proceedings.rwopd.frontend import Unsupported, parse_assertion  # noqa: E402
from proceedings.rwopd.interpreter import LassoInterpreter  # noqa: E402
from proceedings.rwopd.monitor import Circuit, add_monitor  # noqa: E402
from proceedings.rwopd.semantics import IntAlgebra  # noqa: E402

SIGNALS = {"a": 1, "b": 1, "c": 1}


def _bool(rng: random.Random) -> str:
    s, t = rng.choice("abc"), rng.choice("abc")
    return rng.choice([s, f"!{s}", f"({s} && {t})", f"({s} || {t})", f"$rose({s})", f"$past({s})", f"({s} ^ {t})"])


def _seq(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return _bool(rng)
    a, b = _seq(rng, depth - 1), _seq(rng, depth - 1)
    m = rng.randint(0, 2)
    return rng.choice([f"({a} ##{m} {b})", f"({a} ##[{m}:{m + rng.randint(0, 2)}] {b})",
                       f"({a}[*{rng.randint(1, 2)}:{rng.randint(2, 3)}])", f"({a} or {b})", f"({a} intersect {b})",
                       f"({a} and {b})", f"({_bool(rng)} throughout {b})", f"(##{rng.randint(1, 2)} {b})"])


def _prop(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.25:
        return _seq(rng, 1)
    p, q = _prop(rng, depth - 1), _prop(rng, depth - 1)
    s = _seq(rng, 2)
    return rng.choice([f"({s} |-> {p})", f"({s} |=> {p})", f"(not {_seq(rng, 1)})", f"({p} and {q})",
                       f"(if ({_bool(rng)}) {p} else {q})", f"(nexttime {p})", f"(always [0:{rng.randint(0, 2)}] {p})",
                       f"({_bool(rng)} until {_bool(rng)})", f"({_bool(rng)} until_with {_bool(rng)})"])


def _monitor_fails(assertion, steps, loop_start, ticks) -> bool:
    circuit = Circuit()
    outputs = add_monitor(circuit, assertion, "P", jasper=False)
    interp = LassoInterpreter(steps, loop_start)
    run = Unroller(circuit, [outputs], IntAlgebra(), interp.at)
    state = {name: reg.init for name, reg in circuit.registers.items()}
    for tick in range(ticks):
        ((fail, _),), state = run.step(state, tick)
        if fail:
            return True
    return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(prop_seed=st.integers(0, 10**6), trace_seed=st.integers(0, 10**6), length=st.integers(1, 6))
def test_monitor_fails_exactly_when_the_reference_interpreter_finds_a_violation(prop_seed, trace_seed, length):
    text = _prop(random.Random(prop_seed), 2)
    try:
        assertion = parse_assertion(text, signals=SIGNALS).assertion
        add_monitor(Circuit(), assertion, "P", jasper=False)
    except Unsupported:
        assume(False)
    rng = random.Random(trace_seed)
    steps = [{s: rng.randint(0, 1) for s in SIGNALS} for _ in range(length)]
    loop_start = rng.randint(0, length - 1)
    period = length - loop_start
    horizon = length + period + 6  # past depth <= 2 here, sequences span <= 20 ticks
    expected = LassoInterpreter(steps, loop_start).violated(assertion.prop, horizon)
    event(f"violated={expected}")
    assert _monitor_fails(assertion, steps, loop_start, horizon + 40) == expected, (text, steps, loop_start)
