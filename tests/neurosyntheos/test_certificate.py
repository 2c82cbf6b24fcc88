"""The independent certificate check cannot be fooled: a genuine controller and counter-strategy
pass, and every forged one (an impossible answer, an unproved clause, a relabelled literal, a
partial or wrong machine, an unplayable or fetched input) is refused, each for its own reason."""

import copy

import pytest

from proceedings.neurosyntheos.cegres import cegres
from proceedings.neurosyntheos.certificate import check_certificate
from proceedings.neurosyntheos.families import thermostat, visits
from proceedings.neurosyntheos.spec import parse_spec

X_SYS = {"name": "x", "type": "Int", "owner": "system"}
E_ENV = {"name": "e", "type": "Int", "owner": "environment"}


@pytest.fixture(scope="module")
def controller():
    spec = thermostat(2, 0, 3, 0)  # l0 = [t <= 2] (input), l1 = [h == 0], l2 = [t >= 3], l3 = [h == 1], ...
    run = cegres(spec, budget_s=30)
    assert run.verdict == "REALIZABLE"
    return spec, run.certificate


@pytest.fixture(scope="module")
def counter_strategy():
    spec = parse_spec("G([x > e] & [x < e])", [X_SYS, E_ENV])
    run = cegres(spec, budget_s=30)
    assert run.verdict == "UNREALIZABLE" and run.certificate["clauses"]
    return spec, run.certificate


def forged(cert, change):
    cert = copy.deepcopy(cert)
    change(cert)
    return cert


def test_genuine_certificates_check(controller, counter_strategy):
    assert check_certificate(*controller) == []
    assert check_certificate(*counter_strategy) == []


def test_an_answer_no_system_value_achieves_is_refused(controller):
    spec, cert = controller
    def all_outputs_true(c):  # h == 0 and h == 1 at once when t <= 2: Booleanly fine, theory-impossible
        edge = next(e for e in c["machine"]["edges"] if e["input"] == [True, False])
        edge["output"] = [True] * len(c["machine"]["outputs"])
    assert check_certificate(spec, forged(cert, all_outputs_true)) == [
        "state 0, input [True, False]: output [True, True, True, True] is not achievable for every environment value"]
    def impossible_input(c):  # t <= 2 and t >= 3: the environment never plays it, so any answer is harmless
        edge = next(e for e in c["machine"]["edges"] if e["input"] == [True, True])
        edge["output"] = [True] * len(c["machine"]["outputs"])
    assert check_certificate(spec, forged(cert, impossible_input)) == []


def test_an_unproved_clause_is_refused(controller):
    spec, cert = controller
    t_low = next(p for p, info in cert["literals"].items() if not info["output"])
    problems = check_certificate(spec, forged(cert, lambda c: c["clauses"].append([[t_low, True]])))
    assert len(problems) == 1 and "is not proved valid" in problems[0] and "t=" in problems[0]


def test_a_relabelled_literal_or_a_literal_given_to_the_wrong_player_is_refused(controller):
    spec, cert = controller
    relabel = forged(cert, lambda c: c["literals"]["l1"].update(smt="(= h 7)"))
    assert any("is not the spec's" in p for p in check_certificate(spec, relabel))
    swapped = forged(cert, lambda c: c["literals"]["l0"].update(output=True))
    assert any("wrong player" in p for p in check_certificate(spec, swapped))
    extra = forged(cert, lambda c: c["literals"].update(l9={"text": "h > 0", "smt": "(> h 0)", "output": False}))
    assert any("extra literal l9" in p for p in check_certificate(spec, extra))


def test_a_controller_missing_an_answer_or_violating_the_formula_is_refused(controller):
    spec, cert = controller
    partial = forged(cert, lambda c: c["machine"]["edges"].pop())
    assert any("has no answer" in p for p in check_certificate(spec, partial))
    patrol = visits((1, 3), 0, 4)
    run = cegres(patrol, budget_s=30)
    assert run.verdict == "REALIZABLE" and check_certificate(patrol, run.certificate) == []
    def idle(c):  # stay put at a legal value: x in bounds, never at a target
        for e in c["machine"]["edges"]:
            e["output"] = [p in ("l0", "l1") for p in c["machine"]["outputs"]]
    problems = check_certificate(patrol, forged(run.certificate, idle))
    assert problems == ["the controller violates the formula (its product with the automaton of ¬φ has an accepting cycle)"]


def test_a_counter_strategy_without_its_clause_or_with_an_unplayable_input_is_refused(counter_strategy):
    spec, cert = counter_strategy
    unfounded = forged(cert, lambda c: c["clauses"].clear())  # without ¬(x > e ∧ x < e) ...
    assert check_certificate(spec, unfounded) == ["the counter-strategy is undefined at [(0, (True, True))]"]
    unfounded["machine"]["next"].append({"state": 0, "output": [True, True], "next": 0})
    assert check_certificate(spec, unfounded) == [  # ... the system answers both, and wins
        "the counter-strategy does not refute the formula (some allowed answer satisfies φ)"]
    hot = thermostat(2, 0, 3, 1)
    run = cegres(hot, budget_s=30)
    assert run.verdict == "UNREALIZABLE" and check_certificate(hot, run.certificate) == []
    def impossible(c):  # t <= 3 false and t >= 3 false: no temperature plays it
        for s in c["machine"]["play"]:
            c["machine"]["play"][s] = [False] * len(c["machine"]["inputs"])
    assert any("cannot be played" in p for p in check_certificate(hot, forged(run.certificate, impossible)))


def test_a_counter_strategy_over_fetched_inputs_is_refused(counter_strategy):
    spec, cert = counter_strategy
    def fetched_input(c):  # [e > y(e)] as a free input: the environment cannot choose its past
        c["literals"]["l2"] = {"text": "e > y(e)", "smt": "(> e y_e)", "output": False}
        c["machine"]["inputs"].append("l2")
        for s in c["machine"]["play"]:
            c["machine"]["play"][s].append(True)
    assert check_certificate(spec, forged(cert, fetched_input)) == [
        "input literals ['l2'] read fetched values: the environment cannot choose them"]


def test_a_malformed_certificate_is_refused_not_crashed_on(controller):
    spec, cert = controller
    assert check_certificate(spec, forged(cert, lambda c: c.pop("clauses")))[0].startswith("malformed certificate")
    assert check_certificate(spec, forged(cert, lambda c: c.update(verdict="UNKNOWN"))) == [
        "verdict 'UNKNOWN' has no certificate"]
