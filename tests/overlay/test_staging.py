"""A staged run keeps finished stages in a folder named by its configuration and code; the paper preset builds
and takes its first training steps on the CPU."""

from dataclasses import replace

import pytest

from proceedings.overlay.experiment import CONFIGS, experiment_config, run_folder, stage


def test_a_finished_stage_is_computed_once_and_then_read_back(tmp_path):
    calls = []
    compute = lambda: calls.append(1) or {"answer": 42}  # noqa: E731
    assert stage(tmp_path, "e1", compute) == {"answer": 42} == stage(tmp_path, "e1", compute)
    assert len(calls) == 1
    assert stage(None, "e1", compute) == {"answer": 42} and len(calls) == 2  # unstaged: always computed


def test_the_run_folder_changes_with_the_setting_and_the_seed_and_tiny_is_not_staged():
    small = experiment_config("small", 0)
    assert run_folder(small, "small", 0) != run_folder(replace(small, train_images=7), "small", 0)
    assert run_folder(small, "small", 0) != run_folder(experiment_config("small", 1), "small", 1)
    assert run_folder(CONFIGS["tiny"], "tiny", 0) is None


@pytest.mark.slow  # the paper preset's MiniLM encoder imports transformers (~6 CPU-s in all)
def test_the_paper_preset_builds_and_takes_its_first_training_steps_on_the_cpu(tmp_path):
    import math

    import torch

    from proceedings.core.runtime import load_checkpoint
    from proceedings.overlay.dataset import layout_set, make_examples
    from proceedings.overlay.experiment import data_seed
    from proceedings.overlay.flow import sample, train
    from proceedings.overlay.text_encoder import text_encoder

    cfg = experiment_config("paper", 0)
    assert run_folder(cfg, "paper", 0) is not None  # staged, like small
    encoder = text_encoder(cfg.encoder)
    examples = make_examples("dense", data_seed(0, "train"), 4, cfg.train_size, "rich", encoder)
    data = layout_set(examples, encoder, cfg.max_objects)
    checkpoint = tmp_path / "dense.pt"
    model, log = train(data, replace(cfg.model, text_dim=encoder.dim), cfg.train, checkpoint=checkpoint, stop_at=2)
    assert len(log.losses) == 2 and all(math.isfinite(loss) for loss in log.losses)
    state = load_checkpoint(checkpoint)
    assert state["step"] == 2 and state["config"]["steps"] == cfg.train.steps == 1500
    images = sample(model, data.take(slice(0, 2)), steps=1, guidance=cfg.guidance)
    assert images.shape == (2, 3, cfg.train_size, cfg.train_size) and torch.isfinite(images).all()
