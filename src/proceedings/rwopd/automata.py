"""Sequences -> nondeterministic finite automata with Boolean-guarded edges (spec Stage C).

An `NFA` here has no epsilon edges: every edge consumes one clock tick and is taken when its guard
(an `Expr` over that tick's signals) holds. A match of length L >= 1 is a path of L edges from an
initial to a final state; `nullable` records whether the sequence also matches the empty word.
With this form every SVA sequence operator is a few lines (IEEE 1800-2017 §16.9):
`r ##1 s` links r's final edges to s's initial states, `r ##0 s` fuses r's last edge with s's first
(guard conjunction), `intersect` is the product, `[*]` a loop back to the initial states.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from proceedings.rwopd import ir
from proceedings.rwopd.frontend import Unsupported
from proceedings.rwopd.ir import TRUE, Expr, land, lnot, lor

MAX_STATES = 400  # beyond this a sequence is reported UNSUPPORTED (too large to compile)
MAX_GUARD_ATOMS = 10  # distinct edge conditions one determinisation step may enumerate


@dataclass(frozen=True)
class NFA:
    states: int
    initial: frozenset[int]
    final: frozenset[int]
    edges: tuple[tuple[int, Expr, int], ...]
    nullable: bool = False


EMPTY = NFA(0, frozenset(), frozenset(), (), nullable=True)


def boolean(cond: Expr) -> NFA:
    return NFA(2, frozenset({0}), frozenset({1}), ((0, cond, 1),))


def _shift(nfa: NFA, by: int) -> NFA:
    return NFA(nfa.states, frozenset(s + by for s in nfa.initial), frozenset(s + by for s in nfa.final),
               tuple((u + by, g, v + by) for u, g, v in nfa.edges), nfa.nullable)


def concat(first: NFA, second: NFA) -> NFA:
    """`first ##1 second`: second starts the tick after first ends (empty operands vanish)."""
    second = _shift(second, first.states)
    into_final = [(u, g) for u, g, v in first.edges if v in first.final]
    links = tuple((u, g, i) for (u, g) in into_final for i in second.initial)
    initial = first.initial | (second.initial if first.nullable else frozenset())
    final = second.final | (first.final if second.nullable else frozenset())
    return _trim(NFA(first.states + second.states, initial, final, first.edges + second.edges + links,
                     first.nullable and second.nullable))


def fuse(first: NFA, second: NFA) -> NFA:
    """`first ##0 second`: the last tick of first is the first tick of second (no empty match)."""
    second = _shift(second, first.states)
    last = [(u, g) for u, g, v in first.edges if v in first.final]
    start = [(h, w) for i, h, w in second.edges if i in second.initial]
    fused = tuple((u, land(g, h), w) for (u, g) in last for (h, w) in start)
    return _trim(NFA(first.states + second.states, first.initial, second.final,
                     first.edges + second.edges + fused, False))


def union(first: NFA, second: NFA) -> NFA:
    second = _shift(second, first.states)
    return NFA(first.states + second.states, first.initial | second.initial, first.final | second.final,
               first.edges + second.edges, first.nullable or second.nullable)


def star(nfa: NFA) -> NFA:
    """`nfa[*0:$]`."""
    loops = tuple((u, g, i) for u, g, v in nfa.edges if v in nfa.final for i in nfa.initial)
    return _trim(NFA(nfa.states, nfa.initial, nfa.final, nfa.edges + loops, True))


def repeat(nfa: NFA, lo: int, hi: int | None) -> NFA:
    """`nfa[*lo:hi]` (hi None is `$`)."""
    result = EMPTY
    for _ in range(lo):
        result = concat(result, nfa)
    if hi is None:
        return concat(result, star(nfa))
    optional = union(EMPTY, nfa)
    for _ in range(hi - lo):
        result = concat(result, optional)
    return result


def intersect(first: NFA, second: NFA) -> NFA:
    """Both match with the same start and end tick: the product automaton (reachable part)."""
    index: dict[tuple[int, int], int] = {}
    todo = [pair for pair in product(sorted(first.initial), sorted(second.initial))]
    for pair in todo:
        index.setdefault(pair, len(index))
    out1: dict[int, list] = {}
    out2: dict[int, list] = {}
    for u, g, v in first.edges:
        out1.setdefault(u, []).append((g, v))
    for u, g, v in second.edges:
        out2.setdefault(u, []).append((g, v))
    edges = []
    while todo:
        a, b = pair = todo.pop()
        for (g, v), (h, w) in product(out1.get(a, ()), out2.get(b, ())):
            target = (v, w)
            if target not in index:
                index[target] = len(index)
                todo.append(target)
                if len(index) > MAX_STATES:
                    raise Unsupported(f"sequence intersection larger than {MAX_STATES} states")
            edges.append((index[pair], land(g, h), index[target]))
    initial = frozenset(index[p] for p in product(first.initial, second.initial))
    final = frozenset(i for (a, b), i in index.items() if a in first.final and b in second.final)
    return _trim(NFA(len(index), initial, final, tuple(edges), first.nullable and second.nullable))


def _trim(nfa: NFA) -> NFA:
    """Drop states that are unreachable or cannot reach a final state; renumber densely."""
    forward, backward = {}, {}
    for u, g, v in nfa.edges:
        if g != ir.FALSE:
            forward.setdefault(u, set()).add(v)
            backward.setdefault(v, set()).add(u)
    reach = _closure(nfa.initial, forward)
    alive = _closure(nfa.final, backward)
    keep = sorted(reach & alive)
    if len(keep) > MAX_STATES:
        raise Unsupported(f"sequence automaton larger than {MAX_STATES} states")
    number = {s: i for i, s in enumerate(keep)}
    edges = tuple(dict.fromkeys((number[u], g, number[v]) for u, g, v in nfa.edges
                                if u in number and v in number and g != ir.FALSE))
    return NFA(len(keep), frozenset(number[s] for s in nfa.initial if s in number),
               frozenset(number[s] for s in nfa.final if s in number), edges, nfa.nullable)


def _closure(start, graph) -> set[int]:
    seen, todo = set(start), list(start)
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def compile_sequence(seq: ir.Seq) -> NFA:
    """The NFA of an IR sequence."""
    if isinstance(seq, ir.SBool):
        return boolean(seq.cond)
    if isinstance(seq, ir.SConcat):
        right = compile_sequence(seq.right)
        left = boolean(TRUE) if seq.left is None else compile_sequence(seq.left)
        return _delayed(left, right, seq.lo, seq.hi)
    if isinstance(seq, ir.SRepeat):
        return repeat(compile_sequence(seq.seq), seq.lo, seq.hi)
    if isinstance(seq, ir.SOr):
        return union(compile_sequence(seq.left), compile_sequence(seq.right))
    if isinstance(seq, ir.SIntersect):
        return intersect(compile_sequence(seq.left), compile_sequence(seq.right))
    if isinstance(seq, ir.SAnd):
        left, right = compile_sequence(seq.left), compile_sequence(seq.right)
        tail = star(boolean(TRUE))
        return union(intersect(concat(left, tail), right), intersect(left, concat(right, tail)))
    if isinstance(seq, ir.SFirstMatch):
        return first_match(compile_sequence(seq.seq))
    raise Unsupported(f"sequence node {type(seq).__name__}")


def step_outcomes(subset: frozenset, outgoing: dict, final: frozenset) -> dict:
    """One tick of the subset construction from `subset`: {'hit' | 'fail' | next subset: condition}.

    The conditions are disjoint minterms over the distinct edge guards leaving the subset.
    """
    edges = [(g, v) for u in sorted(subset) for g, v in outgoing.get(u, ())]
    atoms = list(dict.fromkeys(g for g, _ in edges if g != TRUE))
    if len(atoms) > MAX_GUARD_ATOMS:
        raise Unsupported(f"automaton step with more than {MAX_GUARD_ATOMS} distinct conditions")
    outcomes: dict[object, list[Expr]] = {}
    for values in product((False, True), repeat=len(atoms)):
        truth = dict(zip(atoms, values))
        enabled = frozenset(v for g, v in edges if g == TRUE or truth[g])
        outcome = "hit" if enabled & final else "fail" if not enabled else enabled
        literal = land(*(a if val else lnot(a) for a, val in truth.items()))
        outcomes.setdefault(outcome, []).append(literal)
    return {k: lor(*v) for k, v in outcomes.items()}


def outgoing_edges(nfa: NFA) -> dict[int, list[tuple[Expr, int]]]:
    outgoing: dict[int, list[tuple[Expr, int]]] = {}
    for u, g, v in nfa.edges:
        outgoing.setdefault(u, []).append((g, v))
    return outgoing


def first_match(nfa: NFA) -> NFA:
    """`first_match(r)` (IEEE 1800 §16.9.8): only the earliest end of each attempt survives.

    Determinise r (one state per set of live threads of one attempt) and stop at the first tick a
    thread reaches a final state: the `hit` outcome enters a final state with no way out. Attempts
    begun at different ticks are different paths, so the result is exact in any context.
    """
    if nfa.nullable:
        return EMPTY  # the empty match is the earliest; nothing non-empty survives
    outgoing, start = outgoing_edges(nfa), frozenset(nfa.initial)
    number: dict[frozenset, int] = {start: 0}  # subsets of live threads; the final state comes last
    edges, todo = [], [start]
    while todo:
        subset = todo.pop()
        for outcome, condition in step_outcomes(subset, outgoing, frozenset(nfa.final)).items():
            if outcome == "fail":
                continue
            if outcome != "hit" and outcome not in number:
                number[outcome] = len(number)
                todo.append(outcome)
                if len(number) > MAX_STATES:
                    raise Unsupported(f"first_match automaton larger than {MAX_STATES} states")
            edges.append((number[subset], condition, "hit" if outcome == "hit" else number[outcome]))
    done = len(number)
    edges = tuple((u, g, done if v == "hit" else v) for u, g, v in edges)
    return _trim(NFA(done + 1, frozenset({0}), frozenset({done}), edges))


def _delayed(left: NFA, right: NFA, lo: int, hi: int | None) -> NFA:
    """`left ##[lo:hi] right`, IEEE 1800 §16.9.2 (##0 is fusion; empty ##n s is ##(n-1) s)."""
    if lo >= 1:
        gap = repeat(boolean(TRUE), lo - 1, None if hi is None else hi - 1)
        return concat(concat(left, gap), right)
    fused = fuse(left, right)
    if hi == 0:
        return fused
    gap = repeat(boolean(TRUE), 0, None if hi is None else hi - 1)
    return union(fused, concat(concat(left, gap), right))


def max_length(nfa: NFA) -> int | None:
    """Longest match (ticks), or None when unbounded (a cycle on a live path)."""
    graph: dict[int, list[int]] = {}
    for u, _, v in nfa.edges:
        graph.setdefault(u, []).append(v)
    longest: dict[int, int] = {}
    visiting: set[int] = set()

    def depth(state: int) -> int | None:
        if state in longest:
            return longest[state]
        if state in visiting:
            return None
        visiting.add(state)
        best = 0
        for nxt in graph.get(state, ()):
            sub = depth(nxt)
            if sub is None:
                return None
            best = max(best, sub + 1)
        visiting.discard(state)
        longest[state] = best
        return best

    lengths = [depth(s) for s in nfa.initial]
    return None if any(x is None for x in lengths) else max(lengths, default=0)
