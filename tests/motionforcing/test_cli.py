"""The user's verbs: the CogVideoX backend stops at once without weights; bad runs and inputs are one-line errors;
MP4s are written whole."""

import time

import numpy as np
import pytest
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing.cli import app
from proceedings.motionforcing.video_io import write_mp4

runner = CliRunner()


def _inputs(tmp_path):
    paths = {name: tmp_path / name for name in ("i0.png", "depth.npy", "masks.npz", "traj.json")}
    for path in paths.values():
        path.write_bytes(b"")
    return paths


def test_generate_with_cogvideox_and_no_weights_exits_in_under_5_s_naming_the_layout(tmp_path):
    p = _inputs(tmp_path)
    start = time.perf_counter()
    result = runner.invoke(app, ["generate", "--backend", "cogvideox", "--image", str(p["i0.png"]), "--depth",
                                 str(p["depth.npy"]), "--masks", str(p["masks.npz"]), "--traj", str(p["traj.json"]),
                                 "--out", str(tmp_path / "out"), "--base", str(tmp_path)])
    assert time.perf_counter() - start < 5
    assert isinstance(result.exception, ProceedingsError)
    assert "model_index.json" in str(result.exception) and "\n" not in str(result.exception)
    assert not (tmp_path / "out").exists()


def test_generate_from_a_folder_that_is_not_a_run_is_refused(tmp_path):
    p = _inputs(tmp_path)
    result = runner.invoke(app, ["generate", "--run", str(tmp_path), "--image", str(p["i0.png"]), "--depth",
                                 str(p["depth.npy"]), "--masks", str(p["masks.npz"]), "--traj", str(p["traj.json"]),
                                 "--out", str(tmp_path / "out")])
    assert isinstance(result.exception, ProceedingsError) and "no config.json" in str(result.exception)


def test_an_mp4_is_written_whole_and_leaves_no_partial_file(tmp_path):
    import imageio.v3 as iio

    frames = np.random.default_rng(0).random((5, 3, 16, 16)).astype(np.float32)
    path = write_mp4(tmp_path / "clip.mp4", frames, upscale=4)
    assert iio.imread(path).shape[:3] == (5, 64, 64)
    assert [p.name for p in tmp_path.iterdir()] == ["clip.mp4"]


def test_data_refuses_an_ego_variant_count_that_is_not_a_multiple_of_four(tmp_path):
    result = runner.invoke(app, ["data", "--clips", "6", "--ego-variants", "--out", str(tmp_path)])
    assert isinstance(result.exception, ProceedingsError)
