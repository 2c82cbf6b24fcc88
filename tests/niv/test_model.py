"""Property Embedding's algebra, the model's save/load round trip, and resumable training."""

import numpy as np
import pytest


def embedding(order=2, dim=8):
    import torch

    from proceedings.niv.property_embedding import PropertyEmbedding

    torch.manual_seed(0)
    return PropertyEmbedding(4, dim, order)


def test_property_embedding_is_zero_at_the_default_location():
    import torch

    assert torch.count_nonzero(embedding()(torch.zeros(3, 4))) == 0


def test_pair_terms_vanish_when_either_axis_is_at_its_default():
    import torch

    pe = embedding()
    weights = pe.weights(torch.tensor([[0.7, 0.0, -0.4, 0.0]]))[0]
    pairs = pe.mask.sum(1) == 2
    for t in torch.nonzero(pairs & (weights != 0)).flatten():
        assert set(torch.nonzero(pe.mask[t]).flatten().tolist()) == {0, 2}  # only the (wght, opsz) pair with both non-zero
    assert torch.isclose(weights[pairs].sum(), torch.tensor(0.7 * 0.4))  # |v_a v_b| on the matching-sign term


def test_axis_order_is_irrelevant():
    import torch

    from proceedings.niv.variations import location_vector

    pe = embedding()
    a = pe(torch.from_numpy(location_vector({"wght": 0.5, "wdth": -1.0}))[None])
    b = pe(torch.from_numpy(location_vector({"wdth": -1.0, "wght": 0.5}))[None])
    assert torch.equal(a, b)
    order1 = embedding(order=1)
    assert order1.n_terms == 8 and embedding(order=2).n_terms == 8 + 6 * 4


def tiny_glyphs(n=6, seed=0):
    from proceedings.niv.data import Glyph

    rng = np.random.default_rng(seed)
    glyphs = []
    for i in range(n):
        p = 10 + i
        corners = np.array([[1, 0, 0, 0], [-1, 0, 0, 0], [1, -1, 0, 0]], np.float32)
        glyphs.append(Glyph("F", "f.ttf", f"g{i}", 65 + i, 1000, rng.normal(size=(p, 8)).astype(np.float32),
                            rng.normal(size=(p, 2)).astype(np.float32), np.zeros(p, np.int16), corners,
                            rng.normal(size=(3, p, 2)).astype(np.float32) * 0.05))
    return glyphs


@pytest.mark.parametrize("conditioning", ["property", "addall"])
def test_save_pretrained_and_from_pretrained_give_the_same_predictions(conditioning, tmp_path):
    import torch

    from proceedings.niv.model import NIV, NIVConfig
    from proceedings.niv.train import predict

    torch.manual_seed(0)
    model = NIV(NIVConfig(d_model=16, n_layers=1, n_heads=2, point_hidden=16, max_points=32,
                          conditioning=conditioning)).eval()
    glyphs = tiny_glyphs()
    model.save_pretrained(tmp_path / "m")
    loaded = NIV.from_pretrained(tmp_path / "m")
    for a, b in zip(predict(model, glyphs, glyphs[0].corners), predict(loaded, glyphs, glyphs[0].corners)):
        np.testing.assert_array_equal(a, b)


def test_interrupted_training_resumes_to_the_same_weights(tmp_path):
    import torch

    from proceedings.niv.data import Dataset
    from proceedings.niv.model import NIVConfig
    from proceedings.niv.train import CHECKPOINT, TrainConfig, train

    data = Dataset(tiny_glyphs())
    mc = NIVConfig(d_model=16, n_layers=1, n_heads=2, point_hidden=16, max_points=32, dropout=0.0)
    full, _ = train(data, mc, TrainConfig(steps=8, batch=2, warmup=1, checkpoint_every=4), tmp_path / "full")
    # Stop after step 4: a run with steps=8 whose loop we cut by checkpointing, then resume.
    from proceedings.niv import train as train_module

    calls = {"n": 0}
    real_step = torch.optim.AdamW.step

    def stop_after_four(self, *args, **kwargs):
        if calls["n"] == 4:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real_step(self, *args, **kwargs)

    torch.optim.AdamW.step = stop_after_four
    try:
        with pytest.raises(KeyboardInterrupt):
            train_module.train(data, mc, TrainConfig(steps=8, batch=2, warmup=1, checkpoint_every=4), tmp_path / "cut")
    finally:
        torch.optim.AdamW.step = real_step
    assert (tmp_path / "cut" / CHECKPOINT).exists()
    resumed, _ = train(data, mc, TrainConfig(steps=8, batch=2, warmup=1, checkpoint_every=4), tmp_path / "cut")
    for (name, a), b in zip(full.state_dict().items(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b, msg=name)


def test_a_finished_run_is_reused_and_a_changed_config_retrains(tmp_path):
    import torch

    from proceedings.niv.data import Dataset
    from proceedings.niv.model import NIVConfig
    from proceedings.niv.train import TrainConfig, train

    data = Dataset(tiny_glyphs())
    mc = NIVConfig(d_model=16, n_layers=1, n_heads=2, point_hidden=16, max_points=32, dropout=0.0)
    cfg = TrainConfig(steps=4, batch=2, warmup=1)
    first, record = train(data, mc, cfg, tmp_path / "arm")
    again, record_again = train(data, mc, cfg, tmp_path / "arm")
    assert record_again == record
    for a, b in zip(first.state_dict().values(), again.state_dict().values()):
        torch.testing.assert_close(a, b)
    _, longer = train(data, mc, TrainConfig(steps=6, batch=2, warmup=1), tmp_path / "arm")
    assert longer.points > record.points  # trained afresh for 6 steps, not the saved 4


@pytest.mark.parametrize("scale", ["tiny", "small", "paper"])
def test_both_arms_build_at_every_preset_with_parameter_counts_within_five_percent(scale):
    from dataclasses import replace

    import torch

    from proceedings.niv.experiment import CONFIGS
    from proceedings.niv.model import NIV

    cfg = CONFIGS[scale].model
    pe, addall = NIV(cfg), NIV(replace(cfg, conditioning="addall"))
    assert abs(pe.num_parameters() - addall.num_parameters()) <= 0.05 * pe.num_parameters()
    glyphs = tiny_glyphs(2)
    feats = torch.from_numpy(np.stack([g.features[:10] for g in glyphs]))
    out = pe(feats, torch.ones(2, 10, dtype=torch.bool), torch.tensor([[1.0, -1.0, 0, 0], [0, 0, 0, -1.0]]))
    assert out.shape == (2, 10, 2)


def test_the_paper_preset_starts_on_every_installed_family_but_the_held_out_ones(tmp_path):
    from dataclasses import replace

    from proceedings.niv.data import Dataset, split
    from proceedings.niv.experiment import CONFIGS, DEVICES
    from proceedings.niv.model import NIV
    from proceedings.niv.train import train

    families, held_out = split("paper"), set(split("small")["test"]) | set(split("handwriting")["test"])
    assert set(split("small")["train"]) <= set(families["train"]) and not held_out & set(families["train"])
    cfg = CONFIGS["paper"]
    model, record = train(Dataset(tiny_glyphs()), cfg.model, replace(cfg.train, steps=2, batch=4, checkpoint_every=1),
                          tmp_path / "paper", device=DEVICES["paper"])  # auto: a GPU in bf16 where there is one
    assert len(record.losses) == 1 and np.isfinite(record.losses[0])
    assert NIV.from_pretrained(tmp_path / "paper").config == cfg.model
