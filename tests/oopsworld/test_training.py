"""Training resumes exactly (teacher forcing and curriculum distillation), the dynamics curriculum walks
its four stages, and the condition tokens steer a chunk."""

import numpy as np
import pytest
import torch

from proceedings.oopsworld.data import sample_episode
from proceedings.oopsworld.generator import ChunkGenerator, GeneratorConfig
from proceedings.oopsworld.training import (DistillConfig, Paused, TrainConfig, curriculum_stage, segment_data,
                                            stage_pool, train_distill, train_forcing)

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
