"""The drive world: bit-identical per seed, exact road depth, agents that move and follow their kinematics."""

import numpy as np

from proceedings.motionforcing import drive_world as dw
from proceedings.motionforcing.camera import CAMERA_HEIGHT, FAR


def test_the_same_seed_renders_bit_identical_clips_and_another_seed_does_not():
    a, b, c = dw.sample(3, 4, 24), dw.sample(3, 4, 24), dw.sample(4, 4, 24)
    assert np.array_equal(a.rgb, b.rgb) and np.array_equal(a.depth, b.depth) and np.array_equal(a.ids, b.ids)
    assert not np.array_equal(a.rgb, c.rgb)


def test_road_depth_equals_the_analytic_plane_depth():
    clip = dw.sample(1, 3, 32)
    rows = np.arange(32)[:, None] + 0.5 - clip.K.cy
    with np.errstate(divide="ignore"):
        plane = np.where(rows > 0, CAMERA_HEIGHT * clip.K.f / rows, np.inf) * np.ones((1, 32))
    ground = (clip.ids[0] == 0) & (clip.depth[0] < FAR) & np.isfinite(plane)
    road_only = ground & (np.abs(clip.depth[0] - plane) < 1.0)  # scenery blocks stand above the plane
    assert road_only.sum() > 200
    assert np.abs(clip.depth[0][road_only] - plane[road_only]).max() < 1e-4


def test_every_agent_moves_at_least_three_pixels_and_stays_in_view():
    for seed in range(4):
        clip = dw.sample(seed, 8, 32)
        assert len(clip.behaviours) >= 2
        motion = np.linalg.norm(clip.centres[:, -1] - clip.centres[:, 0], axis=-1)
        assert (motion >= 3.0).all()
        assert ((clip.centres >= 0) & (clip.centres < 32)).all()


def test_the_second_half_of_an_agent_track_follows_from_its_first_half():
    agent = dw.Agent(3.5, 10.0, 6.0, 1.5, -1.2, np.ones(3), "cut_in")
    t = np.arange(8) * dw.DT
    states = dw.agent_state(agent, t)
    for column in (0, 1):  # lateral: constant speed; longitudinal: constant acceleration
        fit = np.polyfit(t[:4], states[:4, column], 2)
        assert np.allclose(np.polyval(fit, t[4:]), states[4:, column], atol=1e-9)


def test_the_ego_only_variants_share_the_first_frame_and_the_agents():
    clips = dw.sample_ego_variants(2, 4, 24)
    assert len(clips) == 4
    assert all(np.array_equal(c.rgb[0], clips[0].rgb[0]) for c in clips)
    assert all(np.array_equal(c.boxes, clips[0].boxes) for c in clips)
    assert not np.array_equal(clips[0].rgb[-1], clips[2].rgb[-1])
