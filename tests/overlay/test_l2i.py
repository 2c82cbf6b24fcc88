"""The layout-to-image model: gated box attention, flow matching, exact resume."""

import torch

from proceedings.overlay.flow import LayoutSet, TrainConfig, sample, train
from proceedings.overlay.l2i import GatedBoxAttention, LayoutUNet, ModelConfig, inside_boxes

CONFIG = ModelConfig(text_dim=6, channels=(8, 16, 16), token_dim=16)


def toy_layouts(n=16, size=8):
    g = torch.Generator().manual_seed(0)
    images = torch.rand(n, 3, size, size, generator=g) * 2 - 1
    text = torch.randn(n, 3, 6, generator=g)
    lo = torch.rand(n, 3, 2, generator=g) * 0.5
    boxes = torch.cat([lo, lo + 0.4], dim=-1)
    return LayoutSet(images, text, boxes, torch.ones(n, 3, dtype=torch.bool))


def test_a_pixel_attends_only_to_the_tokens_whose_box_holds_it():
    boxes = torch.tensor([[[0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 1.0, 1.0]]])
    inside = inside_boxes(boxes, 4, 4).reshape(4, 4, 2)
    assert inside[0, 0].tolist() == [True, False] and inside[3, 3].tolist() == [False, True]
    assert inside[0, 3].tolist() == [False, False]


def test_the_zero_initialised_gate_makes_the_untrained_model_ignore_the_layout():
    torch.manual_seed(0)
    model = LayoutUNet(CONFIG)
    data = toy_layouts(4)
    t = torch.full((4,), 0.5)
    with_layout = model(data.images, t, data.text, data.boxes, data.present)
    without = model(data.images, t, data.text, data.boxes, torch.zeros_like(data.present))
    assert torch.equal(with_layout, without)
    attention = GatedBoxAttention(8, 16)
    attention.gate.data.fill_(1.0)
    x = torch.randn(4, 8, 8, 8)
    tokens = torch.randn(4, 3, 16)
    assert not torch.allclose(attention(x, tokens, data.boxes, data.present), x)


def test_training_stopped_at_step_20_and_resumed_equals_an_uninterrupted_40_step_run(tmp_path):
    data, config = toy_layouts(), TrainConfig(steps=40, batch=4, lr=1e-3, checkpoint_every=10, seed=3)
    whole, whole_log = train(data, CONFIG, config)
    ckpt = tmp_path / "run.pt"
    _, first = train(data, CONFIG, config, checkpoint=ckpt, stop_at=20)
    assert len(first.losses) == 20
    resumed, log = train(data, CONFIG, config, checkpoint=ckpt)
    assert log.losses == whole_log.losses
    for a, b in zip(resumed.state_dict().values(), whole.state_dict().values()):
        assert torch.equal(a, b)
    assert set(log.snapshots) == {10, 20, 30, 40}


def test_flow_matching_lowers_the_loss_and_sampling_is_seeded():
    data = toy_layouts(32)
    model, log = train(data, CONFIG, TrainConfig(steps=40, batch=16, lr=3e-3, checkpoint_every=100))
    assert sum(log.losses[-10:]) < sum(log.losses[:10])
    a, b = sample(model, data.take(slice(0, 4)), steps=4, seed=1), sample(model, data.take(slice(0, 4)), steps=4, seed=1)
    assert torch.equal(a, b) and a.shape == (4, 3, 8, 8) and a.abs().max() <= 1



def test_a_training_stopped_by_its_deadline_checkpoints_and_resumes_to_the_uninterrupted_run(tmp_path, monkeypatch):
    import itertools
    import time

    from proceedings.overlay import flow

    data, config = toy_layouts(), TrainConfig(steps=12, batch=4, lr=1e-3, checkpoint_every=5, seed=3)
    _, whole = train(data, CONFIG, config)
    clock = itertools.count()  # a fake clock: one tick per reading
    monkeypatch.setattr(flow, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: float(next(clock))),
                                                         "process_time": staticmethod(time.process_time)}))
    ckpt = tmp_path / "arm.pt"
    _, stopped = train(data, CONFIG, config, checkpoint=ckpt, deadline=8.0)
    assert 0 < len(stopped.losses) < 12
    monkeypatch.undo()
    _, resumed = train(data, CONFIG, config, checkpoint=ckpt)
    assert resumed.losses == whole.losses
