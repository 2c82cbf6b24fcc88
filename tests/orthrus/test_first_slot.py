"""The round-17 option `first_slot_causal` (a departure from the paper's bidirectional block): slot 0 of a block
attends to the cache and x_n only. Its mask, the untouched outputs with it off, and losslessness with it on."""

import copy

import pytest
import torch
from transformers import DynamicCache

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import autoregressive_decode, speculative_decode
from proceedings.orthrus.consensus import DiffusionDrafter, diffusion_block_logits
from proceedings.orthrus.dual_view import DiffusionView
from proceedings.orthrus.model import OrthrusModel
from proceedings.orthrus.training import TrainConfig, dual_pass_mask, train_view

# computed with the code before the option existed (commit f22d03c): 3 steps on the tiny base, then one block
REFERENCE_LOSSES = [2.013315200805664, 2.07006698846817, 1.6176870465278625]
REFERENCE_LOGIT_SUM = -21.40288656624034


def test_the_mask_keeps_slot_0_from_the_later_keys_of_its_block_and_changes_nothing_else():
    anchors, block, length = torch.tensor([3, 7]), 4, 12
    mask = dual_pass_mask(anchors, block, length, first_slot_causal=True)
    plain = dual_pass_mask(anchors, block, length)
    assert mask.shape == plain.shape == (8, 12 + 8)
    for query in range(8):
        j, slot = divmod(query, block)
        for key in range(12 + 8):
            if key < length:
                expected = key <= int(anchors[j]) - 1
            else:
                same_block, key_slot = (key - length) // block == j, (key - length) % block
                expected = same_block and (slot > 0 or key_slot == 0)
            assert bool(mask[query, key]) == expected, (query, key)
    assert int((plain & ~mask).sum()) == 2 * (block - 1) and not (mask & ~plain).any()


def _sequences(base, prompts):
    return [(p + autoregressive_decode(base, p, 16).tokens, len(p)) for p in prompts[:4]]


def _prefilled(base, prompt):
    cache = DynamicCache()
    with torch.inference_mode():
        base(input_ids=torch.tensor([prompt[:-1]]), cache=cache, use_cache=True)
    return cache


def _train_and_draft(base, prompts, first_slot_causal):
    torch.manual_seed(0)
    view = DiffusionView(base, 4, first_slot_causal)
    record = train_view(base, view, _sequences(base, prompts), TrainConfig(steps=3, batch=2, lr=1e-3, seed=3))
    with torch.inference_mode():
        logits = diffusion_block_logits(base, view, _prefilled(base, prompts[0]), prompts[0][-1], 4).logits
    return record.losses, float(logits.double().sum())


def test_with_the_option_off_training_and_drafting_repeat_the_outputs_from_before_it(pattern_base, pattern_prompt_list):
    base = copy.deepcopy(pattern_base)
    losses, logit_sum = _train_and_draft(base, pattern_prompt_list, False)
    assert losses == pytest.approx(REFERENCE_LOSSES, abs=1e-6) and logit_sum == pytest.approx(REFERENCE_LOGIT_SUM, abs=1e-4)
    on_losses, on_sum = _train_and_draft(base, pattern_prompt_list, True)  # the option on moves both
    assert on_losses != pytest.approx(REFERENCE_LOSSES, abs=1e-3) and on_sum != pytest.approx(REFERENCE_LOGIT_SUM, abs=1e-2)


def test_an_untrained_causal_view_drafts_slot_0_with_the_ar_logits_where_the_bidirectional_one_does_not(
        pattern_base, pattern_prompt_list):
    prompt = pattern_prompt_list[0]
    cache = _prefilled(pattern_base, prompt)
    with torch.inference_mode():
        ar = pattern_base(input_ids=torch.tensor([prompt[-1:]]), cache=copy.deepcopy(cache), use_cache=True).logits[0, 0]
        slot0 = {causal: diffusion_block_logits(pattern_base, DiffusionView(pattern_base, 8, causal), cache,
                                                prompt[-1], 8).logits[0] for causal in (True, False)}
    assert (slot0[True] - ar).abs().max() < 1e-5
    assert (slot0[False] - ar).abs().max() > 1e-3


@pytest.mark.parametrize("option, block", [("first_slot_causal", 2), ("first_slot_causal", 4), ("first_slot_causal", 8),
                                           ("first_slot_ar", 2), ("first_slot_ar", 4)])  # round 18's option too
def test_consensus_with_the_option_on_still_emits_the_greedy_ar_tokens(pattern_base, pattern_prompt_list, option, block):
    view = DiffusionView(pattern_base, block, **{option: True})
    torch.manual_seed(1)
    with torch.no_grad():
        for p in view.parameters():
            p.add_(0.01 * torch.randn_like(p))  # a view that differs from the AR projections, as a trained one does
    drafter = DiffusionDrafter(pattern_base, view, check_cache=True)
    for prompt in pattern_prompt_list:
        new = 3 * block + 1
        assert (speculative_decode(pattern_base, drafter, prompt, new, block - 1).tokens
                == autoregressive_decode(pattern_base, prompt, new).tokens)


def test_the_option_is_saved_with_the_view_and_a_checkpoint_of_the_other_setting_is_refused(
        pattern_base, pattern_prompt_list, tmp_path):
    OrthrusModel.from_base(pattern_base, block_size=4, first_slot_causal=True).save_view(tmp_path / "on")
    OrthrusModel.from_base(pattern_base, block_size=4).save_view(tmp_path / "off")
    assert OrthrusModel.from_base(pattern_base, block_size=4).load_view(tmp_path / "on").view.first_slot_causal
    loaded = OrthrusModel.from_base(pattern_base, block_size=4, first_slot_causal=True).load_view(tmp_path / "off")
    assert not loaded.view.first_slot_causal
    base = copy.deepcopy(pattern_base)
    sequences, cfg = _sequences(base, pattern_prompt_list), TrainConfig(steps=2, batch=1)
    train_view(base, DiffusionView(base, 4), sequences, cfg, checkpoint=tmp_path / "c.pt", stop_at=1)
    with pytest.raises(ProceedingsError, match="other settings"):
        train_view(base, DiffusionView(base, 4, True), sequences, cfg, checkpoint=tmp_path / "c.pt", resume=True)
