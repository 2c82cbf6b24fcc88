"""A staged run keeps finished stages in a folder named by its configuration and code."""

from dataclasses import replace

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
