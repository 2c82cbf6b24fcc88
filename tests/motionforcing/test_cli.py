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


def _finished_tiny_run(folder):
    """A run folder whose every checkpoint is at its last step (untrained weights: this tests the plumbing)."""
    import json

    import torch

    from proceedings.core.runtime import save_checkpoint
    from proceedings.motionforcing.baselines import direct_net, matched_direct_width
    from proceedings.motionforcing.evaluators import Localiser
    from proceedings.motionforcing.experiment import CONFIGS
    from proceedings.motionforcing.networks import parameters
    from proceedings.motionforcing.stages import stage1_net, stage2_net

    cfg = CONFIGS["tiny"]
    T = cfg.frames
    s1, s2 = stage1_net(T, cfg.width_stage1), stage2_net(T, cfg.width_stage2)
    nets = {"stage1_mpr": (s1, cfg.steps_stage1), "stage1_no_mpr": (s1, cfg.steps_stage1),
            "stage2": (s2, cfg.steps_stage2),
            "direct_mpr": (direct_net(T, matched_direct_width(T, parameters(s1) + parameters(s2))),
                           cfg.steps_stage1 + cfg.steps_stage2),
            "localiser": (Localiser(cfg.localiser_width), cfg.localiser_steps)}
    for name, (net, steps) in nets.items():
        save_checkpoint(folder / f"{name}.pt", {"model": net.state_dict(), "step": steps,
                                                "optimiser": torch.optim.AdamW(net.parameters()).state_dict(),
                                                "log": {"losses": [], "wall_s": 0.0, "cpu_s": 0.0},
                                                "readout_fitted": True})
    (folder / "config.json").write_text(json.dumps({"scale": "tiny", "seed": 0}))


def _generate_args(tmp_path) -> list[str]:
    """A finished tiny run folder and a user's inputs (I0, its depth, masks, a causal traj.json) for `generate`."""
    import json

    import imageio.v3 as iio

    from proceedings.motionforcing import drive_world as dw

    run = tmp_path / "run"
    run.mkdir()
    _finished_tiny_run(run)
    clip = dw.sample(42, 6, 24, agents=(2, 3))
    iio.imwrite(tmp_path / "i0.png", (clip.rgb[0].transpose(1, 2, 0) * 255).round().astype(np.uint8))
    np.save(tmp_path / "depth.npy", clip.depth[0])
    ids = [k + 1 for k in range(len(clip.radii0))]
    np.savez(tmp_path / "masks.npz", masks=np.stack([clip.ids[0] == i for i in ids]), ids=np.array(ids))
    traj = {"frames": 6, "objects": [{"mask_id": i, "waypoints": clip.centres[i - 1][::2].tolist()} for i in ids],
            "ego": {"waypoints": [[0, 3], [0.5, 7]], "speed_weights": [1, 1, 0.5]}, "causal": True}
    (tmp_path / "traj.json").write_text(json.dumps(traj))
    return ["generate", "--run", str(run), "--image", str(tmp_path / "i0.png"), "--depth", str(tmp_path / "depth.npy"),
            "--masks", str(tmp_path / "masks.npz"), "--traj", str(tmp_path / "traj.json"), "--out", str(tmp_path / "out")]


def test_generate_writes_the_condition_videos_then_depth_and_rgb(tmp_path):
    import imageio.v3 as iio

    result = runner.invoke(app, _generate_args(tmp_path))
    assert result.exception is None, result.output
    for name in ("points", "ego_warp", "depth", "rgb"):
        assert iio.imread(tmp_path / "out" / f"{name}.mp4").shape[0] == 6
    points = iio.imread(tmp_path / "out" / "points.mp4")
    assert points[0].max() > 100 and points[-1].max() < 40  # causal: the second half's points are masked


def test_a_failed_generation_leaves_the_condition_videos_and_no_depth_or_rgb(tmp_path, monkeypatch):
    from proceedings.motionforcing import generation

    def fail(*args, **kwargs):
        raise RuntimeError("generation failed")

    monkeypatch.setattr(generation, "shape", fail)
    result = runner.invoke(app, _generate_args(tmp_path))
    assert isinstance(result.exception, RuntimeError)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["ego_warp.mp4", "points.mp4"]


def test_bench_times_generation_and_every_evaluator_per_clip_and_refuses_the_paper_scale():
    result = runner.invoke(app, ["bench", "--sizes", "16", "--clips", "1", "--scale", "tiny"], terminal_width=200)
    assert result.exception is None, result.output
    timed = [line for line in result.output.splitlines() if "CPU-s/clip" in line]
    assert [line.split("), ", 1)[1].split(":")[0] for line in timed] == [
        "MF generation (stage 1 + stage 2)", "B1 generation", "localiser (scorable agent-frames)",
        "FVMD-proxy features (LK tracks)", "ego-flow EPE (registration)"]
    assert isinstance(runner.invoke(app, ["bench", "--sizes", "16", "--clips", "1", "--scale", "paper"]).exception,
                      ProceedingsError)


def test_the_python_api_turns_controls_into_depth_and_rgb_and_checks_the_image_size(tmp_path):
    from proceedings.motionforcing import drive_world as dw
    from proceedings.motionforcing.generation import controls, generate, load_run

    _finished_tiny_run(tmp_path)
    cfg, arms = load_run(tmp_path)
    clip = dw.sample(42, 6, 24, agents=(2, 3))
    masks = {k + 1: clip.ids[0] == k + 1 for k in range(len(clip.radii0))}
    traj = {"frames": 6, "objects": [{"mask_id": i, "waypoints": clip.centres[i - 1][::2].tolist()} for i in masks]}
    c = controls(cfg, clip.rgb[0].transpose(1, 2, 0), clip.depth[0], masks, traj)
    depth, rgb = generate(arms, c)
    assert c.points.shape == (6, 3, 24, 24) and c.warp.shape == depth.shape == (6, 24, 24) and rgb.shape == (6, 3, 24, 24)
    assert (depth > 0).all() and 0 <= rgb.min() and rgb.max() <= 1
    with pytest.raises(ProceedingsError, match="the run generates 24x24"):
        controls(cfg, np.zeros((32, 32, 3)), clip.depth[0], masks, traj)
