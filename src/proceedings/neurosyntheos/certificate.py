"""A verdict's certificate, and its independent check from the spec and the saved JSON alone
(issue 23: "every certificate checks"; never a verdict without a checked certificate).

The certificate (`controller.json`) holds the literal table (SMT-LIB text of every proposition),
the theory clauses the verdict relies on, and the machine: a Mealy controller (REALIZABLE) or an
environment Moore counter-strategy (UNREALIZABLE). `check_certificate` trusts none of the run's
in-memory state; it re-derives everything it can from the spec and re-proves the rest:

1. the spec's own literals mean what the spec says (equivalent SMT, same owner side); extra literals
   (found by quantifier elimination) are inputs over environment and fetched variables only;
2. every clause is ∀-valid (fresh z3 query; unknown counts as a failure);
3. the machine is total on the inputs the valid clauses allow, and passes the explicit model check
   (product with the automaton of ¬φ, resp. φ; SCC emptiness);
4. REALIZABLE: every edge whose input cube is theory-feasible has a theory-feasible answer,
   ∀ environment and fetched values. ⟦input⟧ → ∃ system values. ⟦output⟧ (a quantified query,
   not the quantifier elimination CEGRES used); UNREALIZABLE: every input the strategy plays is
   satisfiable, and no input literal reads a fetched value (the environment could not choose it).
"""

from __future__ import annotations

from proceedings.neurosyntheos import theory
from proceedings.neurosyntheos.bounded import Clause, Game, Mealy, Moore, mealy_satisfies, moore_refutes
from proceedings.neurosyntheos.spec import Literal, Spec

CHECK_TIMEOUT_MS = 5000


def certificate(verdict: str, machine: Mealy | Moore, literals: list[Literal], clauses: list[Clause]) -> dict:
    """The JSON certificate of a verdict (what `check_certificate` reads)."""
    import z3
    text = {lit.prop: lit.text for lit in literals}
    return {"verdict": verdict, "machine": machine.to_json(),
            "literals": {lit.prop: {"text": lit.text, "smt": z3.simplify(lit.expr).sexpr(), "output": lit.output}
                         for lit in literals},
            "clauses": [[[p, pol] for p, pol in sorted(c)] for c in clauses],
            "tautologies": [" | ".join(("" if pol else "!") + f"[{text[p]}]" for p, pol in sorted(c)) for c in clauses]}


def check_certificate(spec: Spec, cert: dict) -> list[str]:
    """The problems found ([] = the verdict is certified)."""
    import z3
    try:
        table, problems = _literal_table(spec, cert["literals"])
        if problems:
            return problems
        clauses = [frozenset((str(p), bool(pol)) for p, pol in c) for c in cert["clauses"]]
        problems = _clause_problems(clauses, table)
        if problems:
            return problems
        inputs = [p for p, lit in table.items() if not lit.output]
        outputs = [p for p, lit in table.items() if lit.output]
        env = [c for c in clauses if all(p in inputs for p, _ in c)]
        game = Game(spec.formula, inputs, outputs, env, [c for c in clauses if c not in env])
        machine = cert["machine"]
        if machine["inputs"] != inputs or machine["outputs"] != outputs:
            return ["the machine's inputs/outputs differ from the literal table's"]
        if cert["verdict"] == "REALIZABLE":
            return _controller_problems(spec, game, table, machine)
        if cert["verdict"] == "UNREALIZABLE":
            return _counter_strategy_problems(game, table, machine)
        return [f"verdict '{cert['verdict']}' has no certificate"]
    except (KeyError, TypeError, ValueError, z3.Z3Exception) as err:
        return [f"malformed certificate: {type(err).__name__}: {err}"]


def _literal_table(spec: Spec, entries: dict) -> tuple[dict[str, Literal], list[str]]:
    from proceedings.neurosyntheos.predictor import parse_smt
    table, problems = {}, []
    own = {lit.prop: lit for lit in spec.literals}
    system = {v for v, var in spec.variables.items() if var.owner == "system"}
    for prop, info in entries.items():
        expr = parse_smt(info["smt"], spec)
        names = theory.free_variable_names(expr)
        table[prop] = Literal(prop, expr, info["text"], bool(info["output"]), any(n.startswith("y_") for n in names))
        if prop in own:
            if bool(info["output"]) != own[prop].output:
                problems.append(f"literal {prop} [{own[prop].text}] is given to the wrong player")
            if theory.check_valid(expr == own[prop].expr, CHECK_TIMEOUT_MS).valid is not True:
                problems.append(f"literal {prop} is not the spec's [{own[prop].text}]: {info['smt']}")
        elif info["output"] or names & system:
            problems.append(f"extra literal {prop} ({info['smt']}) must be an input over environment/fetched values")
    problems += [f"literal {p} of the spec is missing" for p in own if p not in table]
    return table, problems


def _clause_problems(clauses: list[Clause], table: dict[str, Literal]) -> list[str]:
    problems = []
    for c in clauses:
        if any(p not in table for p, _ in c):
            problems.append(f"clause {sorted(c)} names an unknown literal")
            continue
        verdict = theory.check_valid(theory.clause_formula(c, table), CHECK_TIMEOUT_MS)
        if verdict.valid is not True:
            problems.append(f"clause {sorted(c)} is not proved valid ({verdict.counter_model or 'unknown'})")
    return problems


def _controller_problems(spec: Spec, game: Game, table: dict[str, Literal], machine: dict) -> list[str]:
    import z3
    edges = {(e["state"], tuple(e["input"])): (tuple(e["output"]), e["next"]) for e in machine["edges"]}
    reached = {0} | {nxt for _, nxt in edges.values()}
    missing = [(t, i) for t in sorted(reached) for i in game.allowed_inputs() if (t, i) not in edges]
    if missing:
        return [f"the controller has no answer in state {t} to input {list(i)}" for t, i in missing[:3]]
    mealy = Mealy(game.inputs, game.outputs, machine["n_states"], {k: o for k, (o, _) in edges.items()},
                  {k: n for k, (_, n) in edges.items()})
    if not mealy_satisfies(game, mealy):
        return ["the controller violates the formula (its product with the automaton of ¬φ has an accepting cycle)"]
    system = theory.system_variables(spec)
    problems = []
    for (t, i), (o, _) in sorted(edges.items()):
        cube_in = [theory.literal_expr(table[p], b) for p, b in zip(game.inputs, i)]
        cube_out = [theory.literal_expr(table[p], b) for p, b in zip(game.outputs, o)]
        feasible_input = theory.satisfiable(cube_in, CHECK_TIMEOUT_MS)
        if feasible_input is False or not cube_out:
            continue
        answer = z3.And(cube_out)
        s = theory.solver(CHECK_TIMEOUT_MS)
        s.add(*cube_in, z3.Not(z3.Exists(system, answer) if system else answer))
        if feasible_input is None or s.check() != z3.unsat:
            problems.append(f"state {t}, input {list(i)}: output {list(o)} is not achievable for every environment value")
    return problems


def _counter_strategy_problems(game: Game, table: dict[str, Literal], machine: dict) -> list[str]:
    fetched = [p for p in game.inputs if table[p].fetched]
    if fetched:
        return [f"input literals {fetched} read fetched values: the environment cannot choose them"]
    plays = {int(s): tuple(bits) for s, bits in machine["play"].items()}
    moves = {(e["state"], tuple(e["output"])): e["next"] for e in machine["next"]}
    moore = Moore(game.inputs, game.outputs, machine["n_states"], plays, moves)
    answers = game.possible_outputs()
    states = moore.reachable_states()
    unplayed = [s for s in states if s not in plays] + [(s, o) for s in states if s in plays for o in answers
                                                         if game.allows(plays[s], o) and (s, o) not in moves]
    if unplayed:
        return [f"the counter-strategy is undefined at {unplayed[:3]}"]
    problems = []
    for s in states:
        cube_in = [theory.literal_expr(table[p], b) for p, b in zip(game.inputs, plays[s])]
        if theory.satisfiable(cube_in, CHECK_TIMEOUT_MS) is not True:
            problems.append(f"state {s}: input {list(plays[s])} cannot be played (unsatisfiable or unknown)")
    if not problems and not moore_refutes(game, moore):
        problems.append("the counter-strategy does not refute the formula (some allowed answer satisfies φ)")
    return problems
