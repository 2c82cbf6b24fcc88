"""The curriculum and coupled-teacher ablations (spec §2.5; issue 31: README only): what each changes, that they
start from B2's half and train beside OopsWorld, and their read on the high-dynamic / composite split."""

from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn as nn

from proceedings.oopsworld.ablations import ABLATIONS, ablation_setting, ablation_split, score_ablations
from proceedings.oopsworld.data import HIGH_DYNAMIC, sample_episode
from proceedings.oopsworld.experiment import CONFIGS
from proceedings.oopsworld.generator import ChunkGenerator, GeneratorConfig
from proceedings.oopsworld.training import DistillConfig, TrainConfig, segment_data, train_distill

MICRO = replace(CONFIGS["tiny"], channels=(8, 16, 16), steps=2, batch=2, easy_episodes=1, ablations=True)


@pytest.fixture(scope="module")
def data():
    return segment_data([sample_episode(s, segments=2, stage=None) for s in range(4)], "structured")


class Recorder(nn.Module):
    """A generator that logs the tokens of every call, tagged with its role."""

    def __init__(self, model: ChunkGenerator, tag: str, log: list):
        super().__init__()
        self.model, self.tag, self.log = model, tag, log

    def forward(self, history, values, mask):
        self.log.append((self.tag, values.clone()))
        return self.model(history, values, mask)


@pytest.mark.parametrize("surface", ["explicit", "implicit"])
def test_a_coupled_teacher_reads_the_students_operation_tokens_and_the_decoupled_one_the_scene(data, surface):
    torch.manual_seed(0)
    tiny = GeneratorConfig(channels=(8, 16, 16), token_dim=16)
    log: list = []
    student, teacher = Recorder(ChunkGenerator(tiny), "student", log), Recorder(ChunkGenerator(tiny), "teacher", log)
    train_distill(student, teacher, data, TrainConfig(steps=3, batch=2),
                  DistillConfig(curriculum=False, teacher_surface=surface))
    pairs = [(log[i - 1][1], values) for i, (tag, values) in enumerate(log) if tag == "teacher"]
    assert len(pairs) == 3 and all(log[i - 1][0] == "student" for i, (t, _) in enumerate(log) if t == "teacher")
    same = [a.shape == b.shape and torch.equal(a, b) for a, b in pairs]
    assert all(same) if surface == "implicit" else not any(same)


def test_each_ablation_changes_one_thing_of_the_distillation():
    arms = {"teacher": object(), "b2": object()}
    base = DistillConfig()
    teacher, setting = ablation_setting("no_curriculum", arms, base)
    assert teacher is arms["teacher"] and setting == replace(base, curriculum=False)
    teacher, setting = ablation_setting("coupled_teacher", arms, base)
    assert teacher is arms["b2"] and setting == replace(base, teacher_surface="implicit")
    with pytest.raises(ValueError, match="no_curriculum"):
        ablation_setting("no_teacher", arms, base)


def test_the_ablations_start_from_b2s_half_train_beside_oopsworld_and_are_read_on_the_high_dynamic_split(
        data, monkeypatch):
    import proceedings.oopsworld.experiment as experiment

    calls = []
    real = experiment.train_distill

    def spy(student, teacher, data, config, distill, *args, **kwargs):
        calls.append((teacher, distill, {k: v.clone() for k, v in student.state_dict().items()}))
        return real(student, teacher, data, config, distill, *args, **kwargs)

    monkeypatch.setattr(experiment, "train_distill", spy)
    arms, losses = experiment.train_arms(MICRO, data, {})
    assert set(arms) == {"teacher", "b2", "oopsworld", *ABLATIONS} and set(losses) == set(arms)
    (t0, d0, s0), (t1, d1, s1), (t2, d2, s2) = calls
    assert (t0, t1, t2) == (arms["teacher"], arms["teacher"], arms["b2"])
    assert (d0.curriculum, d1.curriculum, d2.curriculum) == (True, False, True)
    assert (d0.teacher_surface, d1.teacher_surface, d2.teacher_surface) == ("explicit", "explicit", "implicit")
    assert all(torch.equal(s0[k], s1[k]) and torch.equal(s0[k], s2[k]) for k in s0)  # one start: B2 at N/2
    episodes = ablation_split(MICRO)
    assert all(op.op in HIGH_DYNAMIC for ep in episodes for p in ep.programs for op in p.ops)
    read = score_ablations(MICRO, arms)
    assert set(read) == {"split", "dd_gt", "oopsworld", *ABLATIONS}
    assert all(np.isfinite(read[a]["change_acc"]) for a in ("oopsworld", *ABLATIONS))
