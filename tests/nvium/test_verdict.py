"""N-vium's verdict can fail: the baseline's numbers as N-vium's, and one counterfactual per check;
the committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.nvium.experiment import verdict
from proceedings.nvium.retrofit_experiment import retrofit_verdict

PASSING = {
    "metrics": {"bpb": 2.20, "bpb_delta": 0.01, "speedup": 1.6, "sampled_mean_depth": 0.5},
    "baseline": {"bpb": 2.19, "bpb_delta": 0.0, "speedup": 1.0, "sampled_mean_depth": 1.0,
                 "unigram_bpb": 4.7, "shallow_bpb_gap": 0.3},
    "intervals": {"metrics.bpb_delta": (-0.01, 0.03)},
}
COUNTERFACTUALS = {
    "both arms beat the unigram": {"metrics.bpb": 4.8},
    "depth matters": {"baseline.shallow_bpb_gap": 0.15},
    "exits early": {"metrics.sampled_mean_depth": 0.95},
    "mean N-vium bpb": {"metrics.bpb_delta": 0.025},
    "upper end of the 95 % seed interval": {"intervals": {"metrics.bpb_delta": (-0.01, 0.05)}},
    "tokens/s ratio": {"metrics.speedup": 1.15},
}
RESULTS = Path(__file__).parents[2] / "results" / "nvium"


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_nvium_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_one_seed_cannot_pass_the_interval_check():
    checks = verdict(PASSING["metrics"], PASSING["baseline"])
    assert [rule for rule, holds in checks.items() if not holds] == [
        "upper end of the 95 % seed interval of that difference <= 0.04 (needs --seeds)"]


def _intervals(record: dict) -> dict | None:
    spread = record.get("seeds", {}).get("spread", {})
    return {path: tuple(s["ci95"]) for path, s in spread.items()} or None


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = RESULTS / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"], _intervals(record)) == record["checks"]


RETROFIT_PASSING = {
    "metrics": {"bpb_delta": 0.03, "speedup": 1.3, "sampled_mean_depth": 0.7},
    "baseline": {"bpb_delta": 0.0, "speedup": 1.0, "sampled_mean_depth": 1.0},
}
RETROFIT_COUNTERFACTUALS = {
    "takes shallow exits": {"metrics.sampled_mean_depth": 0.95},
    "mixture bpb": {"metrics.bpb_delta": 0.06},
    "tokens/s ratio": {"metrics.speedup": 1.1},
}


def test_every_check_of_the_retrofit_verdict_can_fail_alone_and_plain_smollm2_fails():
    assert audit(retrofit_verdict, RETROFIT_PASSING, RETROFIT_COUNTERFACTUALS) == []


def test_the_committed_retrofit_record_re_judges_to_its_stored_checks():
    path = RESULTS / "retrofit.json"
    if not path.exists():
        pytest.skip("no committed retrofit record")
    record = json.loads(path.read_text())
    assert retrofit_verdict(record["metrics"], record["baseline"]) == record["checks"]
