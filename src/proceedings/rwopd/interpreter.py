"""An independent reference interpreter: IEEE 1800 semantics evaluated directly on a lasso trace
(spec Stage E). It shares nothing with the monitors but the IR and the integer algebra, and serves
as the test oracle: for every generated property and trace, "the monitor reports a failure" must
equal "some attempt of the property is violated here".

Scope: properties without strong obligations and without `$` ranges in sequences (weak `until` is
in). Sequence matches are sets of end ticks (IEEE §16.9: `r ##[m:n] s` starts s m..n ticks after r
ends, `##0` overlaps, an empty match shifts the delay by one).
"""

from __future__ import annotations

from functools import lru_cache

from proceedings.rwopd import ir
from proceedings.rwopd.semantics import IntAlgebra, evaluate


UNBOUNDED_CAP = 32


class LassoInterpreter:
    """`steps[0..n-1]` with ticks `loop_start..n-1` repeating forever."""

    def __init__(self, steps: list[dict[str, int]], loop_start: int) -> None:
        self.steps, self.loop_start = steps, loop_start
        self.period = len(steps) - loop_start
        self.algebra = IntAlgebra()
        self.holds_at = lru_cache(maxsize=None)(self._holds_at)
        self.ends = lru_cache(maxsize=None)(self._ends)

    def at(self, tick: int) -> dict[str, int]:
        if tick < len(self.steps):
            return self.steps[tick]
        return self.steps[self.loop_start + (tick - self.loop_start) % self.period]

    def value(self, expr: ir.Expr, tick: int) -> int:
        if expr.op == "past":
            return 0 if tick - expr.value < 0 else self.value(expr.args[0], tick - expr.value)
        if expr.op == "sig":
            return self.at(tick)[expr.value]
        if expr.op == "const":
            return expr.value
        args = [self.value(a, tick) for a in expr.args]
        return self.algebra.apply(expr, args)

    # -- sequences: the set of end ticks of matches starting at `tick` (tick-1 = empty match) --
    def _ends(self, seq, tick: int) -> frozenset[int]:
        if isinstance(seq, ir.SBool):
            return frozenset({tick}) if self.value(seq.cond, tick) else frozenset()
        if isinstance(seq, ir.SConcat):
            left = seq.left if seq.left is not None else ir.SBool(ir.TRUE)  # `##n s` is `1 ##n s`
            out = set()
            for end in self.ends(left, tick):
                for gap in range(seq.lo, seq.hi + 1):
                    if gap == 0 and end < tick:
                        continue  # an empty match never fuses (##0)
                    out |= self.ends(seq.right, end + gap)
            return frozenset(out)
        if isinstance(seq, ir.SRepeat):
            reached, out = {tick - 1}, set()
            # `[*m:$]` only reaches the oracle inside `throughout`/`intersect` with a bounded partner,
            # so repetitions beyond UNBOUNDED_CAP ticks never matter there
            for count in range(UNBOUNDED_CAP if seq.hi is None else seq.hi + 1):
                if count >= seq.lo:
                    out |= reached
                reached = {e for r in reached for e in self.ends(seq.seq, r + 1)}
            return frozenset(out)
        if isinstance(seq, ir.SOr):
            return self.ends(seq.left, tick) | self.ends(seq.right, tick)
        if isinstance(seq, ir.SIntersect):
            return self.ends(seq.left, tick) & self.ends(seq.right, tick)
        if isinstance(seq, ir.SAnd):
            return frozenset(max(a, b) for a in self.ends(seq.left, tick) for b in self.ends(seq.right, tick))
        if isinstance(seq, ir.SFirstMatch):
            found = self.ends(seq.seq, tick)
            return frozenset({min(found)}) if found else frozenset()
        raise ValueError(f"interpreter does not cover {type(seq).__name__}")

    # -- properties ---------------------------------------------------------------------------
    def _holds_at(self, prop, tick: int) -> bool:
        if isinstance(prop, ir.PSeq):
            return any(end >= tick for end in self.ends(prop.seq, tick))
        if isinstance(prop, ir.PImplies):
            shift = 0 if prop.overlapped else 1
            return all(self.holds_at(prop.cons, end + shift) for end in self.ends(prop.ante, tick) if end >= tick)
        if isinstance(prop, ir.PNot):
            return not any(end >= tick for end in self.ends(prop.seq, tick))
        if isinstance(prop, ir.PAnd):
            return self.holds_at(prop.left, tick) and self.holds_at(prop.right, tick)
        if isinstance(prop, ir.PIf):
            if self.value(prop.cond, tick):
                return self.holds_at(prop.then, tick)
            return prop.other is None or self.holds_at(prop.other, tick)
        if isinstance(prop, ir.PNext):
            return self.holds_at(prop.prop, tick + prop.cycles)
        if isinstance(prop, ir.PAlways):
            return all(self.holds_at(prop.prop, tick + k) for k in range(prop.lo, prop.hi + 1))
        if isinstance(prop, ir.PUntil):
            for k in range(tick, tick + len(self.steps) + self.period + 1):  # after that the trace repeats
                if self.value(prop.stop, k):
                    return not prop.with_ or bool(self.value(prop.hold, k))
                if not self.value(prop.hold, k):
                    return False
            return True  # weak: the stop condition may never come
        raise ValueError(f"interpreter does not cover {type(prop).__name__}")

    def violated(self, prop, horizon: int) -> bool:
        """Is some attempt (one per tick) violated? Ticks beyond `horizon` repeat earlier ones."""
        return any(not self.holds_at(prop, tick) for tick in range(horizon))
