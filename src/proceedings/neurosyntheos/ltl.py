"""LTL formulas over Boolean propositions: the AST, negation normal form, simplification, and the
direct semantics on lassos u·v^ω that the translator is tested against.

After `nnf`, negation sits only on propositions and the temporal core is X, U (until) and R
(release): F a = true U a, G a = false R a, a W b = b R (a | b).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

BOOLEAN = ("&", "|")


@dataclass(frozen=True, eq=False)
class Formula:
    op: str  # "true" "false" "ap" "!" "&" "|" "X" "U" "R" (and "->" "<->" "F" "G" "W" before nnf)
    args: tuple["Formula", ...] = ()
    name: str = ""  # the proposition, for op == "ap"

    def __post_init__(self) -> None:  # the text is the identity: computed once, hashed once
        if self.op in ("true", "false"):
            text = self.op
        elif self.op == "ap":
            text = self.name
        elif len(self.args) == 1:
            text = f"{self.op}({self.args[0]})"
        else:
            text = "(" + f" {self.op} ".join(map(str, self.args)) + ")"
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_hash", hash(text))

    def __str__(self) -> str:
        return self._text

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Formula) and self._hash == other._hash and self._text == other._text


TRUE, FALSE = Formula("true"), Formula("false")


def ap(name: str) -> Formula:
    return Formula("ap", name=name)


def neg(a: Formula) -> Formula:
    return Formula("!", (a,))


def conj(*args: Formula) -> Formula:
    return simplify(Formula("&", tuple(args))) if args else TRUE


def disj(*args: Formula) -> Formula:
    return simplify(Formula("|", tuple(args))) if args else FALSE


def globally(a: Formula) -> Formula:
    return Formula("G", (a,))


def propositions(f: Formula) -> set[str]:
    if f.op == "ap":
        return {f.name}
    return set().union(*(propositions(a) for a in f.args)) if f.args else set()


def size(f: Formula) -> int:
    return 1 + sum(size(a) for a in f.args)


@lru_cache(maxsize=None)
def nnf(f: Formula, negated: bool = False) -> Formula:
    """Negation normal form over true/false/ap/!ap/&/|/X/U/R, with `simplify` applied."""
    op, args = f.op, f.args
    if op in ("true", "false"):
        return (FALSE if op == "true" else TRUE) if negated else f
    if op == "ap":
        return Formula("!", (f,)) if negated else f
    if op == "!":
        return nnf(args[0], not negated)
    if op == "->":
        return nnf(Formula("|", (neg(args[0]), args[1])), negated)
    if op == "<->":
        a, b = args
        return nnf(Formula("|", (Formula("&", (a, b)), Formula("&", (neg(a), neg(b))))), negated)
    if op == "F":
        return nnf(Formula("U", (TRUE, args[0])), negated)
    if op == "G":
        return nnf(Formula("R", (FALSE, args[0])), negated)
    if op == "W":
        a, b = args
        return nnf(Formula("R", (b, Formula("|", (a, b)))), negated)
    if op in BOOLEAN:
        dual = {"&": "|", "|": "&"}[op] if negated else op
        return simplify(Formula(dual, tuple(nnf(a, negated) for a in args)))
    if op == "X":
        return Formula("X", (nnf(args[0], negated),))
    if op in ("U", "R"):
        dual = {"U": "R", "R": "U"}[op] if negated else op
        return simplify(Formula(dual, (nnf(args[0], negated), nnf(args[1], negated))))
    raise ValueError(f"unknown LTL operator {op!r}")


def simplify(f: Formula) -> Formula:
    """Flatten &/|, drop units, absorb zeros and complementary literals, order operands canonically
    (so equal obligations become equal automaton states); U/R with constant operands collapse."""
    if f.op in BOOLEAN:
        unit, zero = (TRUE, FALSE) if f.op == "&" else (FALSE, TRUE)
        flat: set[Formula] = set()
        for a in f.args:
            flat.update(a.args if a.op == f.op else (a,))
        flat.discard(unit)
        if zero in flat or any(a.op == "!" and a.args[0] in flat for a in flat):
            return zero
        if not flat:
            return unit
        if len(flat) == 1:
            return next(iter(flat))
        return Formula(f.op, tuple(sorted(flat, key=str)))
    if f.op == "U" and f.args[1] in (TRUE, FALSE):
        return f.args[1]
    if f.op == "R" and f.args[1] in (TRUE, FALSE):
        return f.args[1]
    return f


# -- direct semantics on lassos ---------------------------------------------------------------------

def holds_on_lasso(f: Formula, prefix: list[frozenset[str]], loop: list[frozenset[str]]) -> bool:
    """φ on the infinite word prefix·loop^ω (each letter = the set of true propositions), computed by
    fixpoints over the len(prefix)+len(loop) positions of the lasso (U least, R greatest)."""
    word = list(prefix) + list(loop)
    n = len(word)
    succ = [p + 1 if p + 1 < n else len(prefix) for p in range(n)]

    def values(g: Formula) -> list[bool]:
        op = g.op
        if op == "true":
            return [True] * n
        if op == "false":
            return [False] * n
        if op == "ap":
            return [g.name in letter for letter in word]
        if op == "!":
            return [not v for v in values(g.args[0])]
        if op in BOOLEAN:
            columns = [values(a) for a in g.args]
            combine = all if op == "&" else any
            return [combine(col[p] for col in columns) for p in range(n)]
        if op in ("->", "<->", "F", "G", "W"):
            return values(nnf(g))
        if op == "X":
            inner = values(g.args[0])
            return [inner[succ[p]] for p in range(n)]
        a, b = values(g.args[0]), values(g.args[1])
        if op == "U":
            val = [False] * n
            for _ in range(n + 1):
                val = [b[p] or (a[p] and val[succ[p]]) for p in range(n)]
            return val
        if op == "R":
            val = [True] * n
            for _ in range(n + 1):
                val = [b[p] and (a[p] or val[succ[p]]) for p in range(n)]
            return val
        raise ValueError(f"unknown LTL operator {op!r}")

    return values(f)[0]
