"""Replaying a synthesized controller against an environment (spec §6 `simulate`; issue 23: an
adversarial one): the Boolean controller answers each input valuation, the theory *provider* (z3)
turns its output cube into system values, and every step is checked: the provider's values must give
exactly the controller's literal valuation, and every invariant conjunct G(ψ) of the spec (ψ without
temporal operators) must hold on the concrete values.

The *adversarial* environment (default) plays, at each step, the theory-feasible input valuation it has
tried least often from the controller's current state (ties broken at random), with concrete values
found by z3: within a few steps per state it plays every input the environment can really produce,
boundary values included, where uniformly random values may never hit a one-value zone. The *random*
environment draws values uniformly around the spec's constants.
"""

from __future__ import annotations

import itertools
import random

from proceedings.core.errors import ProceedingsError
from proceedings.neurosyntheos.ltl import Formula, nnf
from proceedings.neurosyntheos.predictor import parse_smt
from proceedings.neurosyntheos.spec import load_spec
from proceedings.neurosyntheos.theory import free_variable_names

TEMPORAL = {"X", "U", "R", "F", "G", "W"}


def invariants(f: Formula) -> list[Formula]:
    """ψ for each top-level conjunct G(ψ) of f with ψ free of temporal operators."""
    if f.op == "&":
        return [psi for a in f.args for psi in invariants(a)]
    if f.op == "G" and not _temporal(f.args[0]):
        return [f.args[0]]
    return []


def _temporal(f: Formula) -> bool:
    return f.op in TEMPORAL or any(_temporal(a) for a in f.args)


def _holds(f: Formula, letter: dict[str, bool]) -> bool:
    g = nnf(f)
    if g.op in ("true", "false"):
        return g.op == "true"
    if g.op == "ap":
        return letter[g.name]
    if g.op == "!":
        return not letter[g.args[0].name]
    results = [_holds(a, letter) for a in g.args]
    return all(results) if g.op == "&" else any(results)


ENVIRONMENTS = ("adversarial", "random")
MAX_ENUMERATED_INPUTS = 8  # beyond 2^8 input valuations per step the adversary is too slow to enumerate


def replay(certificate: dict, steps: int = 50, seed: int = 0, environment: str = "adversarial") -> dict:
    import z3
    if certificate.get("verdict") != "REALIZABLE":
        raise ProceedingsError("simulate needs the controller of a REALIZABLE verdict (solve --save)")
    if environment not in ENVIRONMENTS:
        raise ProceedingsError(f"unknown environment '{environment}'; choose one of: {', '.join(ENVIRONMENTS)}")
    spec = load_spec(certificate["spec"])
    table = {p: parse_smt(info["smt"], spec) for p, info in certificate["literals"].items()}
    machine = certificate["machine"]
    if environment == "adversarial" and len(machine["inputs"]) > MAX_ENUMERATED_INPUTS:
        raise ProceedingsError(f"the adversarial environment enumerates input valuations; this controller has "
                               f"{len(machine['inputs'])} inputs (at most {MAX_ENUMERATED_INPUTS}): use --environment random")
    edges = {(e["state"], tuple(e["input"])): (tuple(e["output"]), e["next"]) for e in machine["edges"]}
    z3vars = spec.z3_vars()
    consts = spec.constants() or [0]
    low, high = min(consts) - 3, max(consts) + 3
    rng = random.Random(seed)
    env_vars = [v for v, var in spec.variables.items() if var.owner == "environment"]
    sys_vars = [v for v, var in spec.variables.items() if var.owner == "system"]
    previous = {v: rng.randint(low, high) for v in spec.variables}
    checks = invariants(spec.formula)
    tried: dict = {}
    reads_fetched = any(name.startswith("y_") for p in machine["inputs"] for name in free_variable_names(table[p]))
    feasible = None
    state, violations = 0, []
    for step in range(steps):
        fetched = [z3vars[f"y_{v}"] == previous[v] for v in spec.variables]
        if environment == "adversarial":  # the feasible input least tried from this state
            if feasible is None or reads_fetched:
                feasible = _feasible_inputs(spec, machine["inputs"], table, fetched)
            env = min(feasible, key=lambda option: (tried.get((state, option[0]), 0), rng.random()))[1]
        else:
            env = {v: (rng.random() < 0.5 if spec.variables[v].sort == "Bool" else rng.randint(low, high)) for v in env_vars}
        known = [z3vars[v] == env[v] for v in env_vars] + fetched
        values = lambda e, extra: z3.is_true(z3.simplify(z3.substitute(e, *[(z3vars[k], _val(z3vars[k], x)) for k, x in extra.items()])))
        bits = tuple(values(table[p], env | {f"y_{v}": previous[v] for v in spec.variables}) for p in machine["inputs"])
        tried[state, bits] = tried.get((state, bits), 0) + 1
        if (state, bits) not in edges:
            violations.append(f"step {step}: input {bits} not covered by the controller")
            break
        out, nxt = edges[state, bits]
        s = z3.Solver()
        s.add(*known, *[table[p] if b else z3.Not(table[p]) for p, b in zip(machine["outputs"], out)])
        if s.check() != z3.sat:
            violations.append(f"step {step}: the provider finds no system values for output {out}")
            break
        m = s.model()
        chosen = {v: _py(m.eval(z3vars[v], model_completion=True)) for v in sys_vars}
        assignment = env | chosen | {f"y_{v}": previous[v] for v in spec.variables}
        letter = {p: values(e, assignment) for p, e in table.items()}
        if any(letter[p] != b for p, b in zip(machine["outputs"], out)):
            violations.append(f"step {step}: provider values disagree with the controller's output")
        for psi in checks:
            if not _holds(psi, letter):
                violations.append(f"step {step}: invariant {psi} violated by {assignment}")
        previous = env | chosen
        state = nxt
    return {"steps": step + 1, "violations": violations, "pairs_tried": len(tried)}


def _feasible_inputs(spec, inputs: list[str], table: dict, fetched: list) -> list[tuple[tuple, dict]]:
    """Every input valuation some environment values produce (given the fetched values), with such values."""
    import z3
    z3vars = spec.z3_vars()
    env_vars = [v for v, var in spec.variables.items() if var.owner == "environment"]
    feasible = []
    for bits in itertools.product((False, True), repeat=len(inputs)):
        s = z3.Solver()
        s.add(*fetched, *[table[p] if b else z3.Not(table[p]) for p, b in zip(inputs, bits)])
        if s.check() == z3.sat:
            m = s.model()
            feasible.append((bits, {v: _py(m.eval(z3vars[v], model_completion=True)) for v in env_vars}))
    return feasible


def _val(var, x):
    import z3
    if z3.is_bool(var):
        return z3.BoolVal(bool(x))
    return z3.IntVal(int(x)) if var.sort() == z3.IntSort() else z3.RealVal(x)


def _py(v):
    import z3
    if z3.is_true(v) or z3.is_false(v):
        return z3.is_true(v)
    return v.as_long() if z3.is_int_value(v) else float(v.as_fraction())
