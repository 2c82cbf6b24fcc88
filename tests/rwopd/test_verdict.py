"""RWOPD's verdict can fail: the baselines' numbers as RWOPD's, and one counterfactual per check."""

import json
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
        assert verdict(record["metrics"], record["baseline"]) == record["checks"], path.name


def test_a_teacher_and_warm_start_both_at_zero_fail_the_teacher_gate():
    zero = with_changes(PASSING, {"metrics.warm_start.pass@1": 0.0, "metrics.teacher.pass@1": 0.0})
    checks = verdict(zero["metrics"], zero["baseline"])
    assert checks["gate: teacher pass@1 > 0 and >= 2x the warm start's"] is False
