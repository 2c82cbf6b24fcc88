"""The full-scale teacher: a local diffusers `WanPipeline` (Wan2.1-T2V-1.3B by default), conditioned on the
target-scene prompt (spec §2.4). Never downloaded: without local weights it fails at once, naming the
layout it expects. The reduced teacher of the laptop scales is `ChunkGenerator` on scene tokens.
"""

from __future__ import annotations

import os
from pathlib import Path

from proceedings.core.errors import ProceedingsError

WAN_ENV = "OOPSWORLD_WAN"
DEFAULT_WAN = "Wan-AI/Wan2.1-T2V-1.3B-Diffusers"
LAYOUT = "model_index.json, transformer/, vae/, text_encoder/, tokenizer/, scheduler/"


def local_wan_dir(spec: str | None = None) -> Path:
    """The directory of local Wan weights: a path, or a Hugging Face id already in the local cache."""
    spec = spec or os.environ.get(WAN_ENV) or DEFAULT_WAN
    path = Path(spec).expanduser()
    if path.is_dir():
        if not (path / "model_index.json").exists():
            raise ProceedingsError(f"'{path}' is not a diffusers pipeline directory: expected {LAYOUT}")
        return path
    cached = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub" / \
        f"models--{spec.replace('/', '--')}" / "snapshots"
    snapshots = sorted(cached.glob("*/model_index.json")) if cached.is_dir() else []
    if not snapshots:
        raise ProceedingsError(f"no local Wan weights for '{spec}': put a diffusers pipeline ({LAYOUT}) in a directory "
                               f"and pass it (or set {WAN_ENV}); nothing is downloaded")
    return snapshots[-1].parent


def load_wan_teacher(spec: str | None = None, device: str = "cuda"):
    """The frozen WanPipeline teacher from local weights only."""
    path = local_wan_dir(spec)
    try:
        from diffusers import WanPipeline
    except ImportError:
        raise ProceedingsError("the Wan teacher needs diffusers (pip install 'proceedings[oopsworld]')") from None
    import torch

    pipe = WanPipeline.from_pretrained(str(path), torch_dtype=torch.bfloat16, local_files_only=True)
    return pipe.to(device)
