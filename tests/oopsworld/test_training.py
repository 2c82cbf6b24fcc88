"""Training resumes exactly (teacher forcing and curriculum distillation), the dynamics curriculum walks
its four stages, and the condition tokens steer a chunk."""

import numpy as np
import pytest
import torch

from proceedings.oopsworld.data import sample_episode
from proceedings.oopsworld.encoders import structured_bank, structured_vocabulary
from proceedings.oopsworld.generator import PALETTE, ChunkGenerator, GeneratorConfig, changed_colour_l1, move_layers
from proceedings.oopsworld.layer_targets import layer_loss
from proceedings.oopsworld.training import (DistillConfig, Paused, TrainConfig, curriculum_stage, forcing_loss,
                                            segment_data, stage_pool, train_distill, train_forcing)
from proceedings.oopsworld.taxonomy import FAMILIES

TINY = GeneratorConfig(channels=(8, 16, 16), token_dim=16)


@pytest.fixture(scope="module")
def data():
    return segment_data([sample_episode(s, segments=2, stage=None) for s in range(4)], "structured")


def _fresh(seed=0):
    torch.manual_seed(seed)
    return ChunkGenerator(TINY)


def test_teacher_forcing_resumed_at_step_n_matches_an_uninterrupted_run(data, tmp_path):
    config = TrainConfig(steps=4, batch=2, checkpoint_every=2)
    whole = _fresh()
    train_forcing(whole, data, "explicit", config)
    piece = _fresh()
    train_forcing(piece, data, "explicit", config, checkpoint=tmp_path / "ckpt.pt", until=2)
    resumed = _fresh(seed=99)  # a new process: different init, everything comes from the checkpoint
    losses = train_forcing(resumed, data, "explicit", config, checkpoint=tmp_path / "ckpt.pt")
    assert len(losses) == 4
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()):
        assert torch.equal(a, b)


def test_a_staged_run_past_its_deadline_checkpoints_pauses_and_resumes_to_the_same_weights(data, tmp_path):
    config = TrainConfig(steps=3, batch=2, checkpoint_every=100)
    whole = _fresh()
    train_forcing(whole, data, "implicit", config)
    piece = _fresh()
    with pytest.raises(Paused, match="time budget reached at step 1/3; run the same command again"):
        train_forcing(piece, data, "implicit", config, checkpoint=tmp_path / "p.pt", deadline=0.0)
    resumed = _fresh(seed=7)
    assert len(train_forcing(resumed, data, "implicit", config, checkpoint=tmp_path / "p.pt")) == 3
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()):
        assert torch.equal(a, b)


def test_the_warp_moves_content_by_the_predicted_flow():
    model = _fresh().eval()
    last = torch.zeros(1, 3, 32, 32)
    last[..., 10, 10] = 1.0
    with torch.no_grad():
        model.flow_head.bias[0::2] = 3.0  # every frame: 3 px to the right
        warped = model._warped(last, torch.zeros(1, TINY.channels[2], 8, 8))
    assert warped.shape == (1, 8, 3, 32, 32)
    assert (warped[0, :, 0] > 0.5).nonzero()[:, 1:].unique(dim=0).tolist() == [[10, 13]]


def test_distillation_resumed_mid_curriculum_matches_an_uninterrupted_run(data, tmp_path):
    config, distill = TrainConfig(steps=4, batch=2, checkpoint_every=1), DistillConfig(max_rollout=1)
    teacher = _fresh(1).eval()
    whole = _fresh()
    train_distill(whole, teacher, data, config, distill)
    piece = _fresh()
    train_distill(piece, teacher, data, config, distill, checkpoint=tmp_path / "d.pt", until=3)
    resumed = _fresh(seed=5)
    train_distill(resumed, teacher, data, config, distill, checkpoint=tmp_path / "d.pt")
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()):
        assert torch.equal(a, b)


def test_the_curriculum_walks_low_then_high_dynamics_then_composites_then_everything(data):
    assert [curriculum_stage(i, 100, True) for i in (0, 24, 25, 50, 75, 99)] == [1, 1, 2, 3, 4, 4]
    assert curriculum_stage(0, 100, False) == 4
    single_low = stage_pool(data, 1)
    assert (data.depth[single_low] == 1).all() and (data.dynamics[single_low] <= 1).all()


def test_the_condition_tokens_steer_the_chunk(data):
    model = _fresh().eval()
    history, _ = data.chunk(np.array([0]))
    values, mask = data.tokens("implicit", np.array([0]))
    other_values, other_mask = data.tokens("implicit", np.array([1]))
    with torch.no_grad():
        a = model(history, values, mask)
        b = model(history, other_values, other_mask)
    assert a.shape == (1, 8, 3, 32, 32) and not torch.equal(a, b)


def test_the_masked_redraw_keeps_the_frame_where_the_mask_is_closed_and_paints_where_it_is_open(data):
    model = _fresh().eval()
    history, _ = data.chunk(np.array([0]))
    values, mask = data.tokens("implicit", np.array([0]))
    heads = (model.end_head, model.between[-1])
    with torch.no_grad():
        for head in heads:  # mask logits far below 0: every frame is the (unwarped, untinted) last history frame
            head.bias.view(-1, 4)[:, 3] = -100.0
        kept = model(history, values, mask)
        for head in heads:
            head.weight.zero_()
            head.bias.view(-1, 4)[:, :3] = 0.0
            head.bias.view(-1, 4)[:, 3] = 100.0  # mask open everywhere, colour logit 0: mid-grey
        painted = model(history, values, mask)
    assert torch.allclose(kept, history[:, -1:].expand_as(kept), atol=1e-6)
    assert torch.allclose(painted, torch.full_like(painted, 0.5))


def test_the_tone_head_tints_the_kept_frame_by_a_per_channel_gain(data):
    model = _fresh().eval()
    history, _ = data.chunk(np.array([0]))
    values, mask = data.tokens("implicit", np.array([0]))
    with torch.no_grad():
        for head in (model.end_head, model.between[-1]):
            head.bias.view(-1, 4)[:, 3] = -100.0
        model.tone_head.bias.copy_(torch.log(torch.tensor([0.5, 1.0, 2.0])).repeat(TINY.frames))  # per frame: r, g, b
        out = model(history, values, mask)
    gain = torch.tensor([0.5, 1.0, 2.0]).view(1, 1, 3, 1, 1)
    assert torch.allclose(out, history[:, -1:] * gain, atol=1e-5)


def test_the_palette_redraw_paints_a_tinted_vocabulary_colour_where_the_mask_opens(data):
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, palette=True)).eval()
    history, _ = data.chunk(np.array([0]))
    values, mask = data.tokens("implicit", np.array([0]))
    p = len(PALETTE) + 1
    with torch.no_grad():
        for head in (model.end_head, model.between[-1]):
            head.weight.zero_()
            head.bias.zero_()
            head.bias.view(-1, p)[:, 0] = 50.0  # every pixel: palette entry 0 (red) ...
            head.bias.view(-1, p)[:, -1] = 100.0  # ... with the mask open
        model.tint_head.bias.copy_(torch.log(torch.tensor([1.0, 0.5, 0.25])).repeat(TINY.frames))
        out = model(history, values, mask)
    expected = PALETTE[0] * torch.tensor([1.0, 0.5, 0.25])
    assert torch.allclose(out, expected.view(1, 1, 3, 1, 1).expand_as(out), atol=1e-5)


def _dot_scene():
    last = torch.full((1, 3, 32, 32), 0.2)
    last[..., 8:12, 8:12] = 0.9  # a 4x4 object on a flat background
    assign = torch.zeros(1, 2, 32, 32)
    assign[:, 0] = 1.0
    assign[:, 0, 8:12, 8:12], assign[:, 1, 8:12, 8:12] = 0.0, 1.0
    return last, assign


def test_an_object_layer_moves_by_its_displacement_and_uncovers_background():
    last, assign = _dot_scene()
    shift = torch.zeros(1, 8, 2, 2)
    shift[:, :, 1, 0] = 3.0  # the object layer: 3 px to the right in every frame; the background stays
    out = move_layers(last, assign, shift)
    lit = (out[0, :, 0] > 0.5).nonzero()[:, 1:]
    assert sorted({(int(r), int(c)) for r, c in lit}) == [(r, c) for r in range(8, 12) for c in range(11, 15)]
    assert torch.allclose(out[0, :, :, 8:12, 8:11], torch.tensor(0.2))  # uncovered: filled from the background


def test_unmoved_hard_layers_keep_the_frame_and_a_background_shift_pans_it():
    last, assign = _dot_scene()
    kept = move_layers(last, assign, torch.zeros(1, 8, 2, 2))
    assert torch.allclose(kept, last[:, None].expand_as(kept), atol=1e-6)
    pan = torch.zeros(1, 8, 2, 2)
    pan[:, :, :, 1] = -2.0  # every layer 2 px up: the view pans
    panned = move_layers(last, assign, pan)
    lit = (panned[0, :, 0] > 0.5).nonzero()[:, 1:]
    assert sorted({(int(r), int(c)) for r, c in lit}) == [(r, c) for r in range(6, 10) for c in range(8, 12)]


def test_the_layered_generator_keeps_the_frame_while_its_layers_rest_and_its_shift_head_moves_them(data):
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, layers=2)).eval()
    history, _ = data.chunk(np.array([0]))
    values, mask = data.tokens("implicit", np.array([0]))
    with torch.no_grad():
        for head in (model.end_head, model.between[-1]):
            head.bias.view(-1, 4)[:, 3] = -100.0  # no redraw: the frames are the moved layers
        start = model(history, values, mask)
        model.shift_head[-1].bias.fill_(4.0)  # every layer 4 px right and down
        moved = model(history, values, mask)
        model.layer_head.bias.copy_(torch.tensor([0.0, 0.0, 0.0]))  # a soft split: still kept while nothing moves
        model.shift_head[-1].bias.zero_()
        soft = model(history, values, mask)
    assert torch.allclose(start, history[:, -1:].expand_as(start), atol=1e-6)
    assert torch.allclose(soft, history[:, -1:].expand_as(soft), atol=1e-6)
    assert (moved - history[:, -1:]).abs().mean() > 0.02


def test_the_generator_options_of_a_preset_reach_every_arm(data, monkeypatch):
    from dataclasses import replace

    import proceedings.oopsworld.training as training
    from proceedings.oopsworld.experiment import CONFIGS, train_arms

    calls, layer_calls = [], []
    monkeypatch.setattr(training, "changed_colour_l1", lambda *a: calls.append(1) or changed_colour_l1(*a))
    monkeypatch.setattr(training, "layer_loss", lambda *a: layer_calls.append(1) or layer_loss(*a))
    micro = replace(CONFIGS["tiny"], channels=(8, 16, 16), steps=2, batch=2, palette=True, layers=2, ramp=True,
                    erase=True, gated=True, paint_attn=True, paint_gate=True, colour_weight=1.0, layer_weight=0.25)
    arms, _ = train_arms(micro, data, {})
    options = {name: (m.config.palette, m.config.layers, m.config.ramp, m.config.erase, m.config.gated,
                      m.config.paint_attn, m.config.paint_gate) for name, m in arms.items()}
    assert options == {arm: (True, 2, True, True, True, True, True) for arm in ("teacher", "b2", "oopsworld")}
    assert all(hasattr(m, "shift_head") and not hasattr(m, "flow_head") for m in arms.values())
    assert all(m.paint_attn.out.out_channels == len(PALETTE) for m in arms.values())
    assert all(m.paint_attn.gate is not None for m in arms.values())
    assert len(calls) == 4  # the colour loss in every teacher-forced step: teacher 2, B2 1 + 1 (distillation: none)
    assert len(layer_calls) == 4  # so is the layer loss (round 19)


def test_with_a_ramp_the_frames_between_fade_in_the_end_states_one_redraw(data):
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, ramp=True, warp=False)).eval()
    history, _ = data.chunk(np.array([0]))
    values, mask = data.tokens("implicit", np.array([0]))
    with torch.no_grad():
        model.end_head.weight.zero_()
        model.end_head.bias.copy_(torch.tensor([0.0, 0.0, 0.0, 100.0]))  # end state: mid-grey everywhere
        model.tone_head.bias.zero_()
        model.ramp_head.bias.copy_(torch.logit(torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])))
        out = model(history, values, mask)
    last = history[:, -1]
    for f, share in enumerate([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0]):
        assert torch.allclose(out[:, f], last + share * (0.5 - last), atol=1e-5)
    assert not hasattr(model, "between")


def test_the_erase_mask_clears_to_the_surrounding_background_and_the_redraw_paints_over_it():
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, erase=True)).eval()
    last, _ = _dot_scene()
    base = last[:, None]  # (1, 1, 3, H, W): one frame
    paint = torch.zeros(1, 1, 5, 32, 32)  # colour logits (mid-grey), erase logit, mask logit
    paint[:, :, 4] = -100.0  # the redraw closed everywhere
    paint[:, :, 3] = -100.0
    kept = model._paint(base, paint, torch.ones(1, 1, 3, 1, 1))
    paint[:, :, 3, 8:12, 8:12] = 100.0  # erase the object: what is left is the background around it
    cleared = model._paint(base, paint, torch.ones(1, 1, 3, 1, 1))
    paint[:, :, 4, 9:11, 9:11] = 100.0  # and redraw its middle in the colour (mid-grey)
    redrawn = model._paint(base, paint, torch.ones(1, 1, 3, 1, 1))
    assert torch.allclose(kept, base, atol=1e-6)
    assert torch.allclose(cleared, torch.full_like(cleared, 0.2), atol=1e-5)
    assert torch.allclose(redrawn[..., 9:11, 9:11], torch.tensor(0.5), atol=1e-5)
    assert torch.allclose(redrawn[..., 8, 8:12], torch.tensor(0.2), atol=1e-5)


def test_gated_end_heads_give_each_operator_family_its_own_head_and_only_it_gets_gradient(data):
    families = list(FAMILIES)
    recolor, pan = 1 + families.index("appearance"), 1 + families.index("camera")
    bank = structured_bank([[["kind:op", "op:recolor", "new_color:red"]], [["kind:op", "op:pan", "new_side:left"]],
                            [["kind:op", "op:recolor"], ["kind:op", "op:pan"]], [["kind:global", "weather:rain"]]])
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, gated=True))
    shares = model.route(*bank.take(np.arange(4)))
    expected = torch.zeros(4, model.heads)
    expected[0, recolor], expected[1, pan], expected[2, [recolor, pan]], expected[3, 0] = 1.0, 1.0, 0.5, 1.0
    assert torch.equal(shares, expected)  # a scene prompt names no operator: head 0
    history, _ = data.chunk(np.array([0]))
    for op, own in ((0, recolor), (1, pan)):
        model.zero_grad()
        model(history, *bank.take(np.array([op])))[:, -1].sum().backward()
        grad = model.end_head.weight.grad.reshape(model.heads, -1).abs().sum(1)  # per head
        assert grad[own] > 0 and grad.sum() == grad[own]  # only the op's family head learns from it
    with pytest.raises(ValueError, match="structured"):
        ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, gated=True, encoder="text"))


def _paint_attn_model(on: bool) -> ChunkGenerator:
    """A tiny generator whose trunk ignores the tokens (every cross-attention gate closed): only the paint attention
    can carry a token's words to the end head."""
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, gated=True, paint_attn=on))
    with torch.no_grad():
        for attn in (model.attn16, model.attn8, model.attn8_up, model.attn16_up):
            attn.gate.zero_()
    return model


def test_the_paint_attention_carries_the_requested_colour_to_the_end_heads_colour_logits(data):
    bank = structured_bank([[["kind:op", "op:recolor", "color:blue", "new_color:red"]],
                            [["kind:op", "op:recolor", "color:blue", "new_color:green"]]])
    history, _ = data.chunk(np.array([0, 0]))
    red = structured_vocabulary()["new_color:red"]
    for on in (True, False):
        model = _paint_attn_model(on)
        values, mask = bank.take(np.arange(2))
        features = torch.randn(1, 8, 32, 32).expand(2, -1, -1, -1)  # one feature map for both requests
        paint = model._end_paint(features, model.tokens(values), values, mask)
        colour, opening = paint[:, :model.colours], paint[:, model.colours:]
        assert torch.equal(opening[0], opening[1])  # the request changes what is painted, not where
        assert (colour[0] - colour[1]).abs().mean() > 1e-3 if on else torch.equal(colour[0], colour[1])
        model.zero_grad()
        end = model(history[:1], *bank.take(np.array([0])))[:, -1]
        (end - torch.tensor([1.0, 0.0, 0.0])[:, None, None]).abs().mean().backward()  # a loss towards red
        reached = model.tokens.embed.weight.grad[red].abs().sum()
        assert reached > 0 if on else reached == 0


def test_the_paint_gate_confines_the_colour_offset_to_where_it_opens():
    bank = structured_bank([[["kind:op", "op:recolor", "color:blue", "new_color:red"]],
                            [["kind:op", "op:recolor", "color:blue", "new_color:green"]]])
    features = torch.randn(1, 8, 32, 32)
    features[:, 0, :, :16], features[:, 0, :, 16:] = 30.0, -30.0  # the gate reads channel 0: open left, shut right
    features = features.expand(2, -1, -1, -1)
    for gate in (True, False):
        torch.manual_seed(0)
        model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, gated=True, paint_attn=True,
                                               paint_gate=gate))
        if gate:
            with torch.no_grad():
                model.paint_attn.gate.weight.zero_()
                model.paint_attn.gate.weight[0, 0] = 1.0
                model.paint_attn.gate.bias.zero_()
        values, mask = bank.take(np.arange(2))
        colour = model._end_paint(features, model.tokens(values), values, mask)[:, :model.colours]
        left, right = (colour[0] - colour[1])[..., :16].abs().mean(), (colour[0] - colour[1])[..., 16:].abs().max()
        assert left > 1e-3  # the request changes the paint where the gate is open (and everywhere without a gate)
        assert right < 1e-9 if gate else right > 1e-3
    with pytest.raises(ValueError, match="paint_attn"):
        ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, paint_gate=True))


def test_the_colour_loss_supervises_the_end_colour_inside_the_changed_region_even_with_the_mask_shut(data):
    last, target = torch.zeros(1, 3, 8, 8), torch.zeros(1, 3, 8, 8)
    target[:, 0, 2:4, 2:4] = 1.0  # a red patch appears: the changed region
    colour = torch.full((1, 3, 8, 8), 0.5)
    assert torch.isclose(changed_colour_l1(colour, target, last), torch.tensor(0.5))
    colour[..., 5:, 5:] = 0.9  # outside the changed region: no effect
    assert torch.isclose(changed_colour_l1(colour, target, last), torch.tensor(0.5))
    assert changed_colour_l1(colour, last, last) == 0  # nothing changed
    model = _fresh()
    with torch.no_grad():
        model.end_head.bias.view(-1, 4)[:, 3] = -100.0  # the end state's redraw mask shut: its colour is unseen
    ids = np.array([0, 1])
    history, target = data.chunk(ids)
    values, mask = data.tokens("implicit", ids)
    frames, end_colour = model(history, values, mask, with_colour=True)
    assert torch.equal(frames, model(history, values, mask)) and end_colour.shape == (2, 3, 32, 32)
    for weight in (1.0, 0.0):
        model.zero_grad()
        forcing_loss(model, history, target, values, mask, TrainConfig(colour_weight=weight)).backward()
        reached = model.end_head.bias.grad.view(-1, 4)[:, :3].abs().sum()
        assert reached > 1e-6 if weight else reached < 1e-20
