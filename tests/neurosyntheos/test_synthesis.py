"""Bounded synthesis with explicit certificates: minimal controller sizes, counter-strategies,
model checks that reject wrong machines, and agreement with brute-force enumeration of machines."""

import itertools
import random

from proceedings.neurosyntheos.bounded import Budget, Game, Mealy, Moore, mealy_satisfies, moore_refutes, synthesize
from proceedings.neurosyntheos.ltl import Formula, ap, neg

r, g = ap("r"), ap("g")


def G(a): return Formula("G", (a,))
def F(a): return Formula("F", (a,))
def X(a): return Formula("X", (a,))
def And(a, b): return Formula("&", (a, b))
def Implies(a, b): return Formula("->", (a, b))
def Iff(a, b): return Formula("<->", (a, b))


REQUEST_GRANT = And(G(Implies(r, F(g))), G(neg(And(g, X(g)))))


def test_request_grant_needs_two_states_and_the_controller_model_checks():
    game = Game(REQUEST_GRANT, ["r"], ["g"])
    out = synthesize(game, Budget(60), max_size=3)
    assert out.verdict == "REALIZABLE" and out.sys_bound == 1 and out.mealy.n_states == 2
    assert mealy_satisfies(game, out.mealy)


def test_predicting_the_next_input_is_unrealizable_with_a_checked_counter_strategy():
    game = Game(G(Iff(g, X(r))), ["r"], ["g"])
    out = synthesize(game, Budget(60), max_size=2)
    assert out.verdict == "UNREALIZABLE" and out.mealy is None
    assert moore_refutes(game, out.moore)


def test_the_model_checks_reject_a_wrong_controller_and_a_wrong_counter_strategy():
    game = Game(REQUEST_GRANT, ["r"], ["g"])
    never_grants = Mealy(["r"], ["g"], 1, {(0, (False,)): (False,), (0, (True,)): (False,)},
                         {(0, (False,)): 0, (0, (True,)): 0})
    always_grants = Mealy(["r"], ["g"], 1, {(0, (False,)): (True,), (0, (True,)): (True,)},
                          {(0, (False,)): 0, (0, (True,)): 0})
    assert not mealy_satisfies(game, never_grants) and not mealy_satisfies(game, always_grants)
    silent_env = Moore(["r"], ["g"], 1, {0: (False,)}, {(0, (False,)): 0, (0, (True,)): 0})
    assert not moore_refutes(game, silent_env)


def all_mealy(game, n):
    inputs = game.allowed_inputs()
    outputs = list(itertools.product((False, True), repeat=len(game.outputs)))
    keys = [(t, i) for t in range(n) for i in inputs]
    for choice in itertools.product(list(itertools.product(outputs, range(n))), repeat=len(keys)):
        yield Mealy(game.inputs, game.outputs, n, {k: c[0] for k, c in zip(keys, choice)},
                    {k: c[1] for k, c in zip(keys, choice)})


def all_moore(game, n):
    inputs = list(itertools.product((False, True), repeat=len(game.inputs)))
    outputs = list(itertools.product((False, True), repeat=len(game.outputs)))
    keys = [(s, o) for s in range(n) for o in outputs]
    for plays in itertools.product(inputs, repeat=n):
        for moves in itertools.product(range(n), repeat=len(keys)):
            yield Moore(game.inputs, game.outputs, n, dict(enumerate(plays)), dict(zip(keys, moves)))


def brute_force(game, max_size):
    """Enumerate every machine up to max_size: the explicit reference solver."""
    for n in range(1, max_size + 1):
        if any(mealy_satisfies(game, m) for m in all_mealy(game, n)):
            return "REALIZABLE"
        if any(moore_refutes(game, m) for m in all_moore(game, n)):
            return "UNREALIZABLE"
    return "UNKNOWN"


def random_spec(rng, budget):
    if budget <= 1:
        return rng.choice([r, g])
    op = rng.choice(["G", "F", "X", "!", "&", "|", "->", "U"])
    if op in ("G", "F", "X", "!"):
        return Formula(op, (random_spec(rng, budget - 1),))
    k = rng.randint(1, budget - 1)
    return Formula(op, (random_spec(rng, k), random_spec(rng, max(1, budget - 1 - k))))


def test_bounded_synthesis_agrees_with_brute_force_enumeration_on_30_small_specs():
    rng = random.Random(3)
    verdicts = []
    for _ in range(30):
        f = random_spec(rng, rng.randint(2, 5))
        game = Game(f, ["r"], ["g"])
        ours = synthesize(game, Budget(60), max_size=2).verdict
        assert ours == brute_force(game, 2), str(f)
        verdicts.append(ours)
    assert {"REALIZABLE", "UNREALIZABLE"} <= set(verdicts)
