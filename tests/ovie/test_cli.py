"""The user's verbs: one view from an image and a pose file, a trajectory GIF, one-line bad-input errors."""

import json

import numpy as np
import pytest
import torch
from PIL import Image
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.ovie.camera import intrinsics
from proceedings.ovie.cli import app
from proceedings.ovie.depth import load_estimator
from proceedings.ovie.networks import NovelViewNet, save_model
from proceedings.ovie.pose_file import Pose, save_pose

runner = CliRunner()


@pytest.fixture()
def model(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "model.pt"
    net = NovelViewNet(16, intrinsics(16))
    torch.nn.init.normal_(net.body.head.weight, std=0.5)  # untrained, the net copies the source: make the views differ
    save_model(path, net)
    image = tmp_path / "photo.png"
    Image.fromarray((np.random.default_rng(0).random((40, 60)) * 255).astype(np.uint8)).save(image)  # grayscale
    return path, image


def test_render_takes_an_image_and_a_pose_file_and_writes_a_view_or_a_gif(model, tmp_path):
    path, image = model
    pose = save_pose(tmp_path / "pose.json", Pose(np.eye(4)))
    out = tmp_path / "view.png"
    result = runner.invoke(app, ["render", "--ckpt", str(path), "--image", str(image), "--pose", str(pose), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert Image.open(out).size == (16, 16)
    gif = tmp_path / "orbit.gif"
    result = runner.invoke(app, ["render", "--ckpt", str(path), "--image", str(image), "--trajectory", "orbit",
                                 "--frames", "4", "--out", str(gif)])
    assert result.exit_code == 0, result.output
    assert Image.open(gif).n_frames == 4


def test_bad_poses_units_and_small_images_are_refused_in_one_line(model, tmp_path):
    path, image = model
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"convention": "opencv", "T_src_to_tgt": (np.eye(4) * 1.1).tolist(), "units": "meters"}))
    relative = save_pose(tmp_path / "rel.json", Pose(np.eye(4), "relative"))
    small = tmp_path / "small.png"
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(small)
    for args, message in ((["--pose", str(bad)], "not orthonormal"), (["--pose", str(relative)], "--units relative"),
                          (["--pose", str(relative), "--image", str(small), "--units", "relative"], "--upscale")):
        argv = ["render", "--ckpt", str(path), "--image", str(image), *args, "--out", str(tmp_path / "x.png")]
        result = runner.invoke(app, argv)
        assert isinstance(result.exception, ProceedingsError) and message in str(result.exception)
        assert "\n" not in str(result.exception)


def test_a_depth_model_not_on_disk_fails_at_start_up_naming_where_it_looked():
    with pytest.raises(ProceedingsError, match="is not on disk .*models--Ruicheng--no-such-depth-model"):
        load_estimator("hf:Ruicheng/no-such-depth-model")
