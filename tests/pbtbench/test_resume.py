"""An interrupted `reproduce` resumes its own runs and never mixes in runs made under another key."""

from dataclasses import replace

from proceedings.pbtbench.experiment import CONFIGS, keyed_folder, run_key
from proceedings.pbtbench.problem import Benchmark


def test_the_run_key_follows_the_seed_the_configuration_and_the_problems():
    problems = Benchmark.load().select(["toolz-dicttoolz"])
    others = Benchmark.load().select(["boltons-barrellist-mutation"])
    cfg = CONFIGS["tiny"]
    key = run_key(cfg, 0, problems)
    assert key == run_key(cfg, 0, problems)
    assert len({key, run_key(cfg, 1, problems), run_key(replace(cfg, reach_runs=2), 0, problems),
                run_key(cfg, 0, others)}) == 4


def test_a_folder_is_kept_under_its_own_key_and_emptied_under_another(tmp_path):
    folder = keyed_folder(tmp_path / "runs" / "reference", "key-a")
    (folder / "results.jsonl").write_text('{"problem": "p", "run": 0}\n')
    assert (keyed_folder(folder, "key-a") / "results.jsonl").exists()  # the same run: resumed
    assert not (keyed_folder(folder, "key-b") / "results.jsonl").exists()  # another run: started afresh
    assert (folder / "reproduce.key").read_text() == "key-b"
