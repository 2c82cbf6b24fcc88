"""The NL2SVA harness: verdict-based pass@k per category, rewards, grammar labels."""

import pytest

pytest.importorskip("z3")
from proceedings.rwopd.grammar import CATEGORIES, generate_pairs  # noqa: E402
from proceedings.rwopd.harness import VerdictCache, evaluate_samples  # noqa: E402
from proceedings.rwopd.pec import Verdict  # noqa: E402


def test_pass_at_1_counts_equivalent_rewrites_not_token_matches():
    tasks = [t for t in generate_pairs(12, seed=5) if "|=>" in t.sva or "|-> ##1 " in t.sva][:2]
    assert tasks, "the grammar should produce next-cycle implications"
    outputs = []
    for task in tasks:
        rewrite = task.sva.replace("|=> ", "|-> ##1 ") if "|=>" in task.sva else task.sva.replace("|-> ##1 ", "|=> ")
        outputs.append([" " + rewrite, " sig_Z |-> (", " " + task.sva.replace("|", "|", 1) + " && 1'b0"])
    evaluation = evaluate_samples(tasks, outputs, VerdictCache(timeout_s=30))
    for verdicts in evaluation.verdicts:
        assert verdicts[0] == Verdict.EQUIVALENT
        assert verdicts[1] == Verdict.SYNTAX_ERROR
    assert abs(evaluation.pass_at(1) - 1 / 3) < 1e-9
    assert evaluation.syntax_rate() < 1.0


def test_generated_pairs_are_balanced_distinct_and_labelled_by_their_own_ir():
    from proceedings.rwopd.categories import categorise_reference

    pairs = generate_pairs(30, seed=11)
    assert len({p.sva for p in pairs}) == 30
    assert [p.category for p in pairs[:3]] == list(CATEGORIES)
    for pair in pairs:
        category, invalid = categorise_reference(pair.sva)
        assert not invalid and category == pair.category, pair


def test_rewards_follow_the_verdicts():
    cache = VerdictCache(timeout_s=30, signals={"a": 1, "b": 1, "c": 1})
    assert cache.reward(" a |=> b", "a |-> ##1 b", rho=0.5) == 1.0
    assert cache.reward(" a |-> b", "a |-> (b || c)", rho=0.5) == 0.5
    assert cache.reward(" a |-> ##3 b", "a |-> ##1 b", rho=0.5) == 0.0
    assert cache.reward(" )(", "a", rho=0.5) == 0.0
