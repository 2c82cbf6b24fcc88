"""LTL modulo theories: CEGRES verdicts with certificates, the attacks a checker must refuse (a
Boolean "realizable" whose controller needs impossible values), soundness of every tautology, and
template transfer by constant re-instantiation (elevator-3 -> elevator-5)."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.neurosyntheos.bounded import Budget, synthesize
from proceedings.neurosyntheos.cegres import State, cegres, illegal_edges, recheck
from proceedings.neurosyntheos.families import elevator, thermostat, visits, write_yaml
from proceedings.neurosyntheos.predictor import NeuroPredictor, Solved, parse_smt, solved_from_trace, transfer
from proceedings.neurosyntheos.spec import load_spec, parse_spec
from proceedings.neurosyntheos.simulate import replay
from proceedings.neurosyntheos import theory

X_SYS = {"name": "x", "type": "Int", "owner": "system"}
E_ENV = {"name": "e", "type": "Int", "owner": "environment"}


def test_an_always_positive_system_variable_is_realizable():
    run = cegres(parse_spec("G([x > 0])", [X_SYS]), budget_s=30)
    assert run.verdict == "REALIZABLE" and run.certificate["machine"]["n_states"] == 1


def test_a_boolean_controller_that_needs_impossible_values_is_refused_and_refined():
    spec = parse_spec("G([x > e] & [x < e])", [X_SYS, E_ENV])
    state = State(spec, list(spec.literals))
    game = state.game()
    boolean = synthesize(game, Budget(30), max_size=2)
    assert boolean.verdict == "REALIZABLE"  # the attack: Booleanly both literals can be true
    (edge, clause), = illegal_edges(state, game, boolean)
    assert clause == frozenset({("l0", False), ("l1", False)})
    run = cegres(spec, budget_s=30)
    assert run.verdict == "UNREALIZABLE" and [t.clause for t in run.tautologies] == [clause]
    assert recheck(spec, run) == []


def test_cegres_verdicts_match_the_construction_on_realizable_and_unrealizable_instances():
    # elevator-3 (realizable) is the shared run below; a lock range holding the lobby makes it unrealizable
    for spec in (thermostat(2, 0, 3, 0), thermostat(2, 0, 3, 1), visits((1, 3), 0, 4), visits((1, 9), 0, 4),
                 elevator(2, 1, 1)):
        run = cegres(spec, budget_s=30)
        assert run.verdict == spec.expected, spec.name
        assert recheck(spec, run) == []


def test_an_elevator_is_unrealizable_exactly_when_the_lock_range_holds_the_lobby_or_the_top_floor():
    cases = {(3, 2, 2): "REALIZABLE", (5, 0, 0): "REALIZABLE", (9, 2, 8): "REALIZABLE", (5, 6, 9): "REALIZABLE",
             (5, 1, 3): "UNREALIZABLE", (5, 5, 9): "UNREALIZABLE", (2, 1, 1): "UNREALIZABLE"}
    assert {args: elevator(*args).expected for args in cases} == cases
    with pytest.raises(ProceedingsError, match="floors >= 2"):
        elevator(1)


def test_an_invalid_proposal_is_rejected_with_a_counter_model_and_never_injected():
    spec = visits((1, 3), 0, 4)
    wrong = (("(= x 1)", False), ("(= x 3)", True))  # "x == 1 implies x == 3": false at x = 1
    right = (("(= x 1)", False), ("(= x 3)", False))
    predictor = NeuroPredictor(library=[Solved("unused", [], [])])
    malformed = (("(= 1 x)", False), ("(+ )", True), ("(= 5 z)", True))  # a sample that is no clause: skipped
    predictor.proposals = lambda spec: [(wrong, "lm"), (malformed, "lm"), (right, "lm")]
    state = State(spec, list(spec.literals))
    added, rejected = predictor.inject(state, 1, limit=16, budget=Budget(30))
    assert (added, rejected) == (1, 1)
    assert predictor.log[0]["why"] == "invalid" and "x=1" in predictor.log[0]["counter_model"]
    assert [(t.origin, t.source) for t in state.tautologies] == [("predicted", "lm")]
    assert predictor.log[0]["source"] == "lm"


def test_a_proposal_z3_cannot_decide_is_rejected_as_unknown_never_injected():
    cubes = [{"name": n, "type": "Int", "owner": "environment"} for n in "abc"]
    spec = parse_spec("G([a*a*a + b*b*b + c*c*c != 33] -> [x > 0])", cubes + [X_SYS])
    # "no three cubes sum to 33" is false (a solution has 17-digit numbers) and beyond z3 in a second
    claim = ((spec.literals[0].expr.sexpr(), True),)
    predictor = NeuroPredictor(library=[Solved("unused", [], [])])
    predictor.proposals = lambda spec: [(claim, "gnn")]
    state = State(spec, list(spec.literals))
    assert predictor.inject(state, 1, limit=16, budget=Budget(30)) == (0, 1)
    assert predictor.log[0]["why"] == "unknown" and state.tautologies == []


def test_a_constant_sampled_literal_never_becomes_a_proposition():
    spec = visits((5, 9, 30), 0, 25)
    known = (("(= 5 x)", False), ("(= 9 x)", False))
    constant_false = (("(<= x)", False),)  # z3 reads `(<= x)` as true: negated, a literal no play can make true
    chained = (("(= 2 (ite (= 18 x) 1 0))", False), ("(= 30 x)", False))  # 2 == If(..., 1, 0) is never true
    predictor = NeuroPredictor(library=[Solved("unused", [], [])])
    predictor.proposals = lambda spec: [(known, "template"), (known + constant_false, "lm"), (chained, "lm"),
                                        (constant_false + (("(= 5 x)", False), ("(= 30 x)", False)), "lm")]
    state = State(spec, list(spec.literals))
    assert predictor.inject(state, 1, limit=16, budget=Budget(30)) == (2, 0)
    assert [lit.prop for lit in state.literals] == [lit.prop for lit in spec.literals]  # nothing interned
    table = state.table()
    assert [t.text(table) for t in state.tautologies] == ["![x == 5] | ![x == 9]", "![x == 5] | ![x == 30]"]


def test_proposals_are_verified_in_the_predictors_source_order():
    from proceedings.neurosyntheos.families import template
    spec = visits((1, 3), 0, 4)
    gnn_clause = (("(= 1 x)", False), ("(= 3 x)", False))
    template_clause = (("(<= x 4)", True), ("(= 1 x)", False))

    class Scorer:
        def rank(self, spec):
            return [gnn_clause, template_clause]

    library = [Solved(template(spec), spec.constants(), [template_clause])]
    predictor = NeuroPredictor(library=library, scorer=Scorer())
    assert predictor.proposals(spec) == [(template_clause, "template"), (gnn_clause, "gnn")]
    predictor.order = ("gnn", "lm", "template")
    assert predictor.proposals(spec) == [(gnn_clause, "gnn"), (template_clause, "gnn")]  # first source wins


@pytest.fixture(scope="module")
def elevator3(tmp_path_factory):
    """One CEGRES run on elevator-3 (lock on floor 2: realizable), shared by the tests below."""
    path = write_yaml(elevator(3), tmp_path_factory.mktemp("elevator"))
    spec = load_spec(path)
    run = cegres(spec, budget_s=60)
    assert run.verdict == spec.expected == "REALIZABLE" and run.tautologies
    run.certificate["spec"] = str(path)
    return spec, run


def test_every_tautology_in_a_saved_trace_re_verifies(elevator3, tmp_path):
    spec, run = elevator3
    run.save(tmp_path)
    records = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert len(records) == len(run.tautologies)
    import z3
    for r in records:
        clause = z3.Or([parse_smt(lit["smt"], spec) if lit["polarity"] else z3.Not(parse_smt(lit["smt"], spec))
                        for lit in r["clause"]])
        assert theory.check_valid(clause).valid is True


def test_elevator3_tautologies_re_instantiated_for_elevator5_are_at_least_80_percent_valid(elevator3):
    spec, run = elevator3
    large = elevator(5)
    moved = transfer(solved_from_trace(spec, run.trace), large)
    import z3
    valid = [theory.check_valid(z3.Or([parse_smt(s, large) if pol else z3.Not(parse_smt(s, large))
                                        for s, pol in c])).valid for c in moved]
    assert len(moved) == len(run.tautologies) >= 3 and any("5" in s for c in moved for s, _ in c)
    assert sum(v is True for v in valid) / len(valid) >= 0.8


def _feasible_pairs(spec, certificate):
    """(state, input valuation) pairs of the controller's reachable states and the inputs values can produce."""
    from proceedings.neurosyntheos.simulate import _feasible_inputs
    machine = certificate["machine"]
    table = {p: parse_smt(info["smt"], spec) for p, info in certificate["literals"].items()}
    feasible = {bits for bits, _ in _feasible_inputs(spec, machine["inputs"], table, [])}
    reachable, frontier = {0}, [0]
    while frontier:
        state = frontier.pop()
        for e in machine["edges"]:
            if e["state"] == state and tuple(e["input"]) in feasible and e["next"] not in reachable:
                reachable.add(e["next"])
                frontier.append(e["next"])
    return {(state, bits) for state in reachable for bits in feasible}


def test_elevator3s_controller_replays_50_steps_against_an_adversarial_and_a_random_environment(elevator3):
    spec, run = elevator3
    adversarial = replay(run.certificate, steps=50, seed=1)
    assert adversarial["violations"] == [] and adversarial["steps"] == 50
    assert adversarial["pairs_tried"] == len(_feasible_pairs(spec, run.certificate))  # every one of them
    assert replay(run.certificate, steps=50, seed=1, environment="random")["violations"] == []
    broken = json.loads(json.dumps(run.certificate))
    for edge in broken["machine"]["edges"]:
        edge["output"] = [not b for b in edge["output"]]
    assert replay(broken, steps=50, seed=1)["violations"]


def test_the_adversary_plays_every_feasible_input_so_a_missing_answer_is_found(elevator3):
    spec, run = elevator3
    pairs = _feasible_pairs(spec, run.certificate)
    for bits in {bits for _, bits in pairs}:
        broken = json.loads(json.dumps(run.certificate))
        broken["machine"]["edges"] = [e for e in broken["machine"]["edges"] if tuple(e["input"]) != bits]
        violations = replay(broken, steps=len(pairs), seed=1)["violations"]
        assert len(violations) == 1 and f"input {bits} not covered" in violations[0]


@pytest.mark.parametrize("prop, variables, message", [
    ("G([x > 0] &", [X_SYS], "parse error at 1:"),
    ("G([x > z])", [X_SYS], "unknown variable 'z'"),
    ("G([x > 0])", [{"name": "x", "type": "Int"}], "has no owner"),
    ("G([x > 0])", [{"name": "x", "type": "String", "owner": "system"}], "unsupported sort 'String'"),
    ("G(" + " & ".join(f"[e > {k}]" for k in range(13)) + " -> [x > 0])", [X_SYS, E_ENV], "13 environment propositions"),
    ("G([x >> 0])", [X_SYS], "parse error at 1:7"),  # the second ">"
])
def test_bad_specs_are_refused_in_one_line(prop, variables, message):
    with pytest.raises(ProceedingsError, match=message.replace("(", r"\(")) as err:
        parse_spec(prop, variables)
    assert "\n" not in str(err.value)
