"""Round 19: the world's own layer split and motions, and the loss that supervises the generator's object layers
with them (README, "Round 19")."""

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from proceedings.oopsworld.data import sample_episode
from proceedings.oopsworld.generator import ChunkGenerator, GeneratorConfig, move_layers
from proceedings.oopsworld.layer_targets import footprints, layer_loss
from proceedings.oopsworld.training import TrainConfig, forcing_loss, segment_data
from proceedings.oopsworld.world import render

OPS = ("recolor", "set_time_of_day", "pan", "start_motion")


@pytest.fixture(scope="module")
def world():
    episodes = [sample_episode(s, segments=4, stage=None, operators=OPS) for s in range(8)]
    return episodes, segment_data(episodes, "structured")


def test_the_footprints_cover_what_the_objects_draw(world):
    episodes, _ = world
    drawn = unlabelled = 0
    for ep in episodes:
        for s in range(ep.segments):
            scene, t = ep.scenes[s], 1 + s * 8
            empty = copy.deepcopy(scene)
            empty["local"] = []
            changed = np.abs(render(scene, t, ep.seed) - render(empty, t, ep.seed)).max(-1) > 0.02
            labels = footprints(scene, 32)
            drawn, unlabelled = drawn + changed.sum(), unlabelled + (changed & (labels == 0)).sum()
            assert set(np.unique(labels)) <= set(range(len(scene["local"]) + 1))
    assert unlabelled < 0.02 * drawn


def test_the_targets_move_the_last_history_frame_towards_the_segment_and_their_negation_does_not(world):
    episodes, data = world
    ids = np.arange(data.count)
    history, target = data.chunk(ids)
    labels, shifts, _ = data.layers.take(ids)
    split = F.one_hot(labels, shifts.shape[2]).permute(0, 3, 1, 2).float()
    kinds = np.array([p.ops[0].op for ep in episodes for p in ep.programs])
    for op in ("pan", "start_motion"):
        pick = kinds == op
        error = lambda frames: (frames[pick] - target[pick]).abs().mean()  # noqa: E731
        moved = error(move_layers(history[:, -1], split, shifts))
        assert moved < 0.8 * error(history[:, -1:].expand_as(target))
        assert moved < 0.8 * error(move_layers(history[:, -1], split, -shifts))  # the counterfactual: signs flipped


def test_the_layer_loss_is_zero_at_the_targets_in_any_layer_order_and_grows_with_a_wrong_motion(world):
    _, data = world
    ids = np.arange(8)
    labels, shifts, present = data.layers.take(ids)
    order = [0, 3, 1, 2]  # the targets' object n lies in layer order[n]
    logits = 50.0 * F.one_hot(labels, 4).permute(0, 3, 1, 2).float()
    logits_perm, shifts_perm = torch.empty_like(logits), torch.empty_like(shifts)
    logits_perm[:, order], shifts_perm[:, :, order] = logits, shifts
    assert layer_loss(logits_perm, shifts_perm, labels, shifts, present) < 1e-6
    assert layer_loss(logits_perm, shifts_perm + 4.0, labels, shifts, present) > 0.9  # 4 px off: 1 nat
    assert layer_loss(logits_perm[:, :3], shifts_perm[:, :, :3], labels, shifts, present).isfinite()  # J < objects


def test_the_layer_weight_adds_the_layer_loss_of_the_models_own_split_to_teacher_forcing(world):
    _, data = world
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16, layers=3))
    ids = np.arange(4)
    history, target = data.chunk(ids)
    values, mask = data.tokens("implicit", ids)
    frames, (logits, shift) = model(history, values, mask, with_layers=True)
    assert torch.equal(frames, model(history, values, mask)) and logits.shape == (4, 4, 32, 32)
    own = layer_loss(logits, shift, *data.layers.take(ids))
    plain = forcing_loss(model, history, target, values, mask, TrainConfig())
    supervised = forcing_loss(model, history, target, values, mask, TrainConfig(layer_weight=0.5),
                              data.layers.take(ids))
    assert torch.isclose(supervised, plain + 0.5 * own)
    model.zero_grad()
    supervised.backward()
    assert model.layer_head.weight.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="layers > 0"):
        ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16))(history, values, mask, with_layers=True)
