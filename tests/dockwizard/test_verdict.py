"""DockWizard's verdict can fail: the function-only numbers reported as DockWizard's, and one
counterfactual per check (each gate and each of the claim's three conditions) that breaks only it;
the committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit, breaks
from proceedings.dockwizard.experiment import verdict


def arm(vina, satisfaction, recovery, clash_free=0.9):
    return {"designs": 4, "scored": 4, "failed": 0, "validity": 1.0, "recovery": recovery, "native_recovery": recovery,
            "log_likelihood": -1.2, "vina": vina, "vina_score": vina + 0.5, "drift": 0.4,
            "satisfaction": satisfaction, "clash_free": clash_free, "diversity": 0.5}


METRICS = {**arm(-8.0, 0.6, 0.4), "scored_fraction": 1.0, "vina_gain_ci90": [0.2, 0.8],
           "target": arm(-8.5, 0.9, 1.0), "random": arm(-6.5, 0.3, 0.15), "arms": {},
           "relative_gain_pct": {"docking_confidence_gain_pct": 6.7, "complex_stability_gain_pct": 50.0}}
BASELINE = {"name": "function-only", **arm(-7.5, 0.4, 0.3), "scored_fraction": 1.0}
PASSING = {"metrics": METRICS, "baseline": BASELINE}
COUNTERFACTUALS = {
    "gate: both arms score": {"metrics.scored_fraction": 0.4},
    "targets beat composition-matched random pockets": {"metrics.target.vina": -7.0},
    "targets satisfy": {"metrics.target.satisfaction": 0.5},
    "gate (b): DockWizard beats": {"metrics.recovery": 0.1},
    "gate (b): function-only beats": {"baseline.recovery": 0.1},
    "docking confidence": {"metrics.vina_gain_ci90": [-0.1, 0.8]},
    "complex stability": {"metrics.satisfaction": 0.45},
    "clash-free rate": {"metrics.clash_free": 0.8},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_the_method_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("change, check", [
    ({"metrics.vina": -7.6}, "docking confidence"),  # better, but by less than 0.3 kcal/mol
    ({"metrics.vina_gain_ci90": None}, "docking confidence"),  # one condition: no interval, no claim
    ({"baseline.scored_fraction": 0.2}, "gate: both arms score"),
    ({"metrics.random.vina": -8.1}, "gate (b): DockWizard beats"),
    ({"metrics.target.satisfaction": None}, "targets satisfy"),
])
def test_thin_margins_missing_intervals_and_failing_arms_each_break_their_check(change, check):
    assert any(check in rule for rule in breaks(verdict, PASSING, change))


RECORDS = sorted((Path(__file__).parents[2] / "results" / "dockwizard").glob("*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_the_committed_records_re_judge_to_their_stored_checks(path):
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]


def test_a_paired_interval_needs_five_conditions_two_same_signed_differences_are_no_interval():
    from proceedings.dockwizard.evaluation import MIN_PAIRED_CONDITIONS, paired_bootstrap_ci

    function_only = {f"c{i}": -5.0 for i in range(MIN_PAIRED_CONDITIONS)}
    dockwizard = {c: v - 1.0 for c, v in function_only.items()}
    two = {c: function_only[c] for c in ("c0", "c1")}
    assert paired_bootstrap_ci({c: dockwizard[c] for c in two}, two) is None  # tiny's 2 conditions: no claim
    low, high = paired_bootstrap_ci(dockwizard, function_only)
    assert low == high == 1.0


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_each_record_notes_the_number_of_conditions_it_held_out_and_evaluated(path):
    record = json.loads(path.read_text())  # round 9's small record noted the preset's cap (30) for 13 conditions
    assert record["notes"].startswith(f"{len(record['config']['test_conditions'])} held-out conditions x ")
