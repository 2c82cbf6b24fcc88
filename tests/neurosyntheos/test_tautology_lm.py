"""The autoregressive tautology model: its spec-relative token language, training on trace clauses,
sampling for an unseen spec, and the z3 guard every sample passes before injection."""

from proceedings.neurosyntheos import tautology_lm, theory
from proceedings.neurosyntheos.bounded import Budget
from proceedings.neurosyntheos.cegres import State, source_counts
from proceedings.neurosyntheos.families import robot_target, visits
from proceedings.neurosyntheos.predictor import NeuroPredictor, parse_smt


def test_a_clause_is_written_relative_to_its_spec_and_read_back_for_another():
    small, large = robot_target(4, 2), robot_target(10, 4)
    qe = (("(<= 5 g)", True), ("(= 4 x)", False))  # a literal of no spec: 5 = dist + 1
    tokens = tautology_lm.Codec(small).clause(qe)
    assert tokens == ["pos", "(", "<=", "C1+1", "env0", ")", "|", "neg", "(", "=", "C5", "sys0", ")"]
    assert tautology_lm.Codec(small).decode(tokens) == tuple(sorted(qe))
    assert tautology_lm.Codec(large).decode(tokens) == (("(<= 11 g)", True), ("(= 10 x)", False))
    assert tautology_lm.Codec(large).decode(["pos", "(", "<=", "C8", "env0", ")"]) is None  # no 9th constant
    assert tautology_lm.Codec(large).decode(["(", "pos"]) is None


def exclusions(spec):
    """¬([x == a] ∧ [x == b]) for every pair of the spec's targets: what CEGRES learns on a patrol."""
    targets = spec.params["targets"]
    return [((f"(= {a} x)", False), (f"(= {b} x)", False)) for k, a in enumerate(targets) for b in targets[k + 1:]]


def test_the_model_learns_trace_clauses_and_its_samples_enter_only_through_z3():
    train = [visits((1, 3, 5), 0, 6), visits((2, 4, 7), 1, 8)]
    model, losses = tautology_lm.train([(s, c) for s in train for c in exclusions(s)], steps=50)
    assert losses[-1] < 0.3 * losses[0]
    unseen = visits((10, 13, 17), 8, 20)
    proposals, malformed = tautology_lm.sample(model, unseen)
    assert set(exclusions(unseen)) & set(proposals) and malformed < 32
    predictor = NeuroPredictor(lm=model)
    state = State(unseen, list(unseen.literals))
    added, rejected = predictor.inject(state, 1, limit=16, budget=Budget(30))
    assert added >= 2 and {t.source for t in state.tautologies} == {"lm"}
    for t in state.tautologies:  # everything that went in is valid
        assert theory.check_valid(theory.clause_formula(t.clause, state.table())).valid is True
    counts = source_counts(state.tautologies, predictor.log, predictor.malformed)
    assert counts["lm"]["injected"] == added and counts["lm"]["rejected"] == rejected == len(predictor.log)
    assert counts["template"] == counts["gnn"] == {"injected": 0, "rejected": 0}
    for entry in predictor.log:  # a rejected sample is logged with z3's counter-model
        assert entry["source"] == "lm" and (entry["why"] == "unknown" or entry["counter_model"])
        parse_smt(entry["clause"][0][0], unseen)
