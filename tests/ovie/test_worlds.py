"""The ray-caster's exact depth and multi-view consistency, and the real stereo pair."""

import numpy as np
import pytest
import torch

from proceedings.ovie.camera import intrinsics, invert, pixel_rays
from proceedings.ovie.geometry import splat, unproject
from proceedings.ovie.raycaster import Scene, render
from proceedings.ovie.stereo import stereo_check
from proceedings.ovie.worlds import RenderSpec, render_set, room_cameras, room_scene


def test_floor_depth_equals_the_analytic_plane_distance():
    rng = np.random.default_rng(3)
    scene, extent = room_scene(rng)
    empty = Scene(materials=scene.materials, room=scene.room)  # no objects: every floor pixel sees the floor
    cam = room_cameras(rng, extent, pair=False)[0]
    K = intrinsics(48)
    view = render(empty, cam, K, 48)
    to_world = invert(cam)
    dirs = pixel_rays(48, K).reshape(-1, 3) @ to_world[:3, :3].T  # z-depth 1 per unit t
    eye = to_world[:3, 3]
    with np.errstate(divide="ignore"):
        t = np.where(dirs[:, 1] < 0, -eye[1] / dirs[:, 1], np.inf)
    hit = eye + np.where(np.isfinite(t), t, 0)[:, None] * dirs
    lo, hi = scene.room[0], scene.room[1]
    floor = np.isfinite(t) & (hit[:, 0] > lo[0]) & (hit[:, 0] < hi[0]) & (hit[:, 2] > lo[2]) & (hit[:, 2] < hi[2])
    assert floor.sum() > 200
    depth = view.depth.reshape(-1)[floor]
    assert np.abs(depth - t[floor]).max() / t[floor].min() <= 1e-3


def test_a_true_depth_warp_of_view_one_matches_the_view_two_render():
    pairs = render_set(RenderSpec("A", 6, 64, 11, pairs=True), cache=False)
    K = intrinsics(64)
    points = unproject(torch.as_tensor(pairs["depth"]).double(), K)
    warped, visible = splat(torch.as_tensor(pairs["rgb"]).double(), points, torch.as_tensor(pairs["valid"]), K,
                            torch.as_tensor(pairs["T"]).double(),
                            normals=torch.as_tensor(pairs["normal"]).permute(0, 2, 3, 1).double())
    close = ((warped - torch.as_tensor(pairs["tgt_rgb"]).double()).abs().amax(1) < 0.05)[visible]
    assert visible.float().mean() > 0.5 and close.float().mean() >= 0.90


@pytest.fixture(scope="module")
def stereo():
    return stereo_check()


def test_the_motorcycle_warp_with_true_disparity_beats_copying_by_5_db(stereo):
    assert stereo.warp_psnr >= stereo.copy_psnr + 5.0
    assert 0.6 < stereo.visible_fraction < 1.0
