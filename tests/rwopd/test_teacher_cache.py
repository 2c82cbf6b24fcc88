"""Teacher and warm student are cached apart, keyed by what their weights depend on."""

import json
from dataclasses import replace

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.experiment import Config
from proceedings.rwopd.teacher import base_model, prepared_models, student_key, teacher_key

# Micro models and no student warm-up, so the student's weights are exactly where they were cut from.
CFG = Config(model="tiny:32x2", train_pairs=20, teacher_steps=2, teacher_batch=2, teacher_lr=1e-2, student_layers=1,
             student_init="teacher", student_warm_steps=0)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh rwopd cache; the shared one (de-quantised base weights, tokenizer) stays where it is."""
    monkeypatch.setattr("proceedings.rwopd.teacher.cache_root", lambda: tmp_path)
    return tmp_path / "rwopd"


def test_unknown_student_init_is_a_clear_error_before_anything_is_built(cache):
    with pytest.raises(ProceedingsError, match="unknown student_init 'bogus'.*teacher, base"):
        prepared_models(replace(CFG, student_init="bogus"))
    assert not cache.exists()


def test_keys_follow_the_settings_each_model_depends_on():
    assert teacher_key(CFG, 0) == teacher_key(replace(CFG, student_layers=2, student_warm_steps=9, student_lr=1), 0)
    assert teacher_key(CFG, 0) != teacher_key(replace(CFG, teacher_steps=3), 0) != teacher_key(CFG, 1)
    for change in ({"student_layers": 2}, {"student_warm_steps": 1}, {"student_lr": 1.0}, {"teacher_steps": 3},
                   {"student_init": "base"}, {"train_pairs": 21}):
        assert student_key(replace(CFG, **change), 0) != student_key(CFG, 0), change
    base = replace(CFG, student_init="base")  # a student cut from the base model does not depend on the teacher
    assert student_key(base, 0) == student_key(replace(base, teacher_steps=3), 0)
    assert teacher_key(CFG, 0) in student_key(CFG, 0) and "teacher" not in student_key(base, 0)


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_student_is_cut_from_the_teacher_and_a_new_student_reuses_the_cached_teacher(cache):
    teacher, student, _, info = prepared_models(CFG)
    assert torch.equal(student.model.layers[0].mlp.up_proj.weight, teacher.model.layers[0].mlp.up_proj.weight)
    assert len(student.model.layers) == 1 and len(teacher.model.layers) == 2
    assert info["teacher_build_s"] >= 0 and info["student_cached_at"] != info["teacher_cached_at"]
    teacher_build = (cache / teacher_key(CFG, 0) / "build.json").read_text()

    wider = replace(CFG, student_layers=2)
    teacher2, student2, _, _ = prepared_models(wider)
    assert (cache / teacher_key(CFG, 0) / "build.json").read_text() == teacher_build  # not rebuilt
    assert len(student2.model.layers) == 2 and (cache / student_key(wider, 0) / "build.json").exists()
    for p, q in zip(student2.parameters(), teacher2.parameters()):
        assert torch.equal(p, q)  # all layers kept and no warm-up: the student is the teacher

    base = replace(CFG, student_init="base")
    _, from_base, _, _ = prepared_models(base)
    untrained, _ = base_model(CFG.model, 0)
    assert torch.equal(from_base.model.layers[0].mlp.up_proj.weight, untrained.model.layers[0].mlp.up_proj.weight)
    assert not torch.equal(from_base.model.layers[0].mlp.up_proj.weight, teacher.model.layers[0].mlp.up_proj.weight)
    assert json.loads((cache / teacher_key(CFG, 0) / "build.json").read_text())["losses"]


def test_full_depth_student_is_the_default_and_has_its_own_key():
    from proceedings.rwopd.experiment import CONFIGS

    assert CONFIGS["small"].student_layers is None and CONFIGS["small"].student_init == "base"
    assert CONFIGS["small"].teacher_epochs >= 1.0 and CONFIGS["small"].heldout >= 96
    assert "student-fullL-" in student_key(replace(CFG, student_layers=None), 0)


def test_the_arm_pool_is_weighted_toward_temporal_tasks_and_disjoint_from_the_heldout_split():
    from collections import Counter

    from proceedings.rwopd.experiment import arm_pool, heldout_tasks

    cfg = replace(CFG, train_pairs=50, heldout=12)
    counts = Counter(p.category for p in arm_pool(cfg, 0))
    assert counts == {"combinational": 10, "bounded": 20, "unbounded": 20}
    assert not {p.sva for p in heldout_tasks(cfg, 0)} & {p.sva for p in arm_pool(cfg, 0)}
