"""Two-state bit-vector meaning of an IR `Expr`, as z3 terms and as Python integers.

One evaluator walks the tree; an *algebra* supplies the operations. `Z3Algebra` builds solver terms
(the equivalence engine), `IntAlgebra` computes concrete values (counterexample replay and the
monitor simulator). Both follow IEEE 1800 two-state rules on the widths slang elaborated; division
by zero yields 0 in both (an X in four-state simulation, which formal inputs never produce).
"""

from __future__ import annotations

from typing import Callable

from proceedings.rwopd.ir import Expr


def evaluate(expr: Expr, leaf: Callable[[Expr], object], algebra, memo: dict | None = None):
    """The value of `expr`; `leaf` gives values of `sig` and `reg` nodes."""
    memo = {} if memo is None else memo
    stack = [expr]
    while stack:
        node = stack[-1]
        if node in memo:
            stack.pop()
            continue
        if node.op in ("sig", "reg"):
            memo[node] = leaf(node)
            stack.pop()
            continue
        pending = [a for a in node.args if a not in memo]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        memo[node] = algebra.apply(node, [memo[a] for a in node.args])
    return memo[expr]


def _mask(width: int) -> int:
    return (1 << width) - 1


def _signed_value(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


class IntAlgebra:
    """Concrete values: non-negative Python ints below 2**width."""

    def apply(self, node: Expr, args: list[int]) -> int:
        op, w = node.op, node.width
        if op == "const":
            return node.value
        if op == "past":
            raise ValueError("lower $past into history registers before evaluating")
        a = args[0] if args else 0
        aw = node.args[0].width if node.args else w
        if op in ("land", "lor", "limp", "lnot"):
            return {"land": lambda: int(all(args)), "lor": lambda: int(any(args)),
                    "limp": lambda: int(not args[0] or bool(args[1])), "lnot": lambda: int(not a)}[op]()
        if op in ("eq", "ne", "lt", "le", "gt", "ge"):
            x, y = args
            if node.signed:
                x, y = _signed_value(x, node.args[0].width), _signed_value(y, node.args[1].width)
            return int({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op])
        if op == "slice":
            return (a >> node.value) & _mask(w)
        if op == "zext":
            return a
        if op == "sext":
            return _signed_value(a, aw) & _mask(w)
        if op == "concat":
            out = 0
            for part, value in zip(node.args, args):
                out = (out << part.width) | value
            return out & _mask(w)
        if op == "ite":
            return args[1] if args[0] else args[2]
        if op.startswith("red"):
            kind = op[3:]
            base = {"and": "and", "nand": "and", "or": "or", "nor": "or", "xor": "xor", "xnor": "xor"}[kind]
            value = {"and": int(a == _mask(aw)), "or": int(a != 0), "xor": bin(a).count("1") & 1}[base]
            return value ^ int(kind != base)
        if op in ("onehot", "onehot0", "countones"):
            ones = bin(a).count("1")
            return {"onehot": int(ones == 1), "onehot0": int(ones <= 1), "countones": ones & _mask(w)}[op]
        if op in ("not", "neg"):
            return (~a if op == "not" else -a) & _mask(w)
        b = args[1]
        if op in ("shl", "shr", "ashr"):
            if b >= w:
                return _mask(w) if op == "ashr" and _signed_value(a, w) < 0 else 0
            return ((a << b) if op == "shl" else (_signed_value(a, w) >> b) if op == "ashr" else (a >> b)) & _mask(w)
        if op in ("div", "mod"):
            if b == 0:
                return 0
            if node.signed:
                x, y = _signed_value(a, w), _signed_value(b, w)
                q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
                return (q if op == "div" else x - q * y) & _mask(w)
            return (a // b if op == "div" else a % b) & _mask(w)
        table = {"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
                 "xnor": ~(a ^ b)}
        return table[op] & _mask(w)


class Z3Algebra:
    """z3 bit-vector terms; Booleans are 1-bit vectors."""

    def __init__(self) -> None:
        import z3

        self.z3 = z3
        self.one, self.zero = z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)

    def bit(self, condition):
        return self.z3.If(condition, self.one, self.zero)

    def fit(self, term, width: int, signed: bool):
        z3, have = self.z3, term.size()
        if have == width:
            return term
        if have > width:
            return z3.Extract(width - 1, 0, term)
        return (z3.SignExt if signed else z3.ZeroExt)(width - have, term)

    def apply(self, node: Expr, args: list):
        z3, op, w = self.z3, node.op, node.width
        if op == "const":
            return z3.BitVecVal(node.value, w)
        if op == "past":
            raise ValueError("lower $past into history registers before evaluating")
        if op == "land":
            return self.bit(z3.And([a == 1 for a in args]))
        if op == "lor":
            return self.bit(z3.Or([a == 1 for a in args]))
        if op == "lnot":
            return self.bit(args[0] == 0)
        if op == "limp":
            return self.bit(z3.Or(args[0] == 0, args[1] == 1))
        if op in ("eq", "ne", "lt", "le", "gt", "ge"):
            width = max(a.size() for a in args)
            x, y = (self.fit(a, width, node.signed) for a in args)
            if op in ("eq", "ne"):
                return self.bit(x == y if op == "eq" else x != y)
            table = ({"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y} if node.signed else
                     {"lt": z3.ULT(x, y), "le": z3.ULE(x, y), "gt": z3.UGT(x, y), "ge": z3.UGE(x, y)})
            return self.bit(table[op])
        a = args[0] if args else None
        if op == "slice":
            return z3.Extract(node.value + w - 1, node.value, a)
        if op in ("zext", "sext"):
            return self.fit(a, w, op == "sext")
        if op == "concat":
            return z3.Concat(*args) if len(args) > 1 else args[0]
        if op == "ite":
            return z3.If(args[0] == 1, self.fit(args[1], w, node.signed), self.fit(args[2], w, node.signed))
        if op.startswith("red"):
            kind = op[3:]
            if kind in ("and", "nand"):
                value = a == z3.BitVecVal(-1, a.size())
            elif kind in ("or", "nor"):
                value = a != 0
            else:
                value = z3.Extract(0, 0, self._popcount(a, a.size())) == 1
            return self.bit(z3.Not(value) if kind in ("nand", "nor", "xnor") else value)
        if op in ("onehot", "onehot0", "countones"):
            ones = self._popcount(a, max(w, a.size().bit_length() + 1))
            if op == "countones":
                return self.fit(ones, w, False)
            return self.bit(ones == 1 if op == "onehot" else z3.ULE(ones, 1))
        if op == "not":
            return ~self.fit(a, w, node.signed)
        if op == "neg":
            return -self.fit(a, w, node.signed)
        x = self.fit(a, w, node.signed)
        if op in ("shl", "shr", "ashr"):
            span = max(args[1].size(), w)
            wide, amount = self.fit(a, span, op == "ashr"), self.fit(args[1], span, False)
            shifted = {"shl": lambda: wide << amount, "shr": lambda: z3.LShR(wide, amount),
                       "ashr": lambda: wide >> amount}[op]()
            return z3.Extract(w - 1, 0, shifted)
        y = self.fit(args[1], w, node.signed)
        if op in ("div", "mod"):
            quotient = (x / y if op == "div" else z3.SRem(x, y)) if node.signed else (
                z3.UDiv(x, y) if op == "div" else z3.URem(x, y))
            return z3.If(y == 0, z3.BitVecVal(0, w), quotient)
        table = {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "and": lambda: x & y,
                 "or": lambda: x | y, "xor": lambda: x ^ y, "xnor": lambda: ~(x ^ y)}
        return table[op]()

    def _popcount(self, term, width: int):
        z3 = self.z3
        return z3.Sum([z3.ZeroExt(width - 1, z3.Extract(i, i, term)) for i in range(term.size())])
