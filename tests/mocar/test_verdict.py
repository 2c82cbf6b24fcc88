"""MoCAR's verdict can fail: SMART-lite's numbers as MoCAR's, and one counterfactual per check; the
committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.mocar.experiment import verdict

PASSING = {
    "metrics": {"turn_heavy_share": 0.2, "cv_turn_mr2": 0.5, "min_ade6": 0.5, "ctrv_min_ade6": 1.0,
                "tokenizer_ade": 0.1, "train_min_ade6": 0.4, "cv_train_min_ade6": 1.0, "min_fde6": 1.0,
                "fde6_gap_ci": [0.1, 0.3], "mr2": 0.05, "b_min_fde6": 0.8, "ctrv_b_min_fde6": 1.5,
                "turn_min_fde6": 2.0, "turn_fde6_gap_ci": [0.2, 0.5]},
    "baseline": {"min_ade6": 0.6, "vocabulary_ade": 0.15, "min_fde6": 1.2, "mr2": 0.08, "b_min_fde6": 1.0,
                 "turn_min_fde6": 2.5},
}
COUNTERFACTUALS = {
    "windows are turn-heavy": {"metrics.turn_heavy_share": 0.1},
    "CV's MR@2m": {"metrics.cv_turn_mr2": 0.1},
    "gate (b)": {"baseline.min_ade6": 0.85},
    "vocabulary rebuilds": {"baseline.vocabulary_ade": 0.4},
    "tokenizer rebuilds": {"metrics.tokenizer_ade": 0.4},
    "MoCAR learns": {"metrics.train_min_ade6": 1.1},
    "MoCAR minADE6 < SMART-lite's": {"metrics.min_ade6": 0.65},
    "A test: MoCAR minFDE6": {"metrics.fde6_gap_ci": [-0.05, 0.3]},
    "MR@2m <= SMART-lite's": {"metrics.mr2": 0.1},
    "(2) B zero-shot (AV1): MoCAR minFDE6 < SMART-lite's": {"metrics.b_min_fde6": 1.1},
    "(2) B zero-shot (AV1): MoCAR minFDE6 < CTRV's": {"metrics.ctrv_b_min_fde6": 0.7},
    "(3) A turn-heavy": {"metrics.turn_fde6_gap_ci": [-0.1, 0.4]},
}


def test_every_check_of_the_verdict_can_fail_alone_and_smart_lites_numbers_as_mocars_fail():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_a_gap_whose_mean_favours_mocar_but_whose_interval_reaches_zero_is_no_win():
    checks = verdict({**PASSING["metrics"], "fde6_gap_ci": [0.0, 0.4]}, PASSING["baseline"])
    assert [rule for rule, holds in checks.items() if not holds] == [r for r in checks if r.startswith("(1) A test: MoCAR minFDE6")]


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "mocar" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]


def test_over_seeds_an_interval_check_holds_only_when_every_seeds_interval_is_above_0():
    from proceedings.core.seeds import mean_record

    seeds = [{**PASSING["metrics"], "fde6_gap_ci": ci} for ci in ([0.1, 0.3], [0.2, 0.5])]
    assert all(verdict(mean_record(seeds), PASSING["baseline"]).values())
    seeds[1]["fde6_gap_ci"] = [-0.01, 0.4]
    checks = verdict(mean_record(seeds), PASSING["baseline"])
    assert [rule for rule, holds in checks.items() if not holds] == [r for r in checks if r.startswith("(1) A test: MoCAR minFDE6")]
