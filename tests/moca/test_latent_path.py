"""The `paper` preset's latent path: component-VAE latents as tokens, bf16 through Accelerate; builds and starts."""

from dataclasses import replace

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.moca.cli import app
from proceedings.moca.data.procedural import generate
from proceedings.moca.experiment import ExperimentConfig, experiment_config, train_arm
from proceedings.moca.flow import sample
from proceedings.moca.latents import LatentCodec
from proceedings.moca.model import CompositionalDiT, DiTConfig
from proceedings.moca.training import TrainConfig, to_tensors, train
from proceedings.moca.vae import ComponentVAE, VAEConfig

VAE = VAEConfig(surface_points=32, latents=4, latent_dim=4, dim=16, heads=2, frequencies=2)
DIT = DiTConfig(points=4, channels=4, dim=16, heads=2, depth=1, k=1, sigma=2, mlp_ratio=2)


@pytest.fixture(scope="module")
def codec():
    torch.manual_seed(0)
    chairs = generate("chair", 6, (6, 7), 4, seed=0)
    return chairs, LatentCodec.fit(ComponentVAE(VAE), [p for a in chairs for p in a.parts])


def test_the_paper_preset_denoises_vae_latents_in_bf16_with_128_components_at_full_width():
    cfg = experiment_config("paper")
    assert (cfg.model.points, cfg.model.channels) == (cfg.vae.latents, cfg.vae.latent_dim) == (16, 16)
    assert cfg.vae.surface_points == 512 and cfg.train.mixed_precision == "bf16" and cfg.train.device == "auto"
    assert cfg.components["scene:warehouse"][1] == 128 <= cfg.model.max_components and max(cfg.sweep_ns) == 256
    model = CompositionalDiT(replace(cfg.model, depth=1))  # full width, one local + cross pair (12 in the preset)
    x = torch.randn(1, 128, 16, 16)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        v = model(x, torch.rand(1), torch.zeros(1, dtype=torch.long), torch.arange(128)[None])
    assert v.shape == x.shape and v.dtype == torch.bfloat16 and torch.isfinite(v).all()


def test_a_dit_whose_tokens_do_not_match_its_vae_is_refused():
    base = experiment_config("tiny")
    with pytest.raises(ProceedingsError, match="VAE gives 4 latents of 4"):
        ExperimentConfig(**{**base.__dict__, "model": DiTConfig(points=8, dim=16, heads=2), "vae": VAE})


def test_without_a_trained_vae_the_paper_preset_stops_with_one_line_naming_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    cfg = experiment_config("paper")
    with pytest.raises(ProceedingsError, match="proceedings moca train-vae --scale paper"):
        train_arm(cfg, "paper", 0, "moca", generate("chair", 1, (6, 6), 16))
    for verb in (["train", "--scale", "paper"], ["stage", "--scale", "paper"]):  # before making 200,000 samples
        result = CliRunner().invoke(app, verb)
        assert isinstance(result.exception, ProceedingsError) and "train-vae" in str(result.exception)


def test_latents_are_scaled_to_unit_spread_and_one_bf16_step_trains_on_them(codec, tmp_path):
    chairs, codec = codec
    tokens = codec.encode(chairs)
    assert [z.shape for z in tokens] == [(a.n, 4, 4) for a in chairs]
    assert abs(np.concatenate(tokens).std() - 1) < 0.05  # measured on these very parts, drawn again
    data = to_tensors(chairs, ["chair"], tokens)
    model, record = train(DIT, data, TrainConfig(steps=2, batch=3, warmup=1, mixed_precision="bf16"))
    assert record.steps == 2 and all(np.isfinite(record.losses)) and not record.skipped_nan
    assert all(p.dtype == torch.float32 for p in model.parameters())  # autocast; the weights stay fp32
    assert sample(model, 0, 7, steps=2, seed=0).shape == (1, 7, 4, 4)
    codec.save_pretrained(tmp_path / "vae")
    again = LatentCodec.from_pretrained(tmp_path / "vae")
    assert again.scale == codec.scale and np.allclose(again.encode(chairs[:1])[0], tokens[0], atol=1e-6)


def test_sampling_a_latent_model_asks_for_its_vae(tmp_path):
    CompositionalDiT(DIT).save_pretrained(tmp_path / "m")
    result = CliRunner().invoke(app, ["sample", "--model", str(tmp_path / "m"), "--n", "3", "--steps", "1",
                                      "-o", str(tmp_path / "a.glb")])
    assert isinstance(result.exception, ProceedingsError) and "--vae" in str(result.exception)


def test_train_vae_then_train_runs_the_paper_path_end_to_end_at_toy_width(tmp_path, monkeypatch):
    import proceedings.moca.experiment as experiment

    paper = experiment.CONFIGS["paper"]
    toy = replace(paper, train_samples=2, held_out=1, vae=VAE, model=replace(paper.model, **{
        k: getattr(DIT, k) for k in ("points", "channels", "dim", "heads", "depth", "sigma", "mlp_ratio")}),
        train=replace(paper.train, batch=2, device="cpu"))
    monkeypatch.setitem(experiment.CONFIGS, "paper", toy)
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(app, ["train-vae", "--samples", "2", "--steps", "2", "--batch", "4"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["train", "--scale", "paper", "--stop-at", "1", "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert "1 of 200000 steps" in result.output and "0 NaN steps skipped" in result.output
    assert CompositionalDiT.from_pretrained(tmp_path / "m").cfg.channels == VAE.latent_dim
