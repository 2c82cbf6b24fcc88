"""The device path (issue 25, paper scale: AV2 from --data-dir, Accelerate): batches move whole, training runs
through Accelerate (here on the CPU; no GPU on this machine) and an absent device is a one-line error."""

from dataclasses import fields

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from proceedings.mocar.batch import make_batch
from proceedings.mocar.cli import app
from proceedings.mocar.experiment import CONFIGS, predictor, run_folder
from proceedings.mocar.model import MoCAR
from proceedings.mocar.training import TrainConfig, train
from tests.mocar.test_models import SMALL


def test_a_batch_moves_every_tensor_to_the_device(scenes):
    moved = make_batch(scenes, np.arange(2)).to("meta")
    tensors = [getattr(moved, f.name) for f in fields(moved) if isinstance(getattr(moved, f.name), torch.Tensor)]
    assert len(tensors) == 10 and all(t.device.type == "meta" for t in tensors)


def test_training_through_accelerate_on_the_cpu_learns_and_the_forecast_comes_back_on_the_cpu(scenes):
    torch.manual_seed(0)
    model = MoCAR(SMALL)
    log = train(model, scenes, TrainConfig(steps=3, batch=4, warmup=1), device="cpu")
    assert log.steps == 3 and all(np.isfinite(log.losses))
    forecast = predictor(model, 0)(make_batch(scenes, np.arange(2)))
    assert forecast.points.device.type == "cpu" and torch.isfinite(forecast.points).all()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without CUDA")
def test_train_on_an_absent_cuda_device_is_one_line_naming_it_before_reading_data(tmp_path):
    result = CliRunner().invoke(app, ["train", "--data-dir", str(tmp_path / "nowhere"), "-o", str(tmp_path / "m"),
                                      "--device", "cuda"])
    assert result.exit_code != 0 and "no CUDA device" in str(result.exception)


def test_the_paper_preset_trains_on_the_gpu_when_there_is_one_and_resumes_across_devices():
    assert CONFIGS["paper"].device == "auto" and CONFIGS["small"].device == "cpu"
    assert run_folder(CONFIGS["small"]) == run_folder(type(CONFIGS["small"])(**{**vars(CONFIGS["small"]), "device": "auto"}))


@pytest.mark.slow  # the paper-size arms (d = 128, L = 4): ~10 CPU-s
def test_the_paper_preset_starts_its_arms_matched_and_training_through_accelerate():
    from dataclasses import replace

    from proceedings.mocar.experiment import Splits, build_arms, param_count
    from tests.mocar.conftest import synthetic_scenes

    cfg, scenes = CONFIGS["paper"], synthetic_scenes(100)  # enough segments for SMART-lite's ~1,800 tokens
    arms = build_arms(cfg, Splits(scenes, scenes, scenes, scenes), 0)
    target = param_count(arms["mocar"])
    assert all(abs(param_count(m) / target - 1) <= 0.10 for m in arms.values())
    for model in arms.values():
        log = train(model, scenes, replace(cfg.train, steps=1, batch=4, warmup=1), device=cfg.device)
        assert log.steps == 1 and np.isfinite(log.losses).all()
