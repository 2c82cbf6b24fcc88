"""Training: exact resume, the matched direct baseline, and the stages' losses falling."""

import numpy as np
import pytest
import torch

from proceedings.motionforcing import drive_world as dw
from proceedings.motionforcing.baselines import direct_net, matched_direct_width
from proceedings.motionforcing.dataset import ClipSet
from proceedings.motionforcing.masked_point_recovery import batch_sampler
from proceedings.motionforcing.networks import parameters, unet_parameters
from proceedings.motionforcing.stages import shape_loss, stage1_net, stage2_net
from proceedings.motionforcing.training import Paused, TrainConfig, train


@pytest.fixture(scope="module")
def clips() -> ClipSet:
    return ClipSet.from_clips([dw.sample(100 + i, 4, 16, agents=(2, 3)) for i in range(6)])


def _stage1(seed: int = 0):
    torch.manual_seed(seed)
    return stage1_net(4, 4)


def test_resuming_after_n_steps_gives_bit_identical_weights(clips, tmp_path):
    cfg = TrainConfig(steps=6, batch=2, lr=1e-3, seed=0)
    batches = batch_sampler(clips, 2, 0, masked=True)
    straight = _stage1()
    train(straight, shape_loss, batches, cfg)
    resumed = _stage1()
    train(resumed, shape_loss, batches, cfg, tmp_path / "s1.pt", stop_after=3)
    again = _stage1(seed=123)  # a fresh process: other initial weights, overwritten by the checkpoint
    train(again, shape_loss, batches, cfg, tmp_path / "s1.pt")
    for a, b in zip(straight.state_dict().values(), again.state_dict().values()):
        assert torch.equal(a, b)


def test_a_run_past_its_deadline_pauses_with_a_checkpoint(clips, tmp_path):
    with pytest.raises(Paused, match="run the same command again"):
        train(_stage1(), shape_loss, batch_sampler(clips, 2, 0, True), TrainConfig(5, 2), tmp_path / "p.pt", deadline=0.0)
    assert (tmp_path / "p.pt").exists()


def test_the_direct_model_matches_stage1_plus_stage2_in_parameters_within_5_percent():
    for frames, width in ((6, 8), (8, 16)):
        target = parameters(stage1_net(frames, width)) + parameters(stage2_net(frames, width))
        widths = matched_direct_width(frames, target)
        assert abs(parameters(direct_net(frames, widths)) - target) <= 0.05 * target
        assert unet_parameters(4 + 5 * frames, 3 * frames, widths) == parameters(direct_net(frames, widths))


def test_masked_and_full_samplers_draw_the_same_clips_and_mpr_only_removes_points(clips):
    masked, full = batch_sampler(clips, 3, 7, True)(4), batch_sampler(clips, 3, 7, False)(4)
    assert torch.equal(masked.rgb, full.rgb)
    assert not (masked.given & ~full.given).any()


def test_stage1_loss_falls_in_a_few_steps(clips):
    log = train(_stage1(), shape_loss, batch_sampler(clips, 4, 0, False), TrainConfig(steps=25, batch=4, lr=3e-3))
    assert np.mean(log.losses[-5:]) < 0.95 * np.mean(log.losses[:3])


def test_b1_trains_for_stage1_plus_stage2_steps_and_small_gives_each_mf_network_the_same(clips, tmp_path):
    from dataclasses import replace

    from proceedings.motionforcing.comparison import train_arms
    from proceedings.motionforcing.experiment import CONFIGS

    micro = replace(CONFIGS["tiny"], size=16, frames=4, width_stage1=4, width_stage2=4, steps_stage1=3,
                    steps_stage2=2, localiser_steps=1, localiser_batch=4, localiser_width=4, batch=2)
    logs = train_arms(micro, clips, 0, tmp_path).logs
    assert {name: len(log.losses) for name, log in logs.items() if name != "localiser"} == {
        "stage1_mpr": 3, "stage1_no_mpr": 3, "stage2": 2, "direct_mpr": 5}
    small = CONFIGS["small"]  # round 5: one step budget per MF network (README), B1 their sum
    assert small.steps_stage1 == small.steps_stage2


def test_long_is_small_with_6000_steps_per_mf_network():
    from dataclasses import asdict

    from proceedings.motionforcing.experiment import CONFIGS

    small, long = asdict(CONFIGS["small"]), asdict(CONFIGS["long"])  # round 17 (README): only the steps change
    assert {k: v for k, v in long.items() if long[k] != small[k]} == {"steps_stage1": 6000, "steps_stage2": 6000}
