import random

import numpy as np
import pytest
import torch

from proceedings.core import runtime
from proceedings.core.errors import ProceedingsError


def test_seeding_makes_every_generator_repeat():
    def draw():
        return random.random(), np.random.rand(), torch.rand(1).item()

    runtime.seed_everything(7)
    first = draw()
    runtime.seed_everything(7)
    assert draw() == first


def test_checkpoint_resume_continues_the_same_random_stream(tmp_path):
    path = tmp_path / "ckpt.pt"
    assert runtime.load_checkpoint(path) is None
    runtime.seed_everything(0)
    weights = torch.randn(3)
    runtime.save_checkpoint(path, {"step": 1, "weights": weights, "rng": runtime.rng_state()})
    uninterrupted = torch.randn(4)

    state = runtime.load_checkpoint(path)
    runtime.restore_rng_state(state["rng"])
    assert state["step"] == 1 and torch.equal(state["weights"], weights)
    assert torch.equal(torch.randn(4), uninterrupted)


def test_unreadable_checkpoint_names_the_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(ProceedingsError, match="ckpt.pt' cannot be read"):
        runtime.load_checkpoint(path)


def test_thread_count_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(runtime.THREADS_ENV, "3")
    assert runtime.thread_count() == 3
    assert runtime.thread_count(2) == 2
    monkeypatch.setenv(runtime.THREADS_ENV, "many")
    with pytest.raises(ProceedingsError, match="not an integer"):
        runtime.thread_count()
    with pytest.raises(ProceedingsError, match=">= 1"):
        runtime.thread_count(0)


def test_device_and_dtype_choice_on_cpu():
    assert runtime.choose_device("cpu").type == "cpu"
    assert runtime.choose_dtype("auto", "cpu") == torch.float32
    assert runtime.choose_dtype("bf16", "cpu") == torch.bfloat16
    with pytest.raises(ProceedingsError, match="unknown dtype 'float7'"):
        runtime.choose_dtype("float7")
    if not torch.cuda.is_available():
        with pytest.raises(ProceedingsError, match="no CUDA device"):
            runtime.choose_device("cuda")


def test_stopwatch_counts_cpu_time_of_busy_work():
    with runtime.stopwatch() as elapsed:
        sum(i * i for i in range(300_000))
    assert elapsed.cpu_s > 0 and elapsed.wall_s > 0
