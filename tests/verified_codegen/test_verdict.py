"""The verdict can fail: the baseline's numbers as P's, and one counterfactual per check; the committed
records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.verified_codegen.experiment import verdict

ARM = {"solve_rate_b2": 0.3, "solve_rate_b4": 0.5, "solve_rate_b8": 0.6, "solve_rate_b16": 0.7,
       "mean_solve_rate": 0.525, "solve_rate_bmax": 0.7, "difficult_checks": 12.0, "difficult_wall_s": 20.0,
       "mean_checks": 9.0, "mean_calls": 9.0, "mean_wall_s": 15.0}
PASSING = {
    "metrics": {"solve_rate_b2": 0.5, "solve_rate_b4": 0.7, "solve_rate_b8": 0.8, "solve_rate_b16": 0.9,
                "mean_solve_rate": 0.725, "solve_rate_bmax": 0.9, "difficult_checks": 6.0, "difficult_wall_s": 10.0,
                "mean_checks": 5.0, "mean_calls": 6.0, "mean_wall_s": 8.0, "tasks": 12, "difficult_tasks": 6,
                "union_solve_rate_bmax": 0.9, "min_arm_solve_rate_bmax": 0.6, "max_arm_solve_rate_bmin": 0.5,
                "gain_ci90_low": 0.08, "gain_ci90_high": 0.3, "recheck_disagreements": 0, "oracle_attempts": 12,
                "oracle_designed": 12, "commit0_tasks": 11, "commit0_solve_rate": 0.5,
                "commit0_union_solve_rate_bmax": 0.7, "commit0_differential_checked": 8,
                "commit0_differential_inputs": 320, "commit0_differential_mismatches": 0},
    "baseline": {"name": "best of J, S", **ARM, "commit0_solve_rate": 0.4, "arms": {}},
}
COUNTERFACTUALS = {
    "gate: the oracle": {"metrics.oracle_designed": 11},
    "gate: the union of arms": {"metrics.max_arm_solve_rate_bmin": 0.95},
    "(1) P's solve rate": {"metrics.gain_ci90_low": -0.01},
    "(2) on the difficult subset": {"metrics.difficult_wall_s": 19.0},
    "(3) P >= best baseline on commit0-mini": {"metrics.commit0_solve_rate": 0.3},  # the baseline's 0.4 beats P
    "(4) zero disagreements": {"metrics.recheck_disagreements": 1},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_planfirst_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_commit0_checks_fail_at_the_floor_without_tasks_and_when_nothing_or_something_disagrees():
    """(3) cannot hold by a tie at zero or without commit0-mini tasks; (4) cannot hold vacuously (0 of 0
    implementations compared) and fails on one implementation that disagrees with the library."""
    from proceedings.core.verdict import breaks

    three = next(rule for rule in verdict(**PASSING) if rule.startswith("(3)"))
    four = next(rule for rule in verdict(**PASSING) if rule.startswith("(4)"))
    floor = {"metrics.commit0_union_solve_rate_bmax": 0.0, "metrics.commit0_solve_rate": 0.0,
             "baseline.commit0_solve_rate": 0.0}
    assert breaks(verdict, PASSING, floor) == [three]
    assert breaks(verdict, PASSING, {"metrics.commit0_tasks": 0}) == [three]
    assert breaks(verdict, PASSING, {"metrics.commit0_differential_checked": 0}) == [four]
    assert breaks(verdict, PASSING, {"metrics.commit0_differential_mismatches": 1}) == [four]


def test_gates_also_fail_at_the_floor_and_without_difficult_tasks():
    from proceedings.core.verdict import breaks

    assert breaks(verdict, PASSING, {"metrics.union_solve_rate_bmax": 0.3}) == [
        next(rule for rule in verdict(**PASSING) if rule.startswith("gate: the union"))]
    assert breaks(verdict, PASSING, {"metrics.difficult_tasks": 0}) == [
        next(rule for rule in verdict(**PASSING) if rule.startswith("(2)"))]


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "verified_codegen" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]


def test_the_difficult_subset_is_where_j_s_top_ranked_candidate_fails_and_needs_a_candidate():
    from proceedings.verified_codegen.experiment import difficult_tasks
    from proceedings.verified_codegen.workflows import Attempt

    def joint(task, *statuses):
        return Attempt(task, "dafny", "joint", "sketch", trace=[{"check": "verify", "status": s} for s in statuses])

    attempts = [joint("easy", "verified"), joint("hard", "failed", "verified"), joint("nothing proposed")]
    assert difficult_tasks(attempts) == {"hard"}


def test_coverage_is_the_tasks_some_arm_got_a_candidate_for_and_its_rate_leaves_the_others_out():
    from proceedings.verified_codegen.experiment import arm_numbers, covered_tasks
    from proceedings.verified_codegen.workflows import Attempt

    attempts = [Attempt("folded", "dafny", "joint", "sketch", solved=True, solved_at=3, checks=3),
                Attempt("port", "dafny", "joint", "sketch", checks=0)]  # nothing proposed: 0 for every arm
    assert covered_tasks(attempts) == {"folded"}
    numbers = arm_numbers(attempts, (2, 4), set(), covered_tasks(attempts))
    assert numbers["mean_solve_rate"] == 0.25 and numbers["covered_mean_solve_rate"] == 0.5
