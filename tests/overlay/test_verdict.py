"""OverLay++'s verdict can fail: the baseline's numbers as the method's, one counterfactual per check, with
one seed and with seed intervals of the paired differences; the committed records re-judge to their
stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.overlay.experiment import verdict

PASSING = {
    "metrics": {"probe_colour_accuracy_gt": 0.98, "probe_segmenter_miou_gt": 0.9, "sr_e_sparse_bench": 0.8,
                "sr_e_sparse_bench_layout_blind": 0.15, "dense_objects_per_image": 6.6, "density_ratio": 1.67,
                "caption_words_ratio": 8.0, "annotate_front_accuracy": 0.95, "annotate_region_iou": 0.85,
                "o_miou_medium_hard": 0.5, "sr_r_medium_hard": 0.7, "o_miou_gap_ci": [0.05, 0.15],
                "sr_r_gap_ci": [0.05, 0.2], "steps_to_reach_sparse_final_fraction": 0.5},
    "baseline": {"sr_e_sparse_bench": 0.79, "sr_e_sparse_bench_layout_blind": 0.15, "o_miou_medium_hard": 0.4,
                 "sr_r_medium_hard": 0.55, "naive_front_accuracy": 0.6, "naive_region_iou": 0.6},
}
COUNTERFACTUALS = {
    "colour probe": {"metrics.probe_colour_accuracy_gt": 0.9},
    "segmenter's mIoU": {"metrics.probe_segmenter_miou_gt": 0.7},
    "dense-trained model beats its layout-blind": {"metrics.sr_e_sparse_bench_layout_blind": 0.7},
    "sparse-trained model beats its layout-blind": {"baseline.sr_e_sparse_bench_layout_blind": 0.7},
    "dense objects/image": {"metrics.dense_objects_per_image": 7.2},
    "objects ratio": {"metrics.density_ratio": 2.0},
    "caption words ratio": {"metrics.caption_words_ratio": 5.0},
    "front accuracy": {"metrics.annotate_front_accuracy": 0.85},
    "region IoU": {"metrics.annotate_region_iou": 0.75},
    "O-mIoU > sparse": {"metrics.o_miou_gap_ci": [-0.01, 0.1]},
    "SR_R > sparse": {"metrics.sr_r_gap_ci": [-0.02, 0.1]},
    "dense-trained SR_E >= sparse-trained": {"metrics.sr_e_sparse_bench": 0.7},
    "within 70%": {"metrics.steps_to_reach_sparse_final_fraction": 0.75},
}


SEED_INTERVALS = {"metrics.o_miou_gap_medium_hard": [0.04, 0.16], "metrics.sr_r_gap_medium_hard": [0.05, 0.25],
                  "metrics.sr_e_sparse_bench_gap": [-0.02, 0.04], "metrics.annotate_front_accuracy_gap": [0.3, 0.4],
                  "metrics.annotate_region_iou_gap": [0.2, 0.3], "metrics.steps_to_reach_sparse_final_fraction": [0.3, 0.6]}
WITH_SEEDS = {**PASSING, "metrics": {**PASSING["metrics"], "o_miou_gap_ci": {"per_seed": [[0.05, 0.15], [-0.01, 0.1]]}},
              "intervals": SEED_INTERVALS}
SEED_COUNTERFACTUALS = {  # (a dotted key cannot be addressed inside `intervals`: replace the whole dict)
    **COUNTERFACTUALS,
    "front accuracy": {"intervals": {**SEED_INTERVALS, "metrics.annotate_front_accuracy_gap": [-0.01, 0.4]}},
    "region IoU": {"intervals": {**SEED_INTERVALS, "metrics.annotate_region_iou_gap": [-0.01, 0.3]}},
    "O-mIoU > sparse": {"intervals": {**SEED_INTERVALS, "metrics.o_miou_gap_medium_hard": [-0.01, 0.16]}},
    "SR_R > sparse": {"intervals": {**SEED_INTERVALS, "metrics.sr_r_gap_medium_hard": [0.0, 0.25]}},
    "dense-trained SR_E >= sparse-trained": {"intervals": {**SEED_INTERVALS, "metrics.sr_e_sparse_bench_gap": [-0.04, 0.04]}},
    "within 70%": {"intervals": {**SEED_INTERVALS, "metrics.steps_to_reach_sparse_final_fraction": [0.3, 0.75]}},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_the_method_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_with_seeds_each_margin_fails_when_its_seed_interval_reaches_the_wrong_side():
    assert audit(verdict, WITH_SEEDS, SEED_COUNTERFACTUALS) == []


def test_an_arm_that_never_reaches_the_target_or_a_naive_rule_that_ties_fails():
    metrics = {**PASSING["metrics"], "steps_to_reach_sparse_final_fraction": None}
    baseline = {**PASSING["baseline"], "naive_front_accuracy": 0.95}
    failing = [rule for rule, holds in verdict(metrics, baseline).items() if not holds]
    assert len(failing) == 2 and "within 70%" in failing[1] and "front accuracy" in failing[0]


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "overlay" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    intervals = {path: spread["ci95"] for path, spread in (record.get("seeds") or {}).get("spread", {}).items()}
    assert verdict(record["metrics"], record["baseline"], intervals or None) == record["checks"]


def test_the_ablation_splits_the_sparse_bench_gap_into_a_layouts_part_and_a_captions_part():
    from proceedings.overlay.experiment import sparse_bench_gap_parts

    parts = sparse_bench_gap_parts({"sr_e_sparse_bench": 0.86}, {"sr_e_sparse_bench": 0.99}, {"sr_e_sparse_bench": 0.98})
    assert parts["sr_e_sparse_bench_density_gap"] == pytest.approx(-0.01)
    assert parts["sr_e_sparse_bench_caption_gap"] == pytest.approx(-0.12)
    assert sum(parts.values()) == pytest.approx(0.86 - 0.99)
