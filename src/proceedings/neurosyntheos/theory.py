"""The theory side of CEGRES (paper §2.2 step 4, spec §2.2): ∀-validity of tautology clauses, the
feasibility checks of a machine's edges, and the tautology an illegal edge yields, shrunk by an
unsat core and completed by quantifier elimination (z3's `qe2`).

Every query runs under an rlimit and a timeout; `unknown` is never read as valid.
"""

from __future__ import annotations

from dataclasses import dataclass

from proceedings.neurosyntheos.spec import Literal, Spec


RLIMIT = 2_000_000  # z3 resource units per query (deterministic, unlike timeouts)
TIMEOUT_MS = 1000


def solver(timeout_ms: int = TIMEOUT_MS):
    import z3
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.set("rlimit", RLIMIT)
    return s


def literal_expr(lit: Literal, polarity: bool):
    import z3
    return lit.expr if polarity else z3.Not(lit.expr)


@dataclass
class Validity:
    valid: bool | None  # None: unknown within the limits (never injected)
    counter_model: str = ""


def check_valid(formula, timeout_ms: int = TIMEOUT_MS) -> Validity:
    """Is `formula` true for every value of every variable (current and fetched)?"""
    import z3
    s = solver(timeout_ms)
    s.add(z3.Not(formula))
    result = s.check()
    if result == z3.unsat:
        return Validity(True)
    if result == z3.sat:
        m = s.model()
        return Validity(False, ", ".join(f"{d.name()}={m[d]}" for d in sorted(m.decls(), key=lambda d: d.name())))
    return Validity(None, s.reason_unknown())


def clause_formula(clause, table: dict[str, Literal]):
    import z3
    return z3.Or([literal_expr(table[p], pol) for p, pol in sorted(clause)])


def satisfiable(cube: list, timeout_ms: int = TIMEOUT_MS) -> bool | None:
    import z3
    s = solver(timeout_ms)
    s.add(*cube)
    r = s.check()
    return None if r == z3.unknown else r == z3.sat


def unsat_core(parts: dict[str, object], timeout_ms: int = TIMEOUT_MS) -> list[str] | None:
    """Names of a minimal-ish subset of `parts` whose conjunction is unsatisfiable (None: satisfiable)."""
    import z3
    s = solver(timeout_ms)
    s.set("core.minimize", True)
    marks = {name: z3.Bool(f"__core_{name}") for name in parts}
    for name, f in parts.items():
        s.add(z3.Implies(marks[name], f))
    if s.check(*marks.values()) != z3.unsat:
        return None
    core = {str(c) for c in s.unsat_core()}
    return [name for name in parts if str(marks[name]) in core]


def eliminate(sys_vars: list, formula, timeout_ms: int = 2000):
    """QE(∃ sys_vars. formula) as a simplified quantifier-free formula, or None if z3 cannot."""
    import z3
    if not sys_vars:
        return z3.simplify(formula)
    goal = z3.Goal()
    goal.add(z3.Exists(sys_vars, formula))
    for tactic in ("qe2", "qe"):
        try:
            result = z3.TryFor(z3.Then(tactic, "simplify"), timeout_ms)(goal)
        except z3.Z3Exception:
            continue
        expr = result.as_expr()
        if not z3.is_quantifier(expr) and not _has_quantifier(expr):
            return z3.simplify(expr)
    return None


def _has_quantifier(expr) -> bool:
    import z3
    if z3.is_quantifier(expr):
        return True
    return any(_has_quantifier(c) for c in expr.children())


def free_variable_names(expr) -> set[str]:
    import z3
    if z3.is_const(expr) and expr.decl().kind() == z3.Z3_OP_UNINTERPRETED:
        return {expr.decl().name()}
    return set().union(*(free_variable_names(c) for c in expr.children())) if expr.children() else set()


def system_variables(spec: Spec) -> list:
    vars_ = spec.z3_vars()
    return [vars_[v] for v, var in spec.variables.items() if var.owner == "system"]
