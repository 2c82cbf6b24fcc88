"""Condition videos: the ego warp (spec §8 check 1), the point video and its masks (check 2)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view

from proceedings.motionforcing import drive_world as dw
from proceedings.motionforcing.camera import FAR
from proceedings.motionforcing.conditions import ego_warp, mask, point_video
from proceedings.motionforcing.masked_point_recovery import mpr_mask


def test_a_stationary_ego_warps_to_depth0_times_the_static_mask_exactly():
    clip = dw.sample(0, 4, 32)
    still = np.repeat(clip.cams[:1], 4, 0)
    warp = ego_warp(clip.depth[0], clip.static_mask[0], clip.K, still)
    expected = clip.depth[0] * clip.static_mask[0] * (clip.depth[0] < FAR)  # sky lies at infinity: not splatted
    assert all(np.array_equal(w, expected) for w in warp)


def _log_error_to_pixel_range(warp: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """|log warp - log GT| beyond the GT range of the pixel's 3x3 neighbourhood: the nearest-pixel scatter
    moves a point by up to half a pixel, and near the horizon one row spans tens of metres at 32 px."""
    window = sliding_window_view(np.pad(np.log(depth), 1, mode="edge"), (3, 3))
    logw = np.log(np.where(warp > 0, warp, 1))
    return np.maximum(window.min((-1, -2)) - logw, 0) + np.maximum(logw - window.max((-1, -2)), 0)


def test_a_moving_ego_warp_matches_gt_static_depth_on_95_percent_of_covered_pixels():
    right, covered, moved_right, moved = 0, 0, 0, 0
    for seed in range(4):
        clip = dw.sample(seed, 8, 32)
        warp = ego_warp(clip.depth[0], clip.static_mask[0], clip.K, clip.cams)
        frozen = clip.depth[0] * clip.static_mask[0] * (clip.depth[0] < FAR)
        for t in range(1, 8):
            cov = (warp[t] > 0) & clip.static_mask[t]
            ok = _log_error_to_pixel_range(warp[t], clip.depth[t]) < 0.05
            right, covered = right + (ok & cov).sum(), covered + cov.sum()
            wrong_if_frozen = cov & (_log_error_to_pixel_range(frozen, clip.depth[t]) >= 0.05) & (frozen > 0)
            moved_right, moved = moved_right + (ok & wrong_if_frozen).sum(), moved + wrong_if_frozen.sum()
    assert right / covered >= 0.95
    assert moved > 40 and moved_right / moved >= 0.9  # where the pose matters, the warp is right


def test_disks_sit_on_the_gt_projections_with_radius_r0_d0_over_dt():
    clip = dw.sample(5, 8, 32)
    A = len(clip.radii0)
    for k in range(A):
        alone = np.zeros((A, 8), bool)
        alone[k] = True
        video, _ = point_video(clip.centres, clip.centre_depth, clip.radii0, alone, 32)
        for t in range(8):
            alpha = video[t].max(0)
            radius = clip.radii0[k] * clip.centre_depth[k, 0] / clip.centre_depth[k, t]
            u, v = clip.centres[k, t]
            if radius < 1 or not (radius + 1 < u < 31 - radius and radius + 1 < v < 31 - radius):
                continue  # only disks wholly inside the image have their centroid at the centre
            grid = np.arange(32) + 0.5
            centroid = np.array([(alpha.sum(0) * grid).sum(), (alpha.sum(1) * grid).sum()]) / alpha.sum()
            assert np.linalg.norm(centroid - clip.centres[k, t]) <= 0.5
            assert abs(alpha.sum() - np.pi * radius ** 2) <= 0.25 * np.pi * radius ** 2 + 1


@settings(max_examples=40, deadline=None)
@given(mode=st.sampled_from(["full", "drop", "span", "future", "keyframes", "mpr"]), agents=st.integers(1, 4),
       frames=st.integers(4, 9), seed=st.integers(0, 10_000))
def test_every_mask_mode_zeroes_exactly_its_points_and_the_valid_channel_agrees(mode, agents, frames, seed):
    rng = np.random.default_rng(seed)
    given_points = mpr_mask(agents, frames, rng) if mode == "mpr" else mask(mode, agents, frames, rng)
    centres = np.stack([np.stack([np.full(frames, 4.0 + 7 * k), np.full(frames, 16.0)], -1) for k in range(agents)])
    video, valid = point_video(centres, np.full((agents, frames), 10.0), np.full(agents, 2.0), given_points, 32)
    for k in range(agents):
        for t in range(frames):
            drawn = video[t][:, 16, int(centres[k, t, 0])].sum() > 0
            assert drawn == given_points[k, t]
    assert np.array_equal(valid, given_points.all(0).astype(np.float32))
    if mode == "future":
        cut = int(np.argmin(given_points[0])) if not given_points[0].all() else frames
        assert given_points[:, :cut].all() and not given_points[:, cut:].any()
    if mode == "keyframes":
        assert set(np.nonzero(given_points[0])[0]) == {0, frames // 2, frames - 1}
