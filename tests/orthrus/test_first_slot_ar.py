"""The round-18 option `first_slot_ar` (a departure from the paper): slot 0 is causal and computed with the frozen AR
projections, so it stays the AR step through training. Its slot-0 logits and saved setting (losslessness with it
on: `test_first_slot.py`)."""

import copy

import pytest
import torch
from transformers import DynamicCache

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import autoregressive_decode
from proceedings.orthrus.consensus import diffusion_block_logits
from proceedings.orthrus.dual_view import DiffusionView
from proceedings.orthrus.model import OrthrusModel
from proceedings.orthrus.training import TrainConfig, block_anchors, dual_pass_mask, train_view


def _sequences(base, prompts):
    return [(p + autoregressive_decode(base, p, 16).tokens, len(p)) for p in prompts[:4]]


def _trained(base, prompts, **option):
    torch.manual_seed(0)
    view = DiffusionView(base, 4, **option)
    train_view(base, view, _sequences(base, prompts), TrainConfig(steps=2, batch=1, lr=1e-2, seed=3))
    return view


def _slot0_minus_ar(base, view, prompt, block):
    """max |slot-0 logits of the diffusion pass - the AR step's logits| after prefilling prompt[:-1]."""
    cache = DynamicCache()
    with torch.inference_mode():
        base(input_ids=torch.tensor([prompt[:-1]]), cache=cache, use_cache=True)
        ar = base(input_ids=torch.tensor([prompt[-1:]]), cache=copy.deepcopy(cache), use_cache=True).logits[0, 0]
        slot0 = diffusion_block_logits(base, view, cache, prompt[-1], block).logits[0]
    return float((slot0 - ar).abs().max())


def test_after_training_slot_0_still_drafts_with_the_ar_logits_where_a_causal_view_does_not(
        pattern_base, pattern_prompt_list):
    base = copy.deepcopy(pattern_base)
    frozen = _trained(base, pattern_prompt_list, first_slot_ar=True)
    causal = _trained(base, pattern_prompt_list, first_slot_causal=True)
    assert frozen.first_slot_causal and not causal.first_slot_ar
    for block in (4, 2):  # the view's own B, and a smaller B with the same weights
        assert _slot0_minus_ar(base, frozen, pattern_prompt_list[0], block) < 1e-5
        assert _slot0_minus_ar(base, causal, pattern_prompt_list[0], block) > 1e-3


def test_in_the_training_forward_every_block_s_slot_0_equals_the_ar_logits_at_its_anchor(pattern_base, pattern_prompt_list):
    view = DiffusionView(pattern_base, 4, first_slot_ar=True)
    torch.manual_seed(1)
    with torch.no_grad():
        for p in view.parameters():
            p.add_(0.05 * torch.randn_like(p))  # a view that differs from the AR projections, as a trained one does
    tokens, prompt_len = _sequences(pattern_base, pattern_prompt_list)[0]
    tokens = torch.tensor(tokens)
    anchors = block_anchors(prompt_len, len(tokens), 4, 1)
    cache = DynamicCache()
    with torch.no_grad():
        ar = pattern_base(input_ids=tokens[None], cache=cache, use_cache=True).logits[0]
        past = [(layer.keys, layer.values) for layer in cache.layers]
        positions = (anchors[:, None] + torch.arange(4)[None]).reshape(-1)
        logits = view(pattern_base, view.block_embeddings(pattern_base, tokens[anchors], 4), positions, past,
                      dual_pass_mask(anchors, 4, len(tokens), True), 4).logits.view(len(anchors), 4, -1)
    assert len(anchors) >= 3 and (logits[:, 0] - ar[anchors]).abs().max() < 1e-4
    assert (logits[:, 1] - ar[anchors + 1]).abs().max() > 1e-3  # the later slots are the view's own


def test_the_option_is_saved_with_the_view_and_a_checkpoint_of_the_other_setting_is_refused(
        pattern_base, pattern_prompt_list, tmp_path):
    OrthrusModel.from_base(pattern_base, block_size=4, first_slot_ar=True).save_view(tmp_path / "on")
    loaded = OrthrusModel.from_base(pattern_base, block_size=4).load_view(tmp_path / "on").view
    assert loaded.first_slot_ar and loaded.first_slot_causal
    base = copy.deepcopy(pattern_base)
    sequences, cfg = _sequences(base, pattern_prompt_list), TrainConfig(steps=2, batch=1)
    train_view(base, DiffusionView(base, 4, True), sequences, cfg, checkpoint=tmp_path / "c.pt", stop_at=1)
    with pytest.raises(ProceedingsError, match="other settings"):
        train_view(base, DiffusionView(base, 4, first_slot_ar=True), sequences, cfg, checkpoint=tmp_path / "c.pt",
                   resume=True)
