"""The LTL -> TGBA translator accepts exactly the lassos that satisfy the formula, and agrees with
Debian lbt's automaton of the negation (empty products both ways)."""

import itertools
import random
import shutil
import subprocess

import pytest

from proceedings.neurosyntheos.automaton import TGBA, Edge, accepting_cycle, accepts_lasso, translate
from proceedings.neurosyntheos.ltl import Formula, ap, holds_on_lasso, neg, size

UNARY, BINARY = ("!", "X", "F", "G"), ("&", "|", "U", "R", "->", "W")


def random_formula(rng: random.Random, props, budget: int) -> Formula:
    if budget <= 2 or rng.random() < 0.2:
        return ap(rng.choice(props)) if rng.random() < 0.9 else Formula(rng.choice(["true", "false"]))
    if rng.random() < 0.4:
        return Formula(rng.choice(UNARY), (random_formula(rng, props, budget - 1),))
    k = rng.randint(1, budget - 2)
    return Formula(rng.choice(BINARY), (random_formula(rng, props, k), random_formula(rng, props, budget - 1 - k)))


def random_lasso(rng, letters):
    n = rng.randint(1, 6)
    loop_start = rng.randint(0, n - 1)
    word = [rng.choice(letters) for _ in range(n)]
    return word[:loop_start], word[loop_start:]


def test_the_automaton_accepts_exactly_the_lassos_that_satisfy_the_formula():
    rng = random.Random(23)
    props = ["p0", "p1", "p2", "p3"]
    letters = [frozenset(c) for r in range(5) for c in itertools.combinations(props, r)]
    checked = 0
    for _ in range(200):
        f = random_formula(rng, props, rng.randint(3, 12))
        assert size(f) <= 12
        aut = translate(f)
        for _ in range(6):
            prefix, loop = random_lasso(rng, letters)
            assert accepts_lasso(aut, prefix, loop) == holds_on_lasso(f, prefix, loop), (str(f), prefix, loop)
            checked += 1
    assert checked == 1200


def test_a_postponed_until_is_never_accepted_forever():
    aut = translate(Formula("F", (ap("p"),)))
    assert not accepts_lasso(aut, [], [frozenset()])
    assert accepts_lasso(aut, [frozenset()], [frozenset({"p"}), frozenset()])


# -- lbt cross-check ---------------------------------------------------------------------------------

LBT_OPS = {"&": "&", "|": "|", "U": "U", "R": "V", "X": "X", "F": "F", "G": "G", "!": "!", "->": "i", "<->": "e"}


def prefix_text(f: Formula) -> str:
    if f.op in ("true", "false"):
        return "t" if f.op == "true" else "f"
    if f.op == "ap":
        return f.name
    if f.op == "W":  # a W b = b R (a | b)
        a, b = f.args
        return f"V {prefix_text(b)} | {prefix_text(a)} {prefix_text(b)}"
    if len(f.args) == 1:
        return f"{LBT_OPS[f.op]} {prefix_text(f.args[0])}"
    out = prefix_text(f.args[-1])
    for a in reversed(f.args[:-1]):
        out = f"{LBT_OPS[f.op]} {prefix_text(a)} {out}"
    return out


def lbt_automaton(f: Formula) -> TGBA | None:
    """lbt's generalised Büchi automaton (state-based acceptance, moved onto outgoing edges); None when
    lbt crashes or times out (FACTS: 1-6 % segfault on random formulas)."""
    try:
        done = subprocess.run(["lbt"], input=prefix_text(f), capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        return None
    tokens = done.stdout.split()
    n_states, n_sets = int(tokens[0]), int(tokens[1])
    pos, ids, initial, raw = 2, {}, [], []
    for _ in range(n_states):
        sid, init = tokens[pos], tokens[pos + 1] == "1"
        pos += 2
        marks = []
        while tokens[pos] != "-1":
            marks.append(int(tokens[pos]))
            pos += 1
        pos += 1
        edges = []
        while tokens[pos] != "-1":
            target = tokens[pos]
            pos, guard = _read_guard(tokens, pos + 1)
            edges.append((target, guard))
        pos += 1
        ids[sid] = len(ids)
        if init:
            initial.append(sid)
        raw.append((sid, frozenset(marks), edges))
    # one fresh initial state with the initial states' edges (lbt may list several initial states)
    states = [frozenset()] * (len(raw) + 1)
    edges = [[] for _ in range(len(raw) + 1)]
    for sid, marks, out in raw:
        for target, (pos_, neg_) in out:
            e = Edge(pos_, neg_, ids[target] + 1, marks)
            edges[ids[sid] + 1].append(e)
            if sid in initial:
                edges[0].append(e)
    return TGBA(f, states, edges, n_sets, 0)


def _read_guard(tokens, pos):
    """Prefix propositional guards: only conjunctions of literals and t appear in lbt's output."""
    def read(p):
        t = tokens[p]
        if t == "t":
            return p + 1, (frozenset(), frozenset())
        if t == "!":
            p, (a, _) = read(p + 1)
            return p, (frozenset(), a)
        if t == "&":
            p, (a1, n1) = read(p + 1)
            p, (a2, n2) = read(p)
            return p, (a1 | a2, n1 | n2)
        return p + 1, (frozenset({t}), frozenset())
    return read(pos)


def product_nonempty(a: TGBA, b: TGBA) -> bool:
    def successors(node):
        qa, qb = node
        for ea in a.edges[qa]:
            for eb in b.edges[qb]:
                if not ((ea.pos | eb.pos) & (ea.neg | eb.neg)):
                    yield (ea.target, eb.target), frozenset(ea.marks | {a.n_sets + m for m in eb.marks})
    return accepting_cycle((a.initial, b.initial), successors, a.n_sets + b.n_sets)


@pytest.mark.skipif(shutil.which("lbt") is None, reason="lbt is not installed (make setup installs it)")
def test_products_with_lbts_automaton_of_the_negation_are_empty_both_ways():
    rng = random.Random(5)
    props = ["p0", "p1", "p2"]
    compared = 0
    while compared < 50:
        f = random_formula(rng, props, rng.randint(3, 8))
        ours, ours_neg = translate(f), translate(neg(f))
        theirs, theirs_neg = lbt_automaton(neg(f)), lbt_automaton(f)
        if theirs is None or theirs_neg is None:
            continue
        assert not product_nonempty(ours, theirs), str(f)
        assert not product_nonempty(ours_neg, theirs_neg), str(f)
        assert product_nonempty(ours, theirs_neg) == (not _empty(ours)), str(f)
        compared += 1


def _empty(aut: TGBA) -> bool:
    return not accepting_cycle(aut.initial, lambda q: ((e.target, e.marks) for e in aut.edges[q]), aut.n_sets)
