"""LTL-modulo-theories specifications in the Syntheos YAML format, and their Booleanisation.

```yaml
property: "G([e>=0] -> [x>e]) & GF[x==3]"
variables:
  - {name: x, type: Int, owner: system}
  - {name: e, type: Int, owner: environment}
```

Temporal operators `G F X U R W`, Boolean `! & | -> <->`, `true`/`false`; atoms are z3 literals in
`[...]` (Int/Real arithmetic, `+ - *` by constants, comparisons, `y(v)` = v one step ago) or Bool
variables by name. Booleanisation (CEGRES step 1, paper §2): every distinct literal becomes a
proposition l_i, numbered in order of first appearance (so template-equivalent specs align
position by position); a literal that mentions a system variable now is an output, the others are
inputs. `y(v)` reads the fetch variable `y_v`, which is universally quantified in every check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.neurosyntheos.ltl import FALSE, TRUE, Formula, ap

SORTS = ("Int", "Real", "Bool")
OWNERS = {"system": "system", "sys": "system", "environment": "environment", "env": "environment"}
MAX_INPUTS = 12  # explicit input enumeration in the bounded-synthesis backend (spec §2.4)

TEMPORAL_GRAMMAR = r"""
?start: iff
?iff: imp ("<->" imp)*
?imp: disj ("->" imp)?
?disj: conj ("|" conj)*
?conj: binary ("&" binary)*
?binary: unary (BINOP binary)?
?unary: UNOP unary -> prefix
      | atom
?atom: LITERAL -> literal
     | "true" -> true
     | "false" -> false
     | NAME -> name
     | "(" iff ")"
BINOP: "U" | "R" | "W"
UNOP: "!" | "X" | "F" | "G"
LITERAL: /\[[^\]]*\]/
NAME: /(?![UXFGRW]\b)[A-Za-z_][A-Za-z0-9_]*/
%import common.WS
%ignore WS
"""

LITERAL_GRAMMAR = r"""
?start: cmp
?cmp: sum CMP sum -> compare
    | sum
?sum: product (ADDOP product)*
?product: unary ("*" unary)*
?unary: "-" unary -> negate
      | atom
?atom: NUMBER -> number
     | "y" "(" NAME ")" -> fetch
     | NAME -> var
     | "(" sum ")"
CMP: "==" | "!=" | "<=" | ">=" | "<" | ">" | "="
ADDOP: "+" | "-"
NAME: /[A-Za-z_][A-Za-z0-9_]*/
NUMBER: /\d+(\.\d+)?/
%import common.WS
%ignore WS
"""


@lru_cache(maxsize=2)
def _parser(grammar: str):
    from lark import Lark
    return Lark(grammar, parser="lalr", propagate_positions=True)


@dataclass(frozen=True)
class Variable:
    name: str
    sort: str  # Int | Real | Bool
    owner: str  # system | environment


@dataclass(frozen=True)
class Literal:
    """One Booleanised atom: proposition `prop` stands for the z3 formula `expr`."""
    prop: str
    expr: object  # z3.BoolRef over current variables and fetch variables y_v
    text: str
    output: bool  # mentions a system variable now: the system decides it
    fetched: bool  # mentions some y(v)
    origin: str = "spec"  # spec | qe (found by quantifier elimination) | predicted


@dataclass
class Spec:
    name: str
    formula: Formula  # over the literal propositions
    variables: dict[str, Variable]
    literals: list[Literal]
    text: str = ""
    family: str = ""
    params: dict[str, int] = field(default_factory=dict)
    expected: str = ""  # ground truth by construction: REALIZABLE | UNREALIZABLE | "" unknown

    @property
    def inputs(self) -> list[str]:
        return [lit.prop for lit in self.literals if not lit.output]

    @property
    def outputs(self) -> list[str]:
        return [lit.prop for lit in self.literals if lit.output]

    def z3_vars(self) -> dict[str, object]:
        """Current and fetch z3 constants by name (`x`, `y_x`)."""
        return {**{v: _z3_const(v, var.sort) for v, var in self.variables.items()},
                **{f"y_{v}": _z3_const(f"y_{v}", var.sort) for v, var in self.variables.items()}}

    def constants(self) -> list[int | float]:
        """The numeric constants of the literals in order of appearance (template placeholders)."""
        return [c for lit in self.literals if lit.origin == "spec" for c in numbers_in(lit.text)]


def numbers_in(text: str) -> list[int | float]:
    return [int(n) if "." not in n else float(n) for n in re.findall(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?", text)]


def _z3_const(name: str, sort: str):
    import z3
    return {"Int": z3.Int, "Real": z3.Real, "Bool": z3.Bool}[sort](name)


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{column}"


def load_spec(path: str | Path) -> Spec:
    """Read a Syntheos YAML spec; one-line ProceedingsError for anything malformed."""
    import yaml
    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"spec file '{path}' does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "?"
        raise ProceedingsError(f"{path}:{where}: not valid YAML") from None
    if not isinstance(data, dict) or "property" not in data or "variables" not in data:
        raise ProceedingsError(f"{path}: a spec needs the keys 'property' and 'variables'")
    return parse_spec(str(data["property"]), data["variables"], name=path.stem,
                      family=str(data.get("family", "")), params=dict(data.get("params") or {}),
                      expected=str(data.get("expected", "")))


def parse_variables(entries) -> dict[str, Variable]:
    if not isinstance(entries, list):
        raise ProceedingsError("'variables' must be a list of {name, type, owner}")
    variables = {}
    for entry in entries:
        if not isinstance(entry, dict) or "name" not in entry:
            raise ProceedingsError(f"variable entry {entry!r} has no name")
        name = str(entry["name"])
        if "owner" not in entry:
            raise ProceedingsError(f"variable '{name}' has no owner; give owner: system or owner: environment")
        owner = OWNERS.get(str(entry["owner"]).lower())
        if owner is None:
            raise ProceedingsError(f"variable '{name}' has owner '{entry['owner']}'; use system or environment")
        sort = str(entry.get("type", ""))
        if sort not in SORTS:
            raise ProceedingsError(f"variable '{name}' has unsupported sort '{sort}'; supported: {', '.join(SORTS)}")
        if name in variables or name == "y":
            raise ProceedingsError(f"variable name '{name}' is repeated or reserved")
        variables[name] = Variable(name, sort, owner)
    return variables


def parse_spec(prop: str, variables, name: str = "spec", family: str = "", params=None, expected: str = "") -> Spec:
    """Parse the property text into an LTL formula over literal propositions (see module docstring)."""
    from lark.exceptions import UnexpectedInput
    table = parse_variables(variables) if not isinstance(variables, dict) else variables
    try:
        tree = _parser(TEMPORAL_GRAMMAR).parse(prop)
    except UnexpectedInput as err:
        raise ProceedingsError(f"{name}: parse error at {err.line}:{err.column} of the property") from None
    literals: dict[str, Literal] = {}
    formula = _to_formula(tree, prop, table, literals, name)
    spec = Spec(name, formula, table, list(literals.values()), prop, family, dict(params or {}), expected)
    if len(spec.inputs) > MAX_INPUTS:
        raise ProceedingsError(f"{name}: {len(spec.inputs)} environment propositions exceed the bosy backend's "
                               f"{MAX_INPUTS}; use an external backend (--backend strix|ltlsynt)")
    return spec


def _to_formula(tree, text: str, table: dict[str, Variable], literals: dict[str, Literal], name: str) -> Formula:
    kind = tree.data
    kids = tree.children
    if kind == "true":
        return TRUE
    if kind == "false":
        return FALSE
    if kind in ("literal", "name"):
        token = kids[0]
        body = str(token)[1:-1] if kind == "literal" else str(token)
        offset = token.start_pos + (1 if kind == "literal" else 0)
        return ap(_intern(body, offset, text, table, literals, name))
    if kind == "prefix":
        return Formula(str(kids[0]), (_to_formula(kids[1], text, table, literals, name),))
    if kind == "binary":
        left, op, right = kids
        return Formula(str(op), (_to_formula(left, text, table, literals, name), _to_formula(right, text, table, literals, name)))
    parts = [_to_formula(k, text, table, literals, name) for k in kids]
    if kind == "iff":
        out = parts[0]
        for p in parts[1:]:
            out = Formula("<->", (out, p))
        return out
    if kind == "imp":
        return Formula("->", tuple(parts))
    return Formula({"disj": "|", "conj": "&"}[kind], tuple(parts))


def _intern(body: str, offset: int, text: str, table, literals: dict[str, Literal], name: str) -> str:
    import z3
    from lark.exceptions import UnexpectedInput
    try:
        tree = _parser(LITERAL_GRAMMAR).parse(body)
    except UnexpectedInput as err:
        raise ProceedingsError(f"{name}: parse error at {_position(text, offset + err.pos_in_stream)} "
                               f"of the property, in literal [{body}]") from None
    used: set[str] = set()
    fetched: set[str] = set()
    expr = _to_z3(tree, table, used, fetched, body, name)
    if not z3.is_bool(expr):
        raise ProceedingsError(f"{name}: literal [{body}] at {_position(text, offset)} is not a comparison")
    key = " ".join(body.split())  # by text, so template instances keep one table layout
    if key not in literals:
        output = any(table[v].owner == "system" for v in used)
        literals[key] = Literal(f"l{len(literals)}", expr, " ".join(body.split()), output, bool(fetched))
    return literals[key].prop


def _to_z3(tree, table, used: set, fetched: set, body: str, name: str):
    import z3
    from lark import Token
    if isinstance(tree, Token):  # a bare NAME (Bool variable)
        return _var(str(tree), table, used, body, name)
    kind, kids = tree.data, tree.children
    if kind == "number":
        text = str(kids[0])
        return z3.IntVal(int(text)) if "." not in text else z3.RealVal(Fraction(text))
    if kind == "var":
        return _var(str(kids[0]), table, used, body, name)
    if kind == "fetch":
        v = str(kids[0])
        _var(v, table, set(), body, name)
        fetched.add(v)
        return _z3_const(f"y_{v}", table[v].sort)
    if kind == "negate":
        return -_to_z3(kids[0], table, used, fetched, body, name)
    if kind == "compare":
        left, op, right = _to_z3(kids[0], table, used, fetched, body, name), str(kids[1]), _to_z3(kids[2], table, used, fetched, body, name)
        return {"==": left == right, "=": left == right, "!=": left != right, "<=": left <= right,
                ">=": left >= right, "<": left < right, ">": left > right}[op]
    if kind == "sum":
        out = _to_z3(kids[0], table, used, fetched, body, name)
        for op, term in zip(kids[1::2], kids[2::2]):
            t = _to_z3(term, table, used, fetched, body, name)
            out = out + t if str(op) == "+" else out - t
        return out
    if kind == "product":
        out = _to_z3(kids[0], table, used, fetched, body, name)
        for term in kids[1:]:
            out = out * _to_z3(term, table, used, fetched, body, name)
        return out
    raise ProceedingsError(f"{name}: cannot read literal [{body}]")


def _var(v: str, table, used: set, body: str, name: str):
    if v not in table:
        raise ProceedingsError(f"{name}: unknown variable '{v}' in literal [{body}]; declare it under 'variables'")
    used.add(v)
    return _z3_const(v, table[v].sort)
