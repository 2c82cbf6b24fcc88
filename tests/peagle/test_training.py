"""Training checkpoints: SIGTERM mid-run saves the state after the step in progress, a slice of the budget
(`until`) pauses there, and a run resumed from either takes exactly the steps of an uninterrupted run."""

import os
import signal

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.peagle.data import TinyTargetConfig, greedy_continuations, pattern_prompts, tiny_target
from proceedings.peagle.drafter import init_drafter
from proceedings.peagle.target import draft_vocabulary, extract_features
from proceedings.peagle.training import TrainConfig, learning_rate, train_drafter, training_progress

LAYERS = (1, 2, 3)


class TerminatedAt(list):
    """The training sequences; fetching the one of step `at` sends this process SIGTERM (a preemption)."""

    def __init__(self, items, at: int, per_step: int):
        super().__init__(items)
        self.fetches, self.at = 0, at * per_step

    def __getitem__(self, index):
        if self.fetches == self.at:
            os.kill(os.getpid(), signal.SIGTERM)
        self.fetches += 1
        return super().__getitem__(index)


@pytest.mark.parametrize("method", ["peagle", "eagle3"])
def test_sigterm_checkpoints_and_the_resumed_run_reproduces_the_uninterrupted_losses(tmp_path, method):
    target = tiny_target()
    prompts = pattern_prompts(6, 10, TinyTargetConfig().vocab, seed=21)
    sequences = extract_features(target, [(s, 10) for s in greedy_continuations(target, prompts, 14)], LAYERS)
    d2t = draft_vocabulary(sequences, 40, TinyTargetConfig().vocab)
    cfg = TrainConfig(steps=8, sequences_per_step=2, lr=3e-3, ttt_steps=3, partitions=2)
    fresh = lambda: init_drafter(target, method, 1, 4, d2t, LAYERS, seed=0)  # noqa: E731

    straight = train_drafter(fresh(), sequences, cfg)
    path = tmp_path / "train.pt"
    stopped = train_drafter(fresh(), TerminatedAt(sequences, at=3, per_step=2), cfg, checkpoint=path, checkpoint_every=3)
    assert stopped.interrupted and stopped.steps == 4  # step 3 was under way: it finishes, then the state is saved
    paused = train_drafter(fresh(), sequences, cfg, checkpoint=path, checkpoint_every=3, until=0.75)
    assert not paused.interrupted and paused.steps == 6  # a slice of the budget, checkpointed at its end
    resumed = train_drafter(fresh(), sequences, cfg, checkpoint=path, checkpoint_every=3)
    assert not resumed.interrupted and resumed.steps == 8 and resumed.resumed_at == 6
    assert resumed.losses == pytest.approx(straight.losses, abs=1e-6)
    with pytest.raises(ProceedingsError, match="another training run"):
        train_drafter(fresh(), sequences, TrainConfig(steps=30, sequences_per_step=2), checkpoint=path)


def test_a_cpu_second_budget_ends_training_once_spent_with_the_schedule_run_over_it():
    target = tiny_target()
    prompts = pattern_prompts(4, 10, TinyTargetConfig().vocab, seed=22)
    sequences = extract_features(target, [(s, 10) for s in greedy_continuations(target, prompts, 14)], LAYERS)
    drafter = init_drafter(target, "peagle", 1, 4, draft_vocabulary(sequences, 40, TinyTargetConfig().vocab), LAYERS)
    cfg = TrainConfig(steps=100_000, sequences_per_step=2, lr=3e-3, partitions=2, cpu_seconds=0.5)
    record = train_drafter(drafter, sequences, cfg)
    per_step = record.cpu_s / record.steps
    assert 2 < record.steps < 100_000 and 0.5 <= record.cpu_s < 0.5 + 3 * per_step
    assert training_progress(cfg, 10, 0.25) == 0.5  # the CPU-seconds, not the step cap, set the pace
    assert learning_rate(cfg, 0.02) == pytest.approx(3e-3) and learning_rate(cfg, 0.999) < 1e-7
