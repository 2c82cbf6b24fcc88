"""Frozen monocular depth estimators (spec §2.1, §2.5): `oracle`, `tiny`, or a local Hugging Face model.

- `oracle`: the renderer's exact depth; an upper bound only, labelled so wherever it is used.
- `tiny`: a UNet with OVIE's trunk widths regressing log-depth and a validity logit (sky), trained on
  its own renders of every world (seeds disjoint from all train and test sets), then frozen. It has
  realistic errors, and its encoder is the frozen feature network of the perceptual loss (in place of DINO).
- `hf:<id or path>`: `AutoModelForDepthEstimation` from local files only; relative depth unless the
  id says metric. A model that is not on disk fails at start-up with the path it looked for.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import save_checkpoint
from proceedings.ovie.networks import UNet
from proceedings.ovie.worlds import WORLDS, RenderSpec, render_set

MIN_VALID_FRACTION = 0.05  # issue 29: a sample with less valid depth is dropped and counted


@dataclass(frozen=True)
class EstimatorConfig:
    size: int = 32
    renders_per_world: int = 200
    steps: int = 60
    batch: int = 32
    lr: float = 2e-3
    seed: int = 1000  # render seeds 1000+ are never used for train or test sets


class TinyDepth(nn.Module):
    """UNet(32, 64, 128): RGB -> (log z-depth, validity logit)."""

    units = "meters"

    def __init__(self):
        super().__init__()
        self.net = UNet(3, 2)

    def forward(self, rgb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(rgb)
        return out[:, 0], out[:, 1]

    @torch.no_grad()
    def estimate(self, views: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, H, W) depth in metres and validity for a batch of views (only `rgb` is read)."""
        log_depth, logit = self(torch.as_tensor(views["rgb"]))
        valid = logit > 0
        return torch.where(valid, log_depth.exp(), torch.zeros_like(log_depth)), valid

    def features(self, rgb: torch.Tensor) -> list[torch.Tensor]:
        """Frozen encoder features at full and half resolution: the perceptual loss's feature space."""
        return self.net.encode(rgb, levels=2)


class OracleDepth:
    """The renderer's exact depth (an upper bound for any estimator)."""

    units = "meters"

    def estimate(self, views: dict) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.as_tensor(views["depth"]), torch.as_tensor(views["valid"])


class HFDepth:
    """A local Hugging Face depth model (Depth Anything V2, Depth Pro, ...): never downloads."""

    def __init__(self, name: str):
        if not _on_disk(name):  # checked before importing transformers: a missing model fails in a second
            home = os.environ.get("HF_HOME", str(Path.home() / ".cache" / "huggingface"))
            raise ProceedingsError(f"depth model '{name}' is not on disk (looked in {home}/hub/models--"
                                   f"{name.replace('/', '--')} and at the path itself); download it first - "
                                   "nothing is downloaded at run time")
        from transformers import AutoImageProcessor, AutoModelForDepthEstimation

        self.processor = AutoImageProcessor.from_pretrained(name, local_files_only=True)
        self.model = AutoModelForDepthEstimation.from_pretrained(name, local_files_only=True).eval()
        self.units = "meters" if "metric" in name.lower() else "relative"

    @torch.no_grad()
    def estimate(self, views: dict) -> tuple[torch.Tensor, torch.Tensor]:
        rgb = torch.as_tensor(views["rgb"])
        inputs = self.processor(images=list(rgb.permute(0, 2, 3, 1).numpy()), return_tensors="pt", do_rescale=False)
        depth = self.model(**inputs).predicted_depth[:, None]
        depth = nn.functional.interpolate(depth, size=rgb.shape[-2:], mode="bilinear", align_corners=False)[:, 0]
        if self.units == "relative":  # disparity-like output: invert and normalise by the median (spec §9)
            depth = 1.0 / depth.clamp_min(1e-6)
            depth = depth / depth.flatten(1).median(1).values[:, None, None]
        return depth, depth > 0


def _on_disk(name: str) -> bool:
    """A local model directory, or a Hugging Face id whose config.json is in the local cache."""
    if Path(name).is_dir():
        return (Path(name) / "config.json").exists()
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except ValueError:  # not a valid repo id either
        return False


def load_estimator(spec: str, config: EstimatorConfig | None = None):
    """`oracle`, `tiny` (trained once per config, cached), a checkpoint path, or `hf:<id or path>`."""
    if spec == "oracle":
        return OracleDepth()
    if spec == "tiny":
        return train_tiny(config or EstimatorConfig())
    if spec.startswith("hf:"):
        return HFDepth(spec[3:])
    if Path(spec).is_file():
        model = TinyDepth()
        model.load_state_dict(torch.load(spec, map_location="cpu", weights_only=True)["model"])
        return model.eval().requires_grad_(False)
    raise ProceedingsError(f"depth estimator '{spec}' unknown: use oracle, tiny, a TinyDepth checkpoint file, "
                           "or hf:<Hugging Face id or local path>")


def estimator_path(config: EstimatorConfig) -> Path:
    key = hashlib.sha256(json.dumps(asdict(config)).encode()).hexdigest()[:16]
    return cache_root() / "ovie" / "estimators" / f"tiny-{key}.pt"


def training_views(config: EstimatorConfig) -> dict[str, np.ndarray]:
    """The estimator's own renders: single images of every world, from seeds no other set uses."""
    sets = [render_set(RenderSpec(world, config.renders_per_world, config.size, config.seed + i)) for i, world in enumerate(WORLDS)]
    return {key: np.concatenate([s[key] for s in sets]) for key in ("rgb", "depth", "valid")}


def train_tiny(config: EstimatorConfig) -> TinyDepth:
    """Train (or load from the cache) the tiny estimator: L1 on log-depth over valid pixels + BCE on validity."""
    path, model = estimator_path(config), TinyDepth()
    if path.exists():
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True)["model"])
        return model.eval().requires_grad_(False)
    views = training_views(config)
    rgb, depth, valid = (torch.as_tensor(views[k]) for k in ("rgb", "depth", "valid"))
    generator = torch.Generator().manual_seed(config.seed)
    torch.manual_seed(config.seed)
    model = TinyDepth()
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, config.lr, total_steps=config.steps, pct_start=0.1)
    for _ in progress_bar(range(config.steps), desc="train tiny depth estimator"):
        pick = torch.randint(len(rgb), (config.batch,), generator=generator)
        log_depth, logit = model(rgb[pick])
        mask = valid[pick]
        depth_loss = (log_depth - depth[pick].clamp_min(1e-3).log()).abs()[mask].mean()
        loss = depth_loss + nn.functional.binary_cross_entropy_with_logits(logit, mask.float())
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
    save_checkpoint(path, {"model": model.state_dict(), "config": asdict(config)})
    return model.eval().requires_grad_(False)


def abs_rel(estimator, views: dict) -> float:
    """Mean |z_est - z| / z over the truly valid pixels (a pixel the estimator calls sky counts as error 1)."""
    depth, _ = estimator.estimate(views)
    truth, valid = torch.as_tensor(views["depth"]), torch.as_tensor(views["valid"])
    return float(((depth - truth).abs() / truth.clamp_min(1e-6))[valid].mean())
