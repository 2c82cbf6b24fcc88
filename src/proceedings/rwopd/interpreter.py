"""An independent reference interpreter: the LRM's trace semantics evaluated on a lasso (spec Stage E).

IEEE 1800-2017 Annex F defines SVA on words: a sequence *tightly* matches a finite segment w[i..j]
(§F.3.3), a property holds on an infinite suffix (§F.3.4). This module evaluates those definitions
directly, sharing nothing with the automata and monitors but the IR and the integer algebra:
  - `ends(r, i)`: every j with w[i..j] |= r (j = i - 1 is the empty match), by structural recursion
    on r (`##`, `[*]`, `or`, `and`, `intersect`, `first_match`);
  - `strong(r)` holds at i iff some non-empty match exists; `weak(r)` holds iff for every finite
    prefix w[..k], the word w[..k] followed by T^w (T: the letter satisfying every Boolean)
    satisfies strong(r) (Annex F.3.4.1) -- checked at the largest prefix the horizon allows, since
    a longer prefix only makes it harder;
  - implication, `not`, `and`, `if`, `nexttime`, `always`, the until family: their Annex F clauses.
A lasso is infinite, so every search stops at a horizon: `HORIZON` ticks past the attempt's start,
beyond the loop's repetition for the Boolean layer. The differential test keeps its properties small
enough (fixed delays <= 3, short loops) that every earliest match it needs lies within it.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import count

from proceedings.rwopd import ir
from proceedings.rwopd.semantics import IntAlgebra, evaluate

HORIZON = 48  # ticks past an attempt's start searched for matches and obligations


class LassoInterpreter:
    """`steps[0..n-1]` with ticks `loop_start..n-1` repeating forever."""

    def __init__(self, steps: list[dict[str, int]], loop_start: int, history: int = 2) -> None:
        self.steps, self.loop_start = steps, loop_start
        self.period = len(steps) - loop_start
        self.settled = len(steps) + history  # from here on, values and $past values are periodic
        self.algebra = IntAlgebra()
        self.ends = lru_cache(maxsize=None)(self._ends)
        self.holds_at = lru_cache(maxsize=None)(self._holds_at)

    def at(self, tick: int) -> dict[str, int]:
        if tick < len(self.steps):
            return self.steps[tick]
        return self.steps[self.loop_start + (tick - self.loop_start) % self.period]

    def value(self, expr: ir.Expr, tick: int) -> int:
        def leaf(node):
            return self.at(tick)[node.value]

        return evaluate(self._unpast(expr, tick), leaf, self.algebra, {})

    def _unpast(self, expr: ir.Expr, tick: int) -> ir.Expr:
        """`$past(e, k)` at `tick`: e's value k ticks earlier (0 before the trace starts), as a constant."""
        if expr.op == "past":
            before = tick - expr.value
            return ir.const(0 if before < 0 else self.value(expr.args[0], before), expr.width)
        if not expr.args:
            return expr
        return ir.Expr(expr.op, tuple(self._unpast(a, tick) for a in expr.args), expr.width, expr.value, expr.signed)

    def boolean(self, cond: ir.Expr, tick: int, top: int | None) -> bool:
        """The Boolean at `tick`; from tick `top` on the word is T^w (every Boolean holds)."""
        return (top is not None and tick >= top) or bool(self.value(cond, tick))

    # -- sequences: tight satisfaction, the set of end ticks j of matches w[i..j] ------------------
    def _ends(self, seq, i: int, top: int | None, limit: int) -> frozenset[int]:
        if isinstance(seq, ir.SBool):
            return frozenset({i}) if i <= limit and self.boolean(seq.cond, i, top) else frozenset()
        if isinstance(seq, ir.SConcat):  # F.3.3: r ##n s; a leading `##n s` is `1 ##n s`
            left = ir.SBool(ir.TRUE) if seq.left is None else seq.left
            hi = limit if seq.hi is None else seq.hi
            out: set[int] = set()
            for j in self.ends(left, i, top, limit):
                for gap in range(seq.lo, hi + 1):
                    if gap == 0 and j < i:
                        continue  # (empty ##0 s) does not match; (empty ##n s) is ##(n-1) s
                    if j + gap <= limit:
                        out |= self.ends(seq.right, j + gap, top, limit)
            return frozenset(out)
        if isinstance(seq, ir.SRepeat):  # r[*m:n] = m..n consecutive matches of r (empty ones too)
            reached = frozenset({i - 1})
            for _ in range(seq.lo):
                reached = self._after(seq.seq, reached, top, limit)
            out, frontier = set(reached), reached
            for _ in (range(seq.hi - seq.lo) if seq.hi is not None else count()):
                frontier = self._after(seq.seq, frontier, top, limit) - out
                if not frontier:
                    break
                out |= frontier
            return frozenset(out)
        if isinstance(seq, ir.SOr):
            return self.ends(seq.left, i, top, limit) | self.ends(seq.right, i, top, limit)
        if isinstance(seq, ir.SIntersect):
            return self.ends(seq.left, i, top, limit) & self.ends(seq.right, i, top, limit)
        if isinstance(seq, ir.SAnd):  # both from i; the composite ends at the later end
            left, right = self.ends(seq.left, i, top, limit), self.ends(seq.right, i, top, limit)
            return frozenset(max(a, b) for a in left for b in right)
        if isinstance(seq, ir.SFirstMatch):
            found = self.ends(seq.seq, i, top, limit)
            return frozenset({min(found)}) if found else frozenset()
        raise ValueError(f"interpreter does not cover {type(seq).__name__}")

    def _after(self, seq, ends: frozenset[int], top: int | None, limit: int) -> frozenset[int]:
        """Ends of one more match of `seq` right after each of `ends`."""
        return frozenset(e for j in ends for e in self.ends(seq, j + 1, top, limit))

    def matches(self, seq, i: int) -> list[int]:
        """Non-empty match ends from i on the lasso itself, up to the horizon."""
        return sorted(j for j in self.ends(seq, i, None, i + HORIZON) if j >= i)

    def strong(self, seq, i: int, top: int | None = None) -> bool:
        limit = i + HORIZON if top is None else top + HORIZON
        return any(j >= i for j in self.ends(seq, i, top, limit))

    def weak(self, seq, i: int) -> bool:
        """Every finite prefix extends to a match: tested at the longest prefix within the horizon."""
        return self.strong(seq, i, top=i + HORIZON)

    # -- properties (Annex F.3.4) -----------------------------------------------------------------
    def _holds_at(self, prop, i: int) -> bool:
        if isinstance(prop, ir.PSeq):
            return self.strong(prop.seq, i) if prop.strong else self.weak(prop.seq, i)
        if isinstance(prop, ir.PImplies):
            shift = 0 if prop.overlapped else 1
            return all(self.holds_at(prop.cons, j + shift) for j in self.matches(prop.ante, i))
        if isinstance(prop, ir.PNot):  # `not strong(r)`: r never matches
            return not self.strong(prop.seq, i)
        if isinstance(prop, ir.PAnd):
            return self.holds_at(prop.left, i) and self.holds_at(prop.right, i)
        if isinstance(prop, ir.PIf):
            if self.value(prop.cond, i):
                return self.holds_at(prop.then, i)
            return prop.other is None or self.holds_at(prop.other, i)
        if isinstance(prop, ir.PNext):
            return self.holds_at(prop.prop, i + prop.cycles)
        if isinstance(prop, ir.PAlways):
            last = i + prop.hi if prop.hi is not None else max(i + prop.lo, self.settled) + self.period
            return all(self.holds_at(prop.prop, k) for k in range(i + prop.lo, last + 1))
        if isinstance(prop, ir.PUntil):
            return self.until(prop, i)
        raise ValueError(f"interpreter does not cover {type(prop).__name__}")

    def until(self, prop: ir.PUntil, i: int) -> bool:
        """p until q: q comes at some k and p holds before it (at k too for *_with); weak forms may
        wait forever. After the trace has settled and a full loop has passed, nothing new happens."""
        for k in range(i, max(i, self.settled) + self.period + 1):
            if self.value(prop.stop, k):
                return not prop.with_ or bool(self.value(prop.hold, k))
            if not self.value(prop.hold, k):
                return False
        return not prop.strong

    def holds(self, assertion: ir.Assertion) -> bool:
        """The concurrent assertion holds on the lasso: every attempt (one per tick) holds.

        Attempts after the trace has settled repeat those one loop earlier. `disable iff (d)`: an
        attempt during which d is true is disabled, i.e. counts as holding (F.3.4.2); the
        interpreter covers it for properties whose attempts end within the horizon.
        """
        if assertion.disable is not None:
            raise ValueError("the interpreter does not cover disable iff")
        return all(self.holds_at(assertion.prop, i) for i in range(self.settled + self.period))
