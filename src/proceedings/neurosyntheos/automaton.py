"""LTL -> transition-based generalised Büchi automaton (TGBA), by tableau expansion of obligation
sets (Couvreur 1999 / Gerth-Peled-Vardi-Wolper, the construction LTL2BA refines), and the explicit
questions asked of it: language emptiness of a product by SCCs, acceptance of a lasso.

A state is the set of NNF formulas still owed; an edge carries a cube over the propositions (the
letters it reads), the successor obligation set, and the acceptance marks: an edge is in the set of
an until u = a U b unless it postpones u. A run is accepting when it takes an edge of every set
infinitely often (no untils: every infinite run is accepting).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from proceedings.neurosyntheos.ltl import FALSE, TRUE, Formula, nnf, simplify


@dataclass(frozen=True)
class Edge:
    pos: frozenset[str]  # propositions that must be true
    neg: frozenset[str]  # propositions that must be false
    target: int
    marks: frozenset[int]  # acceptance sets this edge belongs to

    def admits(self, letter: frozenset[str] | set[str]) -> bool:
        return self.pos <= letter and not (self.neg & letter)


@dataclass
class TGBA:
    formula: Formula
    states: list[frozenset[Formula]]
    edges: list[list[Edge]]  # per state
    n_sets: int  # acceptance sets 0..n_sets-1
    initial: int = 0
    untils: list[Formula] = field(default_factory=list)

    @property
    def n_states(self) -> int:
        return len(self.states)

    def n_edges(self) -> int:
        return sum(map(len, self.edges))


Term = tuple[frozenset[str], frozenset[str], frozenset[Formula], frozenset[Formula]]  # pos, neg, next, postponed


def _join(a: Term, b: Term) -> Term | None:
    pos, negs = a[0] | b[0], a[1] | b[1]
    if pos & negs:
        return None
    return pos, negs, a[2] | b[2], a[3] | b[3]


def _product(xs: list[Term], ys: list[Term]) -> list[Term]:
    out = []
    for x in xs:
        for y in ys:
            joined = _join(x, y)
            if joined is not None:
                out.append(joined)
    return out


EMPTY: Term = (frozenset(), frozenset(), frozenset(), frozenset())


@lru_cache(maxsize=None)
def expand(f: Formula) -> tuple[Term, ...]:
    """The ways f can hold now: (literals now, obligations next, untils postponed)."""
    op = f.op
    if op == "true":
        return (EMPTY,)
    if op == "false":
        return ()
    if op == "ap":
        return ((frozenset({f.name}), frozenset(), frozenset(), frozenset()),)
    if op == "!":
        return ((frozenset(), frozenset({f.args[0].name}), frozenset(), frozenset()),)
    if op == "&":
        terms = [EMPTY]
        for a in f.args:
            terms = _product(terms, list(expand(a)))
        return tuple(dict.fromkeys(terms))
    if op == "|":
        return tuple(dict.fromkeys(t for a in f.args for t in expand(a)))
    if op == "X":
        return ((frozenset(), frozenset(), frozenset({f.args[0]}), frozenset()),)
    a, b = f.args
    if op == "U":  # a U b = b | (a & X(a U b)), postponing f
        later = (frozenset(), frozenset(), frozenset({f}), frozenset({f}))
        return tuple(dict.fromkeys(list(expand(b)) + _product(list(expand(a)), [later])))
    if op == "R":  # a R b = (a & b) | (b & X(a R b))
        later = (frozenset(), frozenset(), frozenset({f}), frozenset())
        both = _product(list(expand(a)), list(expand(b)))
        return tuple(dict.fromkeys(both + _product(list(expand(b)), [later])))
    raise ValueError(f"expand needs NNF, got {op!r}")


def _untils(f: Formula) -> list[Formula]:
    found = [f] if f.op == "U" else []
    for a in f.args:
        found += [u for u in _untils(a) if u not in found]
    return found


@lru_cache(maxsize=100_000)
def _normalise(obligations: frozenset[Formula]) -> frozenset[Formula]:
    """Canonical state: the conjunction simplified (so {a, a & b} and {a & b} coincide)."""
    if not obligations:
        return frozenset()
    merged = simplify(Formula("&", tuple(obligations)))
    if merged == TRUE:
        return frozenset()
    if merged == FALSE:
        return frozenset({FALSE})
    return frozenset(merged.args) if merged.op == "&" else frozenset({merged})


def translate(f: Formula, max_states: int = 5000) -> TGBA:
    """The TGBA of f (any LTL formula; negation normal form is taken here)."""
    g = nnf(f)
    untils = _untils(g)
    index = {u: k for k, u in enumerate(untils)}
    start = _normalise(frozenset({g}))
    states, edges, seen = [start], [], {start: 0}
    todo = 0
    while todo < len(states):
        state = states[todo]
        terms = [EMPTY]
        for obligation in sorted(state, key=str):
            terms = _product(terms, list(expand(obligation)))
        out: dict[tuple, Edge] = {}
        for pos, negs, nxt, postponed in terms:
            target = _normalise(nxt)
            if FALSE in target:
                continue
            if target not in seen:
                if len(states) >= max_states:
                    raise OverflowError(f"automaton exceeds {max_states} states")
                seen[target] = len(states)
                states.append(target)
            marks = frozenset(k for u, k in index.items() if u not in postponed)
            key = (pos, negs, seen[target])
            if key in out:  # same letters and target: keep the union of marks (more accepting)
                marks = marks | out[key].marks
            out[key] = Edge(pos, negs, seen[target], marks)
        edges.append(_prune(list(out.values())))
        todo += 1
    return TGBA(g, states, edges, len(untils), 0, untils)


def _prune(edges: list[Edge]) -> list[Edge]:
    """Drop an edge subsumed by another with the same target, a weaker guard and more marks."""
    kept = []
    for e in edges:
        if not any(o is not e and o.target == e.target and o.pos <= e.pos and o.neg <= e.neg
                   and o.marks >= e.marks and (o.pos, o.neg, o.marks) != (e.pos, e.neg, e.marks)
                   for o in edges):
            kept.append(e)
    return kept


# -- explicit emptiness ------------------------------------------------------------------------------

Node = Hashable


def accepting_cycle(initial: Node, successors: Callable[[Node], Iterable[tuple[Node, frozenset[int]]]],
                    n_sets: int, max_nodes: int = 2_000_000) -> bool:
    """Is there a reachable cycle whose edges together carry every acceptance mark 0..n_sets-1?

    Explicit product graph, Tarjan's SCCs (iterative); an SCC qualifies when it has an internal edge
    and the union of its internal edges' marks is complete.
    """
    graph: dict[Node, list[tuple[Node, frozenset[int]]]] = {}
    stack = [initial]
    while stack:  # explore
        node = stack.pop()
        if node in graph:
            continue
        graph[node] = list(successors(node))
        if len(graph) > max_nodes:
            raise OverflowError(f"product exceeds {max_nodes} nodes")
        stack.extend(t for t, _ in graph[node] if t not in graph)
    for scc in _sccs(graph, initial):
        members = set(scc)
        marks: set[int] = set()
        internal = False
        for node in scc:
            for target, m in graph[node]:
                if target in members:
                    internal = True
                    marks |= m
        if internal and len(marks) >= n_sets and marks >= set(range(n_sets)):
            return True
    return False


def _sccs(graph: dict, root: Node) -> list[list[Node]]:
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_stack: set[Node] = set()
    stack: list[Node] = []
    out: list[list[Node]] = []
    counter = 0
    work = [(root, 0)]
    while work:
        node, i = work.pop()
        if i == 0:
            index[node] = low[node] = counter
            counter += 1
            stack.append(node)
            on_stack.add(node)
        succ = graph[node]
        if i < len(succ):
            work.append((node, i + 1))
            target = succ[i][0]
            if target not in index:
                work.append((target, 0))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
            continue
        for target, _ in succ:
            if target in on_stack:
                low[node] = min(low[node], low[target])
        if low[node] == index[node]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == node:
                    break
            out.append(component)
    return out


def accepts_lasso(aut: TGBA, prefix: list[frozenset[str]], loop: list[frozenset[str]]) -> bool:
    """Does the automaton accept prefix·loop^ω? (product of the lasso with the automaton, emptiness)"""
    word = list(prefix) + list(loop)
    n = len(word)

    def successors(node):
        q, p = node
        nxt = p + 1 if p + 1 < n else len(prefix)
        return [((e.target, nxt), e.marks) for e in aut.edges[q] if e.admits(word[p])]

    return accepting_cycle((aut.initial, 0), successors, aut.n_sets)
