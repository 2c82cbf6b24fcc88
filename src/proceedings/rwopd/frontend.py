"""SVA text -> IR through the slang front end (`pyslang`), spec Stage A and B.

The candidate is placed inside a wrapper module that declares its signals (or inside the task's own
testbench, before its last `endmodule`) and elaborated by slang. Any error diagnostic becomes a
`SvaSyntaxError` carrying slang's message and the line:column inside the candidate text; warnings
(width truncation, sign comparison) are kept and reported. The elaborated tree is then walked into
the IR of `ir.py`, using slang's own types, so SystemVerilog's context-determined widths and
implicit conversions are the ones slang computed. Every construct outside the documented subset
raises `Unsupported` naming it: the checker never guesses.

Abstraction (documented in the README): every net, variable and port other than the clock is a free
input at every cycle, parameters are their elaborated constants. Equivalence over free signals
implies equivalence under any testbench logic, so this can miss an EQUIVALENT but never invent one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proceedings.rwopd import ir
from proceedings.rwopd.ir import Expr, const, land, lnot, lor, past

CLOCK = "clk"
SV_KEYWORDS = frozenset(
    "assert property posedge negedge disable iff not and or intersect throughout within until "
    "s_until until_with s_until_with always s_always eventually s_eventually nexttime s_nexttime "
    "strong weak first_match if else implies case endcase default clk accept_on reject_on "
    "sync_accept_on sync_reject_on sequence endsequence".split()
)
_IDENT = re.compile(r"(?<![$\w'.])([A-Za-z_]\w*)\b")


class SvaSyntaxError(Exception):
    """slang rejected the text: `message` is its diagnostic with the position in the candidate."""


class Unsupported(Exception):
    """The text is legal SystemVerilog but uses a construct outside the PEC's subset (named)."""


@dataclass
class Parsed:
    assertion: ir.Assertion
    warnings: list[str]


def normalise_assertion(text: str) -> str:
    """The text as an `assert property (...)` statement (bodies are wrapped, statements kept)."""
    body = text.strip()
    if re.search(r"\bassert\s+property\b", body):
        return body if body.endswith(";") else body + ";"
    return f"assert property ({body.rstrip(';')});"


def infer_signals(*texts: str) -> dict[str, int]:
    """1-bit declarations for every identifier in the texts (the `check A B` convenience mode)."""
    names: dict[str, int] = {}
    for text in texts:
        stripped = re.sub(r"\d+'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+", " ", text)
        for name in _IDENT.findall(stripped):
            if name not in SV_KEYWORDS:
                names.setdefault(name, 1)
    return names


def wrapper_module(signals: dict[str, int]) -> str:
    """A module declaring `clk` and each signal as an input of the given width."""
    ports = [f"input logic {CLOCK}"] + [
        f"input logic {'' if width == 1 else f'[{width - 1}:0] '}{name}" for name, width in signals.items()
    ]
    return "module pec_top(\n  " + ",\n  ".join(ports) + "\n);\nendmodule\n"


def parse_assertion(text: str, signals: dict[str, int] | None = None, testbench: str | None = None) -> Parsed:
    """Parse, elaborate and lower one assertion; raises SvaSyntaxError / Unsupported."""
    from pyslang import ast, syntax

    statement = normalise_assertion(text)
    host = testbench if testbench is not None else wrapper_module(signals or infer_signals(text))
    cut = host.rfind("endmodule")
    if cut < 0:
        raise SvaSyntaxError("the testbench has no 'endmodule'; pass a complete SystemVerilog module")
    prefix = host[:cut] + f"\ndefault clocking pec_clk @(posedge {CLOCK}); endclocking\n"
    source = prefix + statement + "\n" + host[cut:]
    tree = syntax.SyntaxTree.fromText(source)
    compilation = ast.Compilation()
    compilation.addSyntaxTree(tree)
    errors, warnings = _diagnostics(tree, compilation, origin=len(prefix), statement=statement)
    if errors:
        raise SvaSyntaxError("; ".join(errors))
    found = []
    for instance in compilation.getRoot().topInstances:
        instance.body.visit(lambda o: (found.append(o) if isinstance(o, ast.ConcurrentAssertionStatement) else None) or True)
    # the candidate is the statement placed after `prefix`; the testbench may hold assertions of its own
    asserts = [s for s in found if s.sourceRange.start.offset >= len(prefix)]
    if len(asserts) != 1:
        raise Unsupported(f"expected exactly one concurrent assertion, found {len(asserts)}")
    lowering = _Lowering()
    assertion = lowering.top(asserts[0].propertySpec)
    return Parsed(ir.Assertion(assertion.prop, assertion.disable, tuple(sorted(lowering.signals.items()))), warnings)


def _diagnostics(tree, compilation, origin: int, statement: str) -> tuple[list[str], list[str]]:
    """Errors and warnings as 'line:col: message', positions relative to the candidate text."""
    import pyslang

    errors, warnings = [], []
    for diag in compilation.getAllDiagnostics():
        report = pyslang.DiagnosticEngine.reportAll(tree.sourceManager, [diag]).splitlines()[0]
        message = report.split(": ", 2)[-1] if report.count(": ") >= 2 else report
        offset = diag.location.offset - origin
        if 0 <= offset <= len(statement):
            line = statement.count("\n", 0, offset) + 1
            column = offset - (statement.rfind("\n", 0, offset) + 1) + 1
            where = f"{line}:{column}"
        else:
            where = f"testbench line {tree.sourceManager.getLineNumber(diag.location)}"
        (errors if diag.isError() else warnings).append(f"{where}: {message}")
    return errors, warnings


class _Lowering:
    """Walks slang's elaborated assertion tree into the IR; records the free signals it meets."""

    def __init__(self) -> None:
        self.signals: dict[str, int] = {}

    # -- top level --------------------------------------------------------------------------
    def top(self, node) -> ir.Assertion:
        from pyslang import ast

        if isinstance(node, ast.ClockingAssertionExpr):
            _require_modelled_clock(node.clocking)
            node = node.expr
        disable = None
        if isinstance(node, ast.DisableIffAssertionExpr):
            disable = self.truth(node.condition)
            node = node.expr
        return ir.Assertion(self.prop(node), disable)

    # -- properties -------------------------------------------------------------------------
    def prop(self, node) -> ir.Prop:
        lowered = self.any(node)
        return ir.PSeq(lowered) if _is_seq(lowered) else lowered

    def any(self, node):
        """A Seq or a Prop for any assertion expression."""
        from pyslang import ast

        if isinstance(node, ast.SimpleAssertionExpr):
            return self.simple(node)
        if isinstance(node, ast.SequenceConcatExpr):
            return self.concat(node)
        if isinstance(node, ast.SequenceWithMatchExpr):
            if node.matchItems:
                raise Unsupported("sequence match items (local variables)")
            return self.repeat(self.seq(node.expr), node.repetition)
        if isinstance(node, ast.BinaryAssertionExpr):
            return self.binary(node)
        if isinstance(node, ast.UnaryAssertionExpr):
            return self.unary(node)
        if isinstance(node, ast.StrongWeakAssertionExpr):
            return ir.PSeq(self.seq(node.expr), strong=node.strength.name == "Strong")
        if isinstance(node, ast.FirstMatchAssertionExpr):
            if node.matchItems:
                raise Unsupported("first_match with match items")
            return ir.SFirstMatch(self.seq(node.seq))
        if isinstance(node, ast.ConditionalAssertionExpr):
            other = None if node.elseExpr is None else self.prop(node.elseExpr)
            return ir.PIf(self.truth(node.condition), self.prop(node.ifExpr), other)
        names = {"ClockingAssertionExpr": "a clocking event inside a property (multi-clock)",
                 "DisableIffAssertionExpr": "a nested 'disable iff'",
                 "CaseAssertionExpr": "property 'case'", "AbortAssertionExpr": "accept_on/reject_on"}
        raise Unsupported(names.get(type(node).__name__, f"assertion expression {type(node).__name__}"))

    def seq(self, node) -> ir.Seq:
        lowered = self.any(node)
        if not _is_seq(lowered):
            raise Unsupported(f"a property ({type(lowered).__name__[1:]}) where a sequence is required")
        return lowered

    def simple(self, node):
        from pyslang import ast

        expr = node.expr
        if isinstance(expr, ast.AssertionInstanceExpression):
            base = self.any(expr.body)
        else:
            base = ir.SBool(self.truth(expr))
        return self.repeat(base, node.repetition) if node.repetition else base

    def repeat(self, base, repetition):
        if repetition is None:
            return base
        lo, hi = repetition.range.min, repetition.range.max
        kind = repetition.kind.name
        if kind == "Consecutive":
            return ir.SRepeat(_need_seq(base, "[*]"), lo, hi)
        if not isinstance(base, ir.SBool):
            raise Unsupported(f"{'goto [->]' if kind == 'GoTo' else 'non-consecutive [=]'} repetition of a sequence")
        quiet = ir.SRepeat(ir.SBool(lnot(base.cond)), 0, None)
        goto = ir.SRepeat(ir.SConcat(quiet, base, 1, 1), lo, hi)  # b[->n] = (!b[*0:$] ##1 b)[*n]
        return goto if kind == "GoTo" else ir.SConcat(goto, quiet, 1, 1)  # b[=n] = b[->n] ##1 !b[*0:$]

    def concat(self, node) -> ir.Seq:
        result = None
        for element in node.elements:
            part = self.seq(element.sequence)
            lo, hi = element.delay.min, element.delay.max
            if result is None and lo == 0 and hi == 0:
                result = part
            else:
                result = ir.SConcat(result, part, lo, hi)
        return result

    def binary(self, node):
        op = node.op.name
        left, right = self.any(node.left), self.any(node.right)
        both_seq = _is_seq(left) and _is_seq(right)
        if op in ("Intersect", "Throughout", "Within") or (op in ("And", "Or") and both_seq):
            left, right = _need_seq(left, op), _need_seq(right, op)
            if op == "Throughout":
                return ir.SIntersect(ir.SRepeat(left, 0, None), right)
            if op == "Within":
                return ir.SIntersect(_pad_within(left), right)
            return {"And": ir.SAnd, "Or": ir.SOr, "Intersect": ir.SIntersect}[op](left, right)
        if op == "And":
            return ir.PAnd(_as_prop(left), _as_prop(right))
        if op == "Or" and isinstance(left, ir.SBool):
            return ir.PImplies(ir.SBool(lnot(left.cond)), _as_prop(right))
        if op == "Or" and isinstance(right, ir.SBool):
            return ir.PImplies(ir.SBool(lnot(right.cond)), _as_prop(left))
        if op in ("OverlappedImplication", "NonOverlappedImplication"):
            return ir.PImplies(_need_seq(left, "implication antecedent"), _as_prop(right),
                               overlapped=op == "OverlappedImplication")
        if op == "Implies" and isinstance(left, ir.SBool):
            return ir.PImplies(left, _as_prop(right))
        if op == "Iff" and isinstance(left, ir.SBool) and isinstance(right, ir.SBool):
            return ir.SBool(Expr("eq", (left.cond, right.cond)))
        if op in ("Until", "SUntil", "UntilWith", "SUntilWith"):
            if not (isinstance(left, ir.SBool) and isinstance(right, ir.SBool)):
                raise Unsupported(f"'{_OP_TEXT[op]}' with non-Boolean operands")
            return ir.PUntil(left.cond, right.cond, strong=op.startswith("S"), with_="With" in op)
        raise Unsupported(f"property operator '{_OP_TEXT.get(op, op)}' on these operands")

    def unary(self, node):
        op = node.op.name
        inner = self.any(node.expr)
        lo, hi = (node.range.min, node.range.max) if node.range is not None else (None, None)
        if op == "Not":
            if isinstance(inner, ir.SBool):
                return ir.SBool(lnot(inner.cond))
            if isinstance(inner, ir.PSeq) and inner.strong:
                return ir.PNot(inner.seq)
            if _is_seq(inner) and _bounded(inner):
                return ir.PNot(inner)
            raise Unsupported("'not' of a property or of an unbounded weak sequence")
        if op in ("NextTime", "SNextTime"):
            return ir.PNext(_as_prop(inner), 1 if lo is None else lo)
        if op in ("Always", "SAlways"):
            return ir.PAlways(_as_prop(inner), 0 if lo is None else lo, None if lo is None else hi)
        if op in ("Eventually", "SEventually"):
            if not _is_seq(inner):
                raise Unsupported(f"'{_OP_TEXT[op]}' of a property (only sequences and Booleans)")
            if lo is None:
                return ir.PSeq(ir.SConcat(None, inner, 0, None), strong=True)
            return ir.PSeq(ir.SConcat(None, inner, lo, hi), strong=op == "SEventually")
        raise Unsupported(f"property operator '{op}'")

    # -- Boolean layer ----------------------------------------------------------------------
    def truth(self, node) -> Expr:
        """The expression's truth value (non-zero) as a 1-bit Expr."""
        value = self.expr(node)
        return value if value.width == 1 else Expr("ne", (value, const(0, value.width)))

    def expr(self, node) -> Expr:
        from pyslang import ast

        width, signed = _width(node), bool(node.type.isSigned)
        constant = node.constant is not None or isinstance(node, (ast.IntegerLiteral, ast.UnbasedUnsizedIntegerLiteral)) \
            or (isinstance(node, ast.NamedValueExpression) and node.symbol.kind.name == "Parameter")
        if constant:  # literals, parameters and constant sub-expressions
            return Expr("const", (), width, _constant(node), signed)
        if isinstance(node, ast.NamedValueExpression):
            return self.named(node, width, signed)
        if isinstance(node, ast.ConversionExpression):
            return _resize(self.expr(node.operand), width, signed)
        if isinstance(node, ast.BinaryExpression):
            return self.binary_expr(node, width, signed)
        if isinstance(node, ast.UnaryExpression):
            return self.unary_expr(node, width, signed)
        if isinstance(node, ast.CallExpression):
            return self.call(node, width, signed)
        if isinstance(node, ast.ElementSelectExpression):
            return self.element(node)
        if isinstance(node, ast.RangeSelectExpression):
            return self.part(node, width)
        if isinstance(node, ast.ConcatenationExpression):
            parts = tuple(self.expr(p) for p in node.operands if _width(p) > 0)
            return parts[0] if len(parts) == 1 else Expr("concat", parts, width)
        if isinstance(node, ast.ReplicationExpression):
            inner = self.expr(node.concat)
            count = _constant(node.count)
            return Expr("concat", (inner,) * count, width) if count > 1 else inner
        if isinstance(node, ast.ConditionalExpression):
            if len(node.conditions) != 1 or node.conditions[0].pattern is not None:
                raise Unsupported("conditional operator with pattern matching")
            cond = self.truth(node.conditions[0].expr)
            return Expr("ite", (cond, self.expr(node.left), self.expr(node.right)), width, None, signed)
        raise Unsupported(f"expression kind {node.kind.name}")

    def named(self, node, width: int, signed: bool) -> Expr:
        kind = node.symbol.kind.name
        if kind not in ("Net", "Variable", "Port"):
            raise Unsupported(f"reference to {kind.lower()} '{node.symbol.name}'")
        name = node.symbol.name
        if name == CLOCK:
            raise Unsupported(f"the clock '{CLOCK}' used as data")
        if not node.type.isIntegral:
            raise Unsupported(f"non-integral signal '{name}' ({node.type})")
        self.signals[name] = width
        return Expr("sig", (), width, name, signed)

    def binary_expr(self, node, width: int, signed: bool) -> Expr:
        op = node.op.name
        left, right = self.expr(node.left), self.expr(node.right)
        if op in _LOGICAL:
            return Expr(_LOGICAL[op], (_truth(left), _truth(right)))
        if op in _COMPARE:
            both_signed = bool(node.left.type.isSigned and node.right.type.isSigned)
            return Expr(_COMPARE[op], (left, right), 1, None, both_signed)
        if op in _ARITH:
            name = "ashr" if op == "ArithmeticShiftRight" and signed else _ARITH[op]
            return Expr(name, (left, right), width, None, signed)
        raise Unsupported(f"operator {op}")

    def unary_expr(self, node, width: int, signed: bool) -> Expr:
        op = node.op.name
        operand = self.expr(node.operand)
        if op == "Plus":
            return operand
        if op == "LogicalNot":
            return lnot(_truth(operand))
        if op in _UNARY:
            return Expr(_UNARY[op], (operand,), width, None, signed)
        raise Unsupported(f"operator {op} (side effects)")

    def call(self, node, width: int, signed: bool) -> Expr:
        name = node.subroutineName
        args = [a for a in node.arguments if a.kind.name != "EmptyArgument"]
        if name == "$past":
            if len(args) > 2:
                raise Unsupported("$past with a gating expression or clock")
            cycles = _constant(args[1]) if len(args) == 2 else 1
            return past(self.expr(args[0]), cycles)
        if name in ("$rose", "$fell", "$stable", "$changed") and len(args) == 1:
            now = self.expr(args[0])
            before = past(now, 1)
            if name in ("$stable", "$changed"):
                return Expr("eq" if name == "$stable" else "ne", (now, before))
            bit_now, bit_before = _lsb(now), _lsb(before)
            return land(bit_now, lnot(bit_before)) if name == "$rose" else land(lnot(bit_now), bit_before)
        if name in ("$onehot", "$onehot0", "$countones") and len(args) == 1:
            return Expr(name[1:], (self.expr(args[0]),), width)
        if name == "$isunknown":
            return const(0, width)
        raise Unsupported(f"system function {name}")

    def element(self, node) -> Expr:
        value = self.expr(node.value)
        declared = node.value.type
        if not declared.hasFixedRange or declared.isUnpackedArray:
            raise Unsupported("select from an unpacked array")
        rng = declared.fixedRange
        if node.selector.constant is not None:
            position = _position(rng, _constant(node.selector))
            return Expr("slice", (value,), _width(node), position)
        if not rng.isDescending or _width(node) != 1:
            raise Unsupported("dynamic select of an ascending range or a multi-bit element")
        index = _resize(self.expr(node.selector), value.width, False)
        shifted = Expr("shr", (value, Expr("sub", (index, const(rng.lower, value.width)), value.width)), value.width)
        return Expr("slice", (shifted,), 1, 0)

    def part(self, node, width: int) -> Expr:
        value = self.expr(node.value)
        declared, selected = node.value.type, node.type
        if not (declared.hasFixedRange and selected.hasFixedRange):
            raise Unsupported("part select with a non-constant base")
        rng, sub = declared.fixedRange, selected.fixedRange
        low = min(_position(rng, sub.left), _position(rng, sub.right))
        return Expr("slice", (value,), width, low)


def _require_modelled_clock(event) -> None:
    """The monitors sample at `posedge clk` only; any other clocking event is refused (issue 15)."""
    from pyslang import ast

    name = getattr(getattr(event, "expr", None), "symbol", None)
    if not (isinstance(event, ast.SignalEventControl) and event.edge.name == "PosEdge"
            and event.iffCondition is None and name is not None and name.name == CLOCK):
        raise Unsupported(f"clocking event other than @(posedge {CLOCK})")


def _pad_within(inner: ir.Seq) -> ir.Seq:
    """`1[*0:$] ##1 inner ##1 1[*0:$]` with empty-friendly concatenation (for `within`)."""
    anything = ir.SRepeat(ir.SBool(ir.TRUE), 0, None)
    return ir.SConcat(ir.SConcat(anything, inner, 1, 1), anything, 1, 1)


def _is_seq(node) -> bool:
    return isinstance(node, (ir.SBool, ir.SConcat, ir.SRepeat, ir.SOr, ir.SIntersect, ir.SAnd, ir.SFirstMatch))


def _need_seq(node, where: str) -> ir.Seq:
    if not _is_seq(node):
        raise Unsupported(f"a property where a sequence is required ({where})")
    return node


def _as_prop(node) -> ir.Prop:
    return ir.PSeq(node) if _is_seq(node) else node


def _bounded(seq) -> bool:
    """No `$` upper bound anywhere: weak and strong forms agree, `not` is well defined."""
    if isinstance(seq, ir.SBool):
        return True
    if isinstance(seq, ir.SConcat):
        return seq.hi is not None and (seq.left is None or _bounded(seq.left)) and _bounded(seq.right)
    if isinstance(seq, ir.SRepeat):
        return seq.hi is not None and _bounded(seq.seq)
    if isinstance(seq, ir.SFirstMatch):
        return _bounded(seq.seq)
    if isinstance(seq, ir.SIntersect):
        return _bounded(seq.left) or _bounded(seq.right)
    return _bounded(seq.left) and _bounded(seq.right)


def _truth(value: Expr) -> Expr:
    return value if value.width == 1 else Expr("ne", (value, const(0, value.width)))


def _lsb(value: Expr) -> Expr:
    return value if value.width == 1 else Expr("slice", (value,), 1, 0)


def _resize(value: Expr, width: int, signed: bool) -> Expr:
    if value.width == width:
        return value if value.signed == signed else Expr(value.op, value.args, value.width, value.value, signed)
    if value.width > width:
        return Expr("slice", (value,), width, 0, signed)
    return Expr("sext" if value.signed else "zext", (value,), width, None, signed)


def _width(node) -> int:
    width = node.type.bitWidth
    if not node.type.isIntegral and not node.type.isVoid:
        raise Unsupported(f"non-integral type {node.type}")
    return int(width)


def _constant(node) -> int:
    """The integer value of a constant expression, literal or parameter reference."""
    from pyslang import ast

    value = node.constant
    if value is None and isinstance(node, ast.IntegerLiteral):
        return _svint(node.value, node)
    if value is None and isinstance(node, ast.NamedValueExpression) and node.symbol.kind.name == "Parameter":
        value = node.symbol.value
    if value is None:
        raise Unsupported("a non-constant value where a constant is required")
    if value.hasUnknown():
        raise Unsupported("X/Z bits in a constant (the checker is two-state)")
    return int(value.convertToInt().value) & ((1 << max(1, _width(node))) - 1)


def _svint(number, node) -> int:
    from pyslang import LiteralBase

    if number.hasUnknown:
        raise Unsupported("X/Z bits in a literal (the checker is two-state)")
    return int(number.toString(LiteralBase.Hex, False), 16) & ((1 << max(1, _width(node))) - 1)


def _position(rng, index: int) -> int:
    """Bit position (0 = LSB) of declared index `index` within range `rng`."""
    position = index - rng.right if rng.isDescending else rng.right - index
    if not 0 <= position < rng.width:
        raise Unsupported(f"index {index} outside the declared range")
    return position


_LOGICAL = {"LogicalAnd": "land", "LogicalOr": "lor", "LogicalImplication": "limp", "LogicalEquivalence": "eq"}
_COMPARE = {"Equality": "eq", "CaseEquality": "eq", "Inequality": "ne", "CaseInequality": "ne",
            "LessThan": "lt", "LessThanEqual": "le", "GreaterThan": "gt", "GreaterThanEqual": "ge"}
_ARITH = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "Divide": "div", "Mod": "mod",
          "BinaryAnd": "and", "BinaryOr": "or", "BinaryXor": "xor", "BinaryXnor": "xnor",
          "LogicalShiftLeft": "shl", "ArithmeticShiftLeft": "shl", "LogicalShiftRight": "shr",
          "ArithmeticShiftRight": "shr"}
_UNARY = {"Minus": "neg", "BitwiseNot": "not", "BitwiseAnd": "redand", "BitwiseOr": "redor",
          "BitwiseXor": "redxor", "BitwiseNand": "rednand", "BitwiseNor": "rednor", "BitwiseXnor": "redxnor"}
_OP_TEXT = {"Until": "until", "SUntil": "s_until", "UntilWith": "until_with", "SUntilWith": "s_until_with",
            "Eventually": "eventually", "SEventually": "s_eventually", "Iff": "iff", "Implies": "implies",
            "OverlappedFollowedBy": "#-#", "NonOverlappedFollowedBy": "#=#", "Or": "or"}
