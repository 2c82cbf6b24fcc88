"""Frame algebra: exact transitions of ground-truth segments compose to the track's endpoint."""

import math

import numpy as np
import pytest
import torch

from proceedings.mocar.frames import boundaries, place, rollout_frames, segment_poses, segments

from .conftest import arc


def track(kind: str):
    n = 61
    if kind == "straight":
        return arc(n, 12.0, 0.0, heading=0.3)
    if kind == "circle":
        return arc(n, 8.0, 2 * math.pi / 6.0, start=(100.0, -40.0))  # a full circle in the 6 s
    if kind == "u-turn":
        return arc(n, 5.0, math.pi / 6.0, heading=-2.0)
    xy = np.tile([[3.0, 4.0]], (n, 1))
    return xy, np.full(n, 1.1)  # stationary


@pytest.mark.parametrize("kind", ["straight", "circle", "u-turn", "stationary"])
def test_composing_the_exact_transitions_of_12_segments_reaches_the_endpoint_within_1e_5_m(kind):
    xy, heading = track(kind)
    xy, heading = torch.tensor(xy, dtype=torch.float64), torch.tensor(heading, dtype=torch.float64)
    times = boundaries(0, 0, 12)
    points, _, transitions = segments(xy, heading, times)
    start = segment_poses(xy, heading, times)[0]
    end = rollout_frames(start, transitions)[-1]
    assert (end[:2] - xy[-1]).norm() < 1e-5
    assert abs(math.remainder(float(end[2] - heading[-1]), 2 * math.pi)) < 1e-9
    assert (place(points, start, transitions) - xy[1:]).norm(dim=-1).max() < 1e-5


def test_segments_are_endpoint_normalised_and_invariant_to_moving_the_track():
    xy, heading = track("u-turn")
    xy, heading = torch.tensor(xy), torch.tensor(heading)
    times = boundaries(0, 0, 12)
    a = segments(xy, heading, times)
    rot = torch.tensor([[math.cos(1.0), -math.sin(1.0)], [math.sin(1.0), math.cos(1.0)]], dtype=xy.dtype)
    b = segments(xy @ rot.T + torch.tensor([500.0, -20.0], dtype=xy.dtype), heading + 1.0, times)
    for x, y in zip(a, b):
        assert torch.allclose(x, y, atol=1e-9)
    assert torch.allclose(a[0][:, -1], a[2][:, :2])  # a segment's last point is its transition
