"""Matched strength and joint training: full-vocabulary colours, detection scores, delta calibration, the learnability
gradient at step 0, the floor against a fading mark, re-calibration that holds the teacher's KL through training,
and `train --resume` refusing another configuration."""

import copy
import json
from dataclasses import replace

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.pro import objectives, strength
from proceedings.pro.config import PolicyConfig
from proceedings.pro.experiment import CONFIGS
from proceedings.pro.key import load_key
from proceedings.pro.policy import WatermarkPolicy
from proceedings.pro.training import WatermarkTrainer


def _trainer(tiny_world, **changes):
    cfg = CONFIGS["tiny"]
    train = replace(cfg.train, **{"steps": 4, "checkpoint_every": 2, "policy_warmup_steps": 10, **changes})
    return WatermarkTrainer(copy.deepcopy(tiny_world[0]), tiny_world[1], train, policy=cfg.policy, kgw=cfg.kgw)


def test_full_vocabulary_policy_colours_a_contexts_top_tokens_like_chance(tiny_world, tiny_blocks):
    model, _ = tiny_world
    policy = WatermarkPolicy.for_model(model, PolicyConfig(output="full"))
    batch = tiny_blocks[:8]
    with torch.no_grad():
        top = model(input_ids=batch).logits.topk(10, dim=-1).indices  # (B, T, 10)
        green = policy(batch).gather(-1, top) > 0
    same_as_top1 = (green[..., 1:] == green[..., :1]).float().mean().item()
    assert abs(same_as_top1 - 0.5) < 0.1  # chance for a balanced policy is 1/2


@pytest.mark.parametrize("output", ["full", "embedding"])
def test_detection_scores_equal_the_full_policy_output_at_the_observed_tokens(tiny_world, tiny_blocks, output):
    policy = WatermarkPolicy.for_model(tiny_world[0], PolicyConfig(output=output))
    batch = tiny_blocks[:4]
    with torch.no_grad():
        full = policy(batch)[:, :-1].gather(-1, batch[:, 1:].unsqueeze(-1)).squeeze(-1)  # (B, T-1)
        assert torch.allclose(policy.token_scores(batch), full, atol=1e-5)


@pytest.mark.parametrize("method", ["pro", "kgw-distill"])
def test_calibration_reaches_the_target_kl_within_5_percent(tiny_world, tiny_blocks, method):
    trainer = _trainer(tiny_world, method=method, target_kl=0.3)
    if method == "pro":
        trainer.warm_start_policy(tiny_blocks)
    found = trainer.calibrate(tiny_blocks[-8:])
    blocks = tiny_blocks[-8:]
    with torch.no_grad():
        original = trainer.split.head(trainer.split.trunk(blocks), teacher=True)
        bias, _ = strength.unit_bias_and_green(trainer.watermark, blocks)
    measured = strength.teacher_kl(original, bias, trainer.delta)  # recomputed at the delta now in use
    assert trainer.delta == found["delta"] and abs(measured - 0.3) <= 0.05 * 0.3
    assert found["teacher_gap"] > 0 and found["teacher_z_per_token"] > 0


def test_recalibration_brings_a_drifted_policys_teacher_back_to_the_target_kl(tiny_world, tiny_blocks):
    trainer = _trainer(tiny_world, target_kl=0.3)
    trainer.warm_start_policy(tiny_blocks)
    trainer.calibrate(tiny_blocks[-8:])
    blocks, original = trainer.reference
    with torch.no_grad():
        trainer.policy.mlp[-1].weight.mul_(3.0)  # the policy strengthens its mark, as joint training does

    @torch.no_grad()
    def kl() -> float:
        return strength.teacher_kl(original, strength.unit_bias_and_green(trainer.policy, blocks)[0], trainer.delta)

    drifted = kl()
    assert drifted > 1.05 * 0.3  # without re-calibration the strengths are no longer matched
    point = trainer.recalibrate()
    assert point["held_out_teacher_kl_before"] == pytest.approx(drifted)
    assert abs(kl() - 0.3) <= 0.01 * 0.3 and point["delta"] == trainer.delta
    assert trainer.strength_path == [{"step": 0, **point}]


def test_training_holds_the_teacher_kl_at_every_recalibration_and_at_release(tiny_pro_run):
    out, _, trainer = tiny_pro_run
    every, steps, target = trainer.config.recalibrate_every, trainer.config.steps, trainer.config.target_kl
    assert [point["step"] for point in trainer.strength_path] == list(range(every, steps + 1, every))
    assert all(abs(point["held_out_teacher_kl"] - target) <= 0.01 * target for point in trainer.strength_path)
    blocks, original = trainer.reference
    with torch.no_grad():
        released = strength.teacher_kl(original, strength.unit_bias_and_green(trainer.policy, blocks)[0],
                                       load_key(out / "key").params["delta"])
    assert abs(released - target) <= 0.01 * target


def test_learnability_term_reaches_the_policy_at_step_0(tiny_world, tiny_blocks):
    trainer = _trainer(tiny_world)
    batch = tiny_blocks[:4]
    hidden = trainer.split.trunk(batch)
    student = trainer.split.head(hidden)  # step 0: the student is the original model
    objectives.learnability(student, trainer.policy(batch)).backward()
    grad = sum(p.grad.abs().sum() for p in trainer.policy.parameters() if p.grad is not None)
    assert grad > 0


def test_the_floor_pushes_a_fading_policy_back_towards_its_calibrated_mark(tiny_world, tiny_blocks):
    trainer = _trainer(tiny_world, target_kl=0.3)
    trainer.warm_start_policy(tiny_blocks)
    floor = trainer.calibrate(tiny_blocks[-8:])["teacher_soft_gap"]
    batch = tiny_blocks[-8:]
    with torch.no_grad():
        original = trainer.split.head(trainer.split.trunk(batch), teacher=True)
        trainer.policy.mlp[-1].weight.mul_(0.05)  # fade: scores near 0 everywhere
        trainer.policy.mlp[-1].bias.zero_()

    def gap():
        scores = trainer.policy(batch)
        return objectives.teacher_gap(original + trainer.delta * (1 + scores) / 2, torch.softmax(original, -1), scores)

    faded = gap()
    loss = objectives.mark_floor(faded, floor)
    assert faded.item() < floor and loss.item() > 0
    optimizer = torch.optim.SGD(trainer.policy.parameters(), lr=1.0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert gap().item() > faded.item()
    assert objectives.mark_floor(torch.tensor(floor * 1.1), floor).item() == 0  # above the floor: no force


@pytest.mark.parametrize("change", [{"target_kl": 0.0}, {"target_kl": -1.0}])
def test_non_positive_target_kl_is_refused_naming_it(tiny_world, change):
    with pytest.raises(ProceedingsError, match="target_kl"):
        _trainer(tiny_world, **change)


def test_non_positive_delta_is_refused_naming_it(tiny_world):
    cfg = CONFIGS["tiny"]
    with pytest.raises(ProceedingsError, match="delta"):
        WatermarkTrainer(copy.deepcopy(tiny_world[0]), tiny_world[1], cfg.train, policy=replace(cfg.policy, delta=0.0))


def test_detect_out_writes_the_scores_as_plain_json(tiny_world, tiny_blocks, tiny_pro_run, tmp_path):
    from typer.testing import CliRunner

    from proceedings.pro.cli import app

    out = tmp_path / "scores.json"
    texts = tmp_path / "texts.jsonl"
    texts.write_text("".join(json.dumps({"text": tiny_world[1].decode(block)}) + "\n" for block in tiny_blocks[:2]))
    done = CliRunner().invoke(app, ["detect", "--key", str(tiny_pro_run[0] / "key"), "--tokenizer", "tiny",
                                    "--input", str(texts), "--out", str(out)])
    assert done.exit_code == 0, done.output
    scores = json.loads(out.read_text())
    assert len(scores) == 2 and all(score["n_scored"] > 0 and "z" in score for score in scores)


def test_cli_train_resume_with_a_changed_flag_is_refused_naming_the_field(tmp_path):
    from typer.testing import CliRunner

    from proceedings.pro.cli import app

    train = ["train", "--model", "tiny", "--method", "kgw-distill", "--steps", "2", "--batch-size", "4",
             "--seq-len", "32", "--train-layers", "all", "--out", str(tmp_path)]
    assert CliRunner().invoke(app, train).exit_code == 0
    refused = CliRunner().invoke(app, [*train, "--lr", "5e-3", "--resume"])
    assert isinstance(refused.exception, ProceedingsError)  # `proceedings` prints it on one line, exit 2
    assert "train.lr_model (checkpoint 0.0001, now 0.005) differs" in str(refused.exception)
    assert json.loads((tmp_path / "calibration.json").read_text())["delta"] > 0  # the first run's files are kept
