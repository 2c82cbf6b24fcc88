"""The intermediate representation the PEC compiles SVA into (spec Stage B).

Three layers, each a tree of frozen dataclasses so that equal sub-trees hash equal:
  - `Expr`: a two-state bit-vector expression over signals, sampled-value history and monitor
    registers (every node carries its elaborated width; booleans are width 1);
  - sequences (`SBool`, `SConcat`, `SRepeat`, `SOr`, `SIntersect`, `SAnd`, `SFirstMatch`);
  - properties (`PSeq`, `PImplies`, `PNot`, `PAnd`, `PIf`, `PAlways`, `PNext`, `PUntil`).
`Assertion` is the top: a property with an optional `disable iff` condition.
Constructs outside this subset never reach the IR: the front end raises `Unsupported`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Union

UNBOUNDED = None  # the `$` upper bound of a range


@dataclass(frozen=True)
class Expr:
    """A bit-vector expression node: `op` over `args`; `value` holds constants/indices/names."""

    op: str
    args: tuple["Expr", ...] = ()
    width: int = 1
    value: object = None
    signed: bool = False

    def __repr__(self) -> str:
        if self.op in ("sig", "reg"):
            return str(self.value)
        if self.op == "const":
            return f"{self.width}'d{self.value}"
        inner = ", ".join(map(repr, self.args))
        extra = "" if self.value is None else f"; {self.value}"
        return f"{self.op}({inner}{extra})"


def const(value: int, width: int = 1) -> Expr:
    return Expr("const", (), width, value & ((1 << width) - 1))


TRUE, FALSE = const(1), const(0)


def sig(name: str, width: int = 1) -> Expr:
    return Expr("sig", (), width, name)


def land(*terms: Expr) -> Expr:
    """Logical and with constant folding (keeps generated guards small)."""
    kept = [t for t in terms if t != TRUE]
    if any(t == FALSE for t in kept):
        return FALSE
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else Expr("land", tuple(kept))


def lor(*terms: Expr) -> Expr:
    kept = [t for t in terms if t != FALSE]
    if any(t == TRUE for t in kept):
        return TRUE
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else Expr("lor", tuple(kept))


def lnot(term: Expr) -> Expr:
    if term == TRUE:
        return FALSE
    if term == FALSE:
        return TRUE
    if term.op == "lnot":
        return term.args[0]
    return Expr("lnot", (term,))


def past(expr: Expr, cycles: int) -> Expr:
    """$past(expr, cycles): the sampled value `cycles` clock ticks ago (history starts at 0)."""
    return Expr("past", (expr,), expr.width, cycles, expr.signed)


# ---- sequences -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SBool:
    """One clock tick at which the Boolean `cond` holds."""

    cond: Expr


@dataclass(frozen=True)
class SConcat:
    """`left ##[lo:hi] right` (`hi` None is `$`); `left` None is a leading delay."""

    left: "Seq | None"
    right: "Seq"
    lo: int
    hi: int | None


@dataclass(frozen=True)
class SRepeat:
    """Consecutive repetition `seq[*lo:hi]` (goto/non-consecutive are rewritten into this)."""

    seq: "Seq"
    lo: int
    hi: int | None


@dataclass(frozen=True)
class SOr:
    left: "Seq"
    right: "Seq"


@dataclass(frozen=True)
class SIntersect:
    """Both match with the same start and end (`throughout`, `within`, `and` reduce to it)."""

    left: "Seq"
    right: "Seq"


@dataclass(frozen=True)
class SAnd:
    """Both match from the same start; the composite ends when the later one ends."""

    left: "Seq"
    right: "Seq"


@dataclass(frozen=True)
class SFirstMatch:
    seq: "Seq"


Seq = Union[SBool, SConcat, SRepeat, SOr, SIntersect, SAnd, SFirstMatch]

# ---- properties ------------------------------------------------------------------------------

@dataclass(frozen=True)
class PSeq:
    """A sequence used as a property: weak (default) or strong(...)."""

    seq: Seq
    strong: bool = False


@dataclass(frozen=True)
class PImplies:
    """`ante |-> cons` (overlapped) or `ante |=> cons`."""

    ante: Seq
    cons: "Prop"
    overlapped: bool = True


@dataclass(frozen=True)
class PNot:
    """`not seq`: the sequence never matches (only for sequences whose weak and strong forms agree)."""

    seq: Seq


@dataclass(frozen=True)
class PAnd:
    left: "Prop"
    right: "Prop"


@dataclass(frozen=True)
class PIf:
    cond: Expr
    then: "Prop"
    other: "Prop | None"


@dataclass(frozen=True)
class PAlways:
    """`always [lo:hi] prop` (plain `always` is lo=0, hi=$); s_always agrees on infinite traces."""

    prop: "Prop"
    lo: int = 0
    hi: int | None = UNBOUNDED


@dataclass(frozen=True)
class PNext:
    """`nexttime [n] prop`."""

    prop: "Prop"
    cycles: int = 1


@dataclass(frozen=True)
class PUntil:
    """`hold until stop` with Boolean operands; `strong` (s_until) and `with_` (until_with) flags."""

    hold: Expr
    stop: Expr
    strong: bool = False
    with_: bool = False


Prop = Union[PSeq, PImplies, PNot, PAnd, PIf, PAlways, PNext, PUntil]


@dataclass(frozen=True)
class Assertion:
    prop: Prop
    disable: Expr | None = None
    signals: tuple[tuple[str, int], ...] = field(default=(), compare=False)


def substitute_signals(node, values: dict[str, int]):
    """`node` (any IR tree) with each signal named in `values` replaced by that constant."""
    if isinstance(node, Expr):
        if node.op == "sig" and node.value in values:
            return const(values[node.value], node.width)
        args = tuple(substitute_signals(a, values) for a in node.args)
        return node if args == node.args else Expr(node.op, args, node.width, node.value, node.signed)
    if is_dataclass(node):
        changes = {f.name: substitute_signals(getattr(node, f.name), values) for f in fields(node)
                   if f.compare and (isinstance(getattr(node, f.name), Expr) or is_dataclass(getattr(node, f.name)))}
        return replace(node, **changes) if changes else node
    return node
