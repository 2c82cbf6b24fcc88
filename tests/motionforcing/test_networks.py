"""The network family's two temporal layouts (spec §2.4): shapes, copy-I0 at start, parameter counts, the
factorised layout's temporal mixing, and a few training steps of every arm in it."""

import numpy as np
import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing import drive_world as dw
from proceedings.motionforcing.baselines import direct_net, matched_direct_width
from proceedings.motionforcing.dataset import ClipSet
from proceedings.motionforcing.networks import TEMPORAL, FactorisedVideoNet, parameters, video_net, video_net_parameters
from proceedings.motionforcing.stages import stage1_net, stage2_net

T, H = 6, 16


def _inputs(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(2, 4, H, H, generator=g), torch.randn(2, T, 5, H, H, generator=g), torch.randn(2, T, 1, H, H, generator=g)


@pytest.mark.parametrize("temporal", TEMPORAL)
def test_each_layout_maps_frames_to_frames_and_starts_as_its_base(temporal):
    static, per_frame, base = _inputs()
    out = video_net(T, 4, 5, 1, 4, temporal)(static, per_frame, base)
    assert out.shape == (2, T, 1, H, H) and torch.equal(out, base)


@pytest.mark.parametrize("temporal", TEMPORAL)
def test_parameter_counts_equal_the_built_networks_and_b1_matches_within_5_percent(temporal):
    for width in (4, (5, 10, 17)):
        net = video_net(8, 4, 5, 3, width, temporal)
        triple = (width, 2 * width, 4 * width) if isinstance(width, int) else width
        assert video_net_parameters(8, 4, 5, 3, triple, temporal) == parameters(net)
    target = parameters(stage1_net(8, 16, temporal)) + parameters(stage2_net(8, 16, temporal))
    assert abs(parameters(direct_net(8, matched_direct_width(8, target, temporal=temporal), temporal)) - target) <= 0.05 * target


def test_the_factorised_layout_mixes_neighbouring_frames_only_through_its_temporal_convs():
    torch.manual_seed(0)
    net = video_net(T, 4, 5, 1, 4, "factorised")
    torch.nn.init.normal_(net.unet.head.weight)
    static, per_frame, base = _inputs()
    nudged = per_frame.clone()
    nudged[:, 0] += 1.0
    moved = (net(static, nudged, base) - net(static, per_frame, base)).abs().amax(dim=(0, 2, 3, 4))
    assert moved[1] > 1e-4  # frame 1 sees frame 0's inputs
    for layer in net.unet.temporal:
        torch.nn.init.zeros_(layer.conv.weight)
        torch.nn.init.zeros_(layer.conv.bias)
    moved = (net(static, nudged, base) - net(static, per_frame, base)).abs().amax(dim=(0, 2, 3, 4))
    assert moved[0] > 1e-4 and moved[1:].max() == 0  # per-frame 2D UNet alone: frames independent


def test_an_unknown_layout_is_a_one_line_error():
    with pytest.raises(ProceedingsError, match="choose one of channels, factorised"):
        video_net(T, 4, 5, 1, 4, "joint")


def test_every_arm_trains_in_the_factorised_layout(tmp_path):
    from dataclasses import replace

    from proceedings.motionforcing.comparison import train_arms
    from proceedings.motionforcing.experiment import CONFIGS

    clips = ClipSet.from_clips([dw.sample(100 + i, 4, 16, agents=(2, 3)) for i in range(6)])
    micro = replace(CONFIGS["tiny"], size=16, frames=4, width_stage1=4, width_stage2=4, steps_stage1=2,
                    steps_stage2=1, localiser_steps=1, localiser_batch=4, localiser_width=4, batch=2)
    arms = train_arms(micro, clips, 0, tmp_path, temporal="factorised")
    assert {name: len(log.losses) for name, log in arms.logs.items() if name != "localiser"} == {
        "stage1_mpr": 2, "stage1_no_mpr": 2, "stage2": 1, "direct_mpr": 3}
    assert all(np.isfinite(log.losses).all() for log in arms.logs.values())
    assert all(isinstance(net, FactorisedVideoNet) for net in (arms.stage1_mpr, arms.stage1_full, arms.stage2, arms.direct))
