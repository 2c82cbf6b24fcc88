"""The watermark is learnt, detected, balanced; detectors refuse mismatched keys and short texts."""

import copy
import math

import pytest
import torch

from proceedings.pro.config import KGWConfig
from proceedings.pro.detector import Detector, KeyMismatch
from proceedings.pro.evaluation import policy_balance_error, z_scores
from proceedings.pro.generation import sample
from proceedings.pro.key import kgw_key, load_key
from proceedings.pro.kgw import KGWLogitsProcessor, KGWWatermark
from proceedings.pro.metrics import auc


def _prompts(blocks, n=50, length=16):
    return blocks[-n:, :length]


def test_tiny_pro_generations_are_detected_against_the_original_models(tiny_world, tiny_blocks, tiny_pro_run):
    out, marked, _ = tiny_pro_run
    original, tokenizer = tiny_world
    detector = Detector.load(out / "key", tokenizer)
    prompts = _prompts(tiny_blocks)
    # 200 new tokens, as in the evaluation protocol of Gu et al. (spec §2.5); measured 0.81 (chance 0.5,
    # whose spread with 50 + 50 texts is about 0.06)
    positives = z_scores(detector, prompts, sample(marked, prompts, 200, batch_size=50, seed=1))
    negatives = z_scores(detector, prompts, sample(original, prompts, 200, batch_size=50, seed=2))
    assert auc(positives, negatives) > 0.75


def test_policy_stays_balanced_after_joint_training(tiny_world, tiny_blocks, tiny_pro_run):
    detector = Detector.load(tiny_pro_run[0] / "key", tiny_world[1])
    assert policy_balance_error(detector, tiny_blocks[:8]) < 0.05


def test_training_logs_finite_terms_every_step_and_releases_model_without_key(tiny_pro_run):
    import json

    out, _, trainer = tiny_pro_run
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == list(range(trainer.config.steps))
    for name in ("kd", "balance", "unbiased", "learn", "null", "magnitude", "floor", "teacher_gap"):
        assert all(math.isfinite(r[name]) for r in records), name
    every = trainer.config.fpl_every
    assert [r["step"] for r in records if "fpl" in r] == list(range(0, trainer.config.steps, every))
    assert all(math.isfinite(r["fpl"]) for r in records if "fpl" in r)
    released = {p.name for p in (out / "model").iterdir()}
    assert "model.safetensors" in released and "config.json" in released
    assert not any("key" in name or "policy" in name for name in released)
    assert load_key(out / "key").kind == "pro"


def test_decoding_time_kgw_is_detected_and_clean_text_is_not(tiny_world, tiny_blocks):
    model, tokenizer = tiny_world
    config = KGWConfig(gamma=0.25, delta=4.0, k=1)
    detector = Detector(kgw_key(config, tokenizer), tokenizer)
    prompts = _prompts(tiny_blocks, n=20)
    processor = KGWLogitsProcessor(KGWWatermark(config, len(tokenizer)))
    marked = z_scores(detector, prompts, sample(model, prompts, 64, batch_size=20, seed=1, logits_processor=processor))
    clean = z_scores(detector, prompts, sample(model, prompts, 64, batch_size=20, seed=1))
    assert min(marked) > 4 > max(clean)


def test_green_lists_have_fraction_gamma():
    watermark = KGWWatermark(KGWConfig(gamma=0.25, k=2), vocab_size=4096)
    green = watermark.green(torch.randint(0, 4096, (2, 40)))[:, 1:]
    assert abs(green.float().mean().item() - 0.25) < 0.01


def test_key_for_another_tokenizer_is_refused_naming_both_hashes(tiny_world, tiny_pro_run):
    from proceedings.core.models import load_tokenizer
    from proceedings.pro.key import tokenizer_hash

    key = load_key(tiny_pro_run[0] / "key")
    other = load_tokenizer("smollm2-135m")
    with pytest.raises(KeyMismatch) as error:
        Detector(key, other)
    assert key.tokenizer_hash in str(error.value) and tokenizer_hash(other) in str(error.value)


@pytest.mark.parametrize("name, value", [("gamma", 0.25), ("delta", 1.0), ("n", 4)])
def test_stated_parameter_mismatch_names_both_values(tiny_world, tiny_pro_run, name, value):
    detector = Detector.load(tiny_pro_run[0] / "key", tiny_world[1])
    with pytest.raises(KeyMismatch, match=f"{name}=.*{name}={value}"):
        detector.check_params(**{name: value})
    detector.check_params(**{name: detector.key.params[name]})  # the key's own value is accepted


def test_text_too_short_gives_insufficient_tokens(tiny_world, tiny_pro_run):
    detector = Detector.load(tiny_pro_run[0] / "key", tiny_world[1])
    score = detector.score("Hello there.")
    assert score.status == "insufficient_tokens" and score.z is None and score.n_scored < detector.min_tokens


def test_prompt_tokens_are_not_scored(tiny_world, tiny_pro_run):
    detector = Detector.load(tiny_pro_run[0] / "key", tiny_world[1])
    prompt, text = "The quick brown fox jumps over the lazy dog. " * 3, "Lists are mutable sequences, typically used."
    alone = detector.score(prompt + text)
    stripped = detector.score(text, prompt=prompt)
    assert stripped.n_scored < alone.n_scored


def test_calibrated_threshold_holds_its_false_positive_rate(tiny_world, tiny_blocks, tiny_pro_run):
    detector = Detector.load(tiny_pro_run[0] / "key", tiny_world[1])
    null = [detector.score_ids(block) for block in tiny_blocks[:200]]
    thresholds = detector.calibrate(null, fprs=(0.05,))
    fresh = [detector.score_ids(block).z for block in tiny_blocks[200:600]]
    assert sum(z > thresholds[0.05] for z in fresh) / len(fresh) < 0.10


def test_frozen_policy_ablation_keeps_its_initial_policy(tiny_world, tiny_blocks):
    from dataclasses import replace

    from proceedings.pro.experiment import CONFIGS
    from proceedings.pro.training import WatermarkTrainer

    cfg = CONFIGS["tiny"]
    trainer = WatermarkTrainer(copy.deepcopy(tiny_world[0]), tiny_world[1],
                               replace(cfg.train, steps=3, freeze_policy=True, policy_warmup_steps=2), policy=cfg.policy)
    trainer.warm_start_policy(tiny_blocks)
    trainer.calibration = trainer.calibrate(tiny_blocks[-8:])
    before = copy.deepcopy(trainer.policy.state_dict())
    for step in range(3):
        trainer.train_step(tiny_blocks[step * 4 : step * 4 + 4])
    assert all(torch.equal(before[k], v) for k, v in trainer.policy.state_dict().items())
