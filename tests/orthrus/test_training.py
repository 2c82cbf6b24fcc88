"""Training the diffusion view: the dual-pass mask rule, a frozen base, and an exact resume."""

import copy

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import load_checkpoint
from proceedings.core.speculative import autoregressive_decode
from proceedings.orthrus.dual_view import DiffusionView
from proceedings.orthrus.training import TrainConfig, block_anchors, dual_pass_mask, train_view


def test_the_mask_for_anchors_3_and_7_at_b4_t12_follows_the_rule_element_by_element():
    anchors, block, length = torch.tensor([3, 7]), 4, 12
    mask = dual_pass_mask(anchors, block, length)
    assert mask.shape == (8, 12 + 8)
    for query in range(8):
        j = query // block
        for key in range(12 + 8):
            if key < length:
                expected = key <= int(anchors[j]) - 1  # AR keys strictly before the anchor
            else:
                expected = (key - length) // block == j  # every key of its own block, both directions
            assert bool(mask[query, key]) == expected, (query, key)


def test_anchors_start_in_the_response_every_block_and_keep_a_label():
    assert block_anchors(prompt_len=5, length=20, block_size=4, offset=2).tolist() == [7, 11, 15]
    assert block_anchors(prompt_len=5, length=6, block_size=4, offset=1).tolist() == []


@pytest.fixture
def sequences(pattern_base, pattern_prompt_list):
    return [(p + autoregressive_decode(pattern_base, p, 16).tokens, len(p)) for p in pattern_prompt_list[:4]]


def test_five_steps_leave_the_base_bit_identical_and_a_resume_repeats_the_loss_curve(pattern_base, sequences, tmp_path):
    base = copy.deepcopy(pattern_base)
    before = {k: v.clone() for k, v in base.state_dict().items()}
    cfg = TrainConfig(steps=5, batch=2, lr=1e-3, checkpoint_every=2, seed=3)
    straight_view = DiffusionView(base, 4)
    start = copy.deepcopy(straight_view.state_dict())
    straight = train_view(base, straight_view, sequences, cfg)
    assert all(torch.equal(before[k], v) for k, v in base.state_dict().items())
    assert not any(p.requires_grad for p in base.parameters())
    assert any(not torch.equal(start[k], v) for k, v in straight_view.state_dict().items())

    killed_view = DiffusionView(base, 4)
    killed_view.load_state_dict(start)
    first = train_view(base, killed_view, sequences, cfg, checkpoint=tmp_path / "ckpt.pt", stop_at=3)
    assert first.steps == 3
    resumed_view = DiffusionView(base, 4)  # a fresh process would start from nothing but the checkpoint
    resumed = train_view(base, resumed_view, sequences, cfg, checkpoint=tmp_path / "ckpt.pt", resume=True)
    assert resumed.losses == straight.losses
    assert all(torch.equal(straight_view.state_dict()[k], v) for k, v in resumed_view.state_dict().items())


def test_a_checkpoint_made_with_other_settings_is_refused(pattern_base, sequences, tmp_path):
    base = copy.deepcopy(pattern_base)
    train_view(base, DiffusionView(base, 4), sequences, TrainConfig(steps=1, batch=1), checkpoint=tmp_path / "c.pt")
    with pytest.raises(ProceedingsError, match="other settings"):
        train_view(base, DiffusionView(base, 4), sequences, TrainConfig(steps=2, batch=1), checkpoint=tmp_path / "c.pt",
                   resume=True)


def test_a_constant_schedule_holds_the_peak_rate_after_warm_up_where_cosine_decays(pattern_base, sequences, tmp_path):
    base = copy.deepcopy(pattern_base)
    rates = {}
    for schedule in ("cosine", "constant"):
        cfg = TrainConfig(steps=4, batch=1, lr=1e-3, warmup=0.25, schedule=schedule)
        train_view(base, DiffusionView(base, 4), sequences, cfg, checkpoint=tmp_path / f"{schedule}.pt")
        rates[schedule] = load_checkpoint(tmp_path / f"{schedule}.pt")["scheduler"]["_last_lr"][0]
    assert rates["constant"] == pytest.approx(1e-3) and rates["cosine"] < 1e-4
    with pytest.raises(ProceedingsError, match="unknown schedule 'linear'"):
        train_view(base, DiffusionView(base, 4), sequences, TrainConfig(steps=1, batch=1, schedule="linear"))
