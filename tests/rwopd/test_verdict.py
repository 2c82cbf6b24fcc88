"""RWOPD's verdict can fail: the baselines' numbers as RWOPD's, and one counterfactual per check."""

import json

import pytest
from pathlib import Path

from proceedings.core.verdict import audit, with_changes
from proceedings.rwopd.experiment import verdict


def arm(pass_at_1, low, high, combinational, bounded, unbounded):
    return {"pass@1": pass_at_1, "pass@1_ci": [low, high], "pass@1_combinational": combinational,
            "pass@1_bounded": bounded, "pass@1_unbounded": unbounded}


SFT = arm(0.20, 0.12, 0.28, 0.60, 0.10, 0.05)
OPD = arm(0.22, 0.14, 0.30, 0.62, 0.12, 0.06)
GATED = {"pec_fixtures": [{"ok": True}, {"ok": True}], "degenerate_reward": 0.0,
         "warm_start": {"pass@1": 0.10}, "teacher": {"pass@1": 0.30}}
PASSING = {"metrics": {**arm(0.40, 0.32, 0.48, 0.65, 0.40, 0.20), **GATED}, "baseline": {"sft": SFT, "opd": OPD}}
COUNTERFACTUALS = {
    "PEC fixture": {"metrics.pec_fixtures": [{"ok": True}, {"ok": False}]},
    "degenerate rollout": {"metrics.degenerate_reward": 0.5},
    "warm-start pass@1 >=": {"metrics.warm_start.pass@1": 0.04},
    "teacher pass@1 > 0 and": {"metrics.teacher.pass@1": 0.19},
    "> SFT": {"baseline.sft.pass@1_ci": [0.12, 0.33]},
    "> OPD": {"baseline.opd.pass@1_ci": [0.14, 0.33]},
    "temporal category": {"metrics.pass@1_combinational": 0.95},
}
OPD_AS_RWOPD = {**PASSING, "metrics": {**OPD, **GATED}}


def test_every_check_of_the_verdict_can_fail_alone_and_a_baseline_as_rwopd_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS, baseline_as_method=OPD_AS_RWOPD) == []
    assert audit(verdict, PASSING, COUNTERFACTUALS,
                 baseline_as_method=with_changes(OPD_AS_RWOPD, {"metrics.pass@1_ci": SFT["pass@1_ci"]})) == []


def test_the_committed_records_re_judge_to_their_stored_checks():
    records = sorted((Path(__file__).parents[2] / "results" / "rwopd").glob("*.json"))
    assert records, "no committed rwopd record"
    for path in records:
        record = json.loads(path.read_text())
        spread = (record.get("seeds") or {}).get("spread", {})
        intervals = {p: s["ci95"] for p, s in spread.items()} or None
        assert verdict(record["metrics"], record["baseline"], intervals) == record["checks"], path.name


def _seed_runs(rwopd_by_seed, sft_by_seed, seconds=(0.1, 0.2)):
    from proceedings.core.results import Result

    runs = []
    for seed, (rw, sft, sec) in enumerate(zip(rwopd_by_seed, sft_by_seed, seconds)):
        metrics = {**PASSING["metrics"], "pass@1": rw, "pass@1_ci": [rw - 0.05, rw + 0.05],
                   "pec_fixtures": [{"ok": True, "seconds": sec}]}  # seconds differ: kept per seed when combined
        baseline = {"sft": {**SFT, "pass@1": sft, "pass@1_ci": [sft - 0.05, sft + 0.05]}, "opd": OPD}
        runs.append(Result(system="rwopd", scale="small", claim="", metrics=metrics, baseline=baseline,
                           checks=verdict(metrics, baseline), seed=seed))
    return runs


def test_several_seeds_are_judged_on_their_means_with_intervals_over_seeds():
    from proceedings.core.seeds import combine

    # each seed alone clears SFT by its task bootstrap, and so do the seeds' means (0.40 vs 0.20) ...
    steady = combine(_seed_runs((0.395, 0.405), (0.195, 0.205)), verdict)
    assert all(steady.checks.values()) and all(run["reproduced"] for run in steady.seeds["per_seed"])
    # ... but a margin that swings between seeds does not: the 2-seed interval of RWOPD's mean reaches the baselines'
    swinging = combine(_seed_runs((0.36, 0.56), (0.195, 0.205)), verdict)
    assert all(run["reproduced"] for run in swinging.seeds["per_seed"])
    assert [rule for rule, holds in swinging.checks.items() if not holds] == [
        "RWOPD pass@1 > SFT with non-overlapping 95% intervals", "RWOPD pass@1 > OPD with non-overlapping 95% intervals"]
    assert swinging.metrics["pass@1"] == pytest.approx(0.46)  # the mean


def test_a_fixture_that_fails_in_one_seed_fails_the_combined_gate():
    from proceedings.core.seeds import combine

    runs = _seed_runs((0.395, 0.405), (0.195, 0.205))
    runs[1].metrics["pec_fixtures"] = [{"ok": False, "seconds": 0.2}]
    combined = combine(runs, verdict)
    assert combined.metrics["pec_fixtures"] == {"per_seed": [[{"ok": True, "seconds": 0.1}], [{"ok": False, "seconds": 0.2}]]}
    assert [rule for rule, holds in combined.checks.items() if not holds] == [
        "gate: every PEC fixture verdict matches its documented answer"]


def test_a_teacher_and_warm_start_both_at_zero_fail_the_teacher_gate():
    zero = with_changes(PASSING, {"metrics.warm_start.pass@1": 0.0, "metrics.teacher.pass@1": 0.0})
    checks = verdict(zero["metrics"], zero["baseline"])
    assert checks["gate: teacher pass@1 > 0 and >= 2x the warm start's"] is False
