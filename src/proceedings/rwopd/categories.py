"""Temporal category and operator skeleton of a property, from its IR (spec §2.5).

`combinational`: no temporal operator; `bounded`: finite delays, repetitions or `$past`;
`unbounded`: any `$` range, strong obligation, eventually or until. The skeleton abstracts signals
and constants away, for the template-collapse metrics.
"""

from __future__ import annotations

import re

from proceedings.rwopd import ir


def categorise_reference(text: str, testbench: str | None = None, signals: dict | None = None) -> tuple[str, str]:
    """(category, '') for a legal property; ('', diagnostic) when slang rejects it."""
    from proceedings.rwopd.frontend import SvaSyntaxError, Unsupported, parse_assertion

    try:
        parsed = parse_assertion(text, signals=signals, testbench=testbench)
    except SvaSyntaxError as err:
        return "", str(err)
    except Unsupported:
        return category_of_text(text), ""
    return category_of(parsed.assertion.prop), ""


def category_of(prop) -> str:
    """The most temporal category any node of the IR tree belongs to."""
    found: set[str] = set()
    _collect(prop, found)
    return "unbounded" if "unbounded" in found else "bounded" if "bounded" in found else "combinational"


def _collect(node, found: set[str]) -> None:
    if isinstance(node, ir.Expr):
        if node.op == "past":
            found.add("bounded")
        for arg in node.args:
            _collect(arg, found)
        return
    if isinstance(node, ir.PUntil) or (isinstance(node, ir.PSeq) and node.strong):
        found.add("unbounded")
    if isinstance(node, (ir.SConcat, ir.SRepeat, ir.PAlways)):
        found.add("unbounded" if node.hi is None else "bounded")
    if isinstance(node, ir.PNext) or (isinstance(node, ir.PImplies) and not node.overlapped):
        found.add("bounded")
    for value in vars(node).values():
        if isinstance(value, (ir.Expr, tuple)) or hasattr(value, "__dataclass_fields__"):
            for item in value if isinstance(value, tuple) and not isinstance(value, ir.Expr) else (value,):
                if hasattr(item, "__dataclass_fields__"):
                    _collect(item, found)


def category_of_text(text: str) -> str:
    """Fallback for constructs the PEC does not compile: a regex over the text."""
    if re.search(r"\$\]|s_eventually|s_until|\buntil\b|strong|s_always|eventually", text):
        return "unbounded"
    if re.search(r"##|\|=>|\$past|\$rose|\$fell|\$stable|\$changed|\[\*|\[->|\[=", text):
        return "bounded"
    return "combinational"


def skeleton(text: str) -> str:
    """The operator skeleton: signal names -> S, numbers -> N, whitespace dropped."""
    from proceedings.rwopd.frontend import SV_KEYWORDS

    body = re.sub(r"(?<![$\w'])[A-Za-z_]\w*", lambda m: m.group(0) if m.group(0) in SV_KEYWORDS else "S", text)
    return re.sub(r"\s+", "", re.sub(r"\d+", "N", body))
