"""User controls: the waypoint round trip, traj.json errors, bad depth, and the CogVideoX backend's fast stop."""

import json
import time

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing import drive_world as dw
from proceedings.motionforcing.camera import project, world_to_camera
from proceedings.motionforcing.cogvideox import require_weights
from proceedings.motionforcing.waypoints import check_depth, ego_poses, from_waypoints, parse_traj, resolve_overlaps


def test_gt_tracks_as_pixel_waypoints_come_back_within_half_a_pixel():
    clip = dw.sample(7, 8, 32)
    ids = {k + 1: clip.ids[0] == k + 1 for k in range(len(clip.radii0))}
    waypoints, depths = {}, {}
    for k in range(len(clip.radii0)):
        world = np.stack([clip.boxes[k, :, 0], clip.boxes[k, :, 3], clip.boxes[k, :, 1]], -1)
        uv0, z0 = project(world_to_camera(world, clip.cams[0]), clip.K)  # the tracks drawn on I0
        waypoints[k + 1], depths[k + 1] = uv0.tolist(), float(z0[0])
    traj = from_waypoints(ids, waypoints, clip.depth[0], clip.K, 8, cams=clip.cams, depths=depths)
    assert np.abs(traj.centres - clip.centres).max() <= 0.5


def test_an_ego_path_gives_poses_along_its_tangent():
    poses = ego_poses(5, [[0.0, 4.0], [0.0, 8.0]])
    assert np.allclose(poses[:, 0], 0) and np.allclose(poses[:, 2], 0) and np.allclose(poses[:, 1], [0, 2, 4, 6, 8])


MASKS = {3: np.ones((32, 32), bool)}


@pytest.mark.parametrize("objects, message", [
    ([{"mask_id": 3, "waypoints": [[10, 10], [100, 10]]}], r"objects\[0\] \(mask_id 3\) waypoint 1 .* outside"),
    ([{"mask_id": 9, "waypoints": [[10, 10]]}], r"objects\[0\] has mask_id 9, not in the masks"),
    ([{"mask_id": 3, "waypoints": [[10, float("nan")]]}], r"objects\[0\] \(mask_id 3\) waypoint 0 .* not two finite"),
    ([{"mask_id": 3, "waypoints": []}], r"objects\[0\] \(mask_id 3\) has no waypoints"),
])
def test_each_bad_trajectory_names_the_object_and_the_index(objects, message):
    text = json.dumps({"frames": 8, "objects": objects}).replace("NaN", "NaN")
    with pytest.raises(ProceedingsError, match=message):
        parse_traj(text, MASKS, 32, 32)


def test_frames_not_4k_plus_1_are_refused_by_the_cogvideox_backend_only():
    text = json.dumps({"frames": 8, "objects": [{"mask_id": 3, "waypoints": [[4, 4]]}]})
    assert parse_traj(text, MASKS, 32, 32)["frames"] == 8
    with pytest.raises(ProceedingsError, match="4k \\+ 1"):
        parse_traj(text, MASKS, 32, 32, backend="cogvideox")


@pytest.mark.parametrize("depth", [np.ones((32, 32)), np.ones((16, 32)), np.full((32, 32), np.nan)])
def test_constant_misshaped_or_nan_depth_is_an_error(depth):
    with pytest.raises(ProceedingsError, match="depth"):
        check_depth(depth, 32)


def test_the_cogvideox_backend_without_local_weights_stops_at_once_with_the_layout(tmp_path):
    start = time.perf_counter()
    with pytest.raises(ProceedingsError, match="model_index.json"):
        require_weights(tmp_path, tmp_path)
    with pytest.raises(ProceedingsError, match="--base not given"):
        require_weights(None, None)
    assert time.perf_counter() - start < 5


def test_overlapping_masks_give_each_shared_pixel_to_the_nearer_object_with_a_warning(caplog):
    depth = np.tile(np.linspace(5.0, 20.0, 32)[:, None], (1, 32))  # depth grows down the rows
    near, far = np.zeros((32, 32), bool), np.zeros((32, 32), bool)
    near[0:12, 4:20], far[8:24, 10:28] = True, True  # median depth: near 7.7 m, far 12.5 m
    with caplog.at_level("WARNING"):
        out = resolve_overlaps({1: far, 2: near}, depth)
    assert "overlap" in caplog.text
    assert (out[2] == near).all() and (out[1] == far & ~near).all()
    assert resolve_overlaps({1: far}, depth)[1] is far
    hidden = near & far  # wholly inside the nearer mask: dropped
    assert list(resolve_overlaps({1: hidden, 2: near}, depth)) == [2]


def test_the_paper_scale_without_weights_stops_before_torch_loads_naming_the_layout(tmp_path):
    import os
    import resource
    import subprocess
    import sys

    script = ("import sys\nfrom proceedings.core.errors import ProceedingsError\nfrom proceedings.registry import get_system\n"
              "try:\n    get_system('motionforcing').reproduce('paper')\nexcept ProceedingsError as err:\n"
              "    print(err)\nprint('torch loaded' if 'torch' in sys.modules else 'torch not loaded')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCEEDINGS_MOTIONFORCING_")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                         cwd=tmp_path).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert "$PROCEEDINGS_MOTIONFORCING_BASE not given" in out and "model_index.json" in out
    assert out.rstrip().endswith("torch not loaded")  # torch's import alone is 3-5 CPU-s here
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 5
