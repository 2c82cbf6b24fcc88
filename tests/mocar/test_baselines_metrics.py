"""Physics baselines are exact on their own motion models; the metrics give known values on hand-made forecasts."""

import numpy as np
import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.mocar.baselines import constant_velocity, ctrv
from proceedings.mocar.batch import make_batch, segment_counts
from proceedings.mocar.metrics import off_road_rate, paired_bootstrap, per_scenario, summarise

from .conftest import arc, synthetic_scenes


def _one_track(speed, rate):
    scenes = synthetic_scenes(1)
    xy, th = arc(110, speed, rate, start=(10.0, 5.0), heading=0.7)
    scenes.focal[0, :, :2], scenes.focal[0, :, 2] = xy, th
    scenes.focal_clean[0] = xy
    return make_batch(scenes, np.array([0])), torch.tensor(xy[50:])


def test_constant_velocity_is_exact_on_a_constant_velocity_track():
    batch, future = _one_track(9.0, 0.0)
    assert (constant_velocity(batch).points[0, 0] - future).norm(dim=-1).max() < 1e-3


def test_ctrv_middle_turn_rate_is_exact_on_a_constant_turn_track_and_cv_is_not():
    batch, future = _one_track(7.0, 0.25)
    forecast = ctrv(batch, modes=5)
    assert (forecast.points[0, 2] - future).norm(dim=-1).max() < 0.05  # the middle quantile is the estimate
    assert (constant_velocity(batch).points[0, 0] - future).norm(dim=-1).max() > 5.0
    assert torch.isclose(forecast.probabilities.sum(), torch.tensor(1.0))


def test_metrics_on_a_hand_made_forecast():
    truth = np.zeros((1, 60, 2))
    truth[0, :, 0] = np.arange(1, 61) * 0.5  # 30 m straight
    modes = np.repeat(truth[:, None], 2, axis=1).copy()
    modes[0, 0, :, 1] += 3.0  # mode 0: 3 m to the side everywhere
    modes[0, 1, :, 1] += np.linspace(0, 1.0, 60)  # mode 1: drifts to 1 m
    scores = per_scenario(modes, np.array([[0.75, 0.25]]), truth)
    table = summarise(scores)
    assert table["min_fde6"] == pytest.approx(1.0) and table["min_ade6"] == pytest.approx(0.5)
    assert table["min_fde1"] == pytest.approx(3.0) and table["min_ade1"] == pytest.approx(3.0)
    assert table["mr2"] == 0.0 and table["brier_min_fde6"] == pytest.approx(1.0 + 0.75 ** 2)
    assert table["error_by_second"]["6s"] == pytest.approx(1.0)


def test_off_road_counts_endpoints_beyond_2_5_m_of_every_lane_point():
    lanes = [np.array([[0.0, 0.0], [10.0, 0.0]])]
    ends = np.array([[[10.0, 2.0], [10.0, 3.0]]])
    assert off_road_rate(ends, lanes) == 0.5


def test_the_paired_bootstrap_interval_excludes_zero_only_for_a_real_gap():
    rng = np.random.default_rng(0)
    ours = rng.uniform(1, 2, 300)
    assert paired_bootstrap(ours, ours + 0.2 + rng.normal(0, 0.1, 300))[0] > 0
    low, high = paired_bootstrap(ours, ours + rng.normal(0, 0.1, 300))
    assert low < 0 < high


def test_bad_horizons_and_histories_are_one_line_errors():
    with pytest.raises(ProceedingsError, match="not a multiple"):
        segment_counts(50, 62)
    with pytest.raises(ProceedingsError, match="shorter than one"):
        segment_counts(4, 60)
    with pytest.raises(ProceedingsError, match="NaN"):
        per_scenario(np.full((1, 1, 60, 2), np.nan), np.ones((1, 1)), np.zeros((1, 60, 2)))


def test_only_a_segment_beyond_the_physical_limit_is_clamped_and_it_is_counted():
    from proceedings.mocar.forecast import MAX_SEGMENT_M, clamp_transition

    fastest_true_segment = 13.89 * 1.2 * 0.5  # city A's limit x SUMO's speed factor, over 0.5 s
    transitions = torch.tensor([[fastest_true_segment, 0.0, 0.1], [30.0, 40.0, -0.2]])
    clamped, count = clamp_transition(transitions)
    assert count == 1 and torch.equal(clamped[0], transitions[0])
    assert torch.isclose(clamped[1, :2].norm(), torch.tensor(MAX_SEGMENT_M)) and clamped[1, 2] == transitions[1, 2]
