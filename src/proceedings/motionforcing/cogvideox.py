"""The full-scale backend (spec §2.2, §6): CogVideoX-5B-I2V with the released Motion Forcing transformer.

Weights come only from local paths the user gives (no download). Without them the backend stops at
once and prints the layout it expects. With them it loads diffusers' `CogVideoXImageToVideoPipeline`
from `base` and swaps in the Motion Forcing transformer from `transformer`; clips must have 4k + 1 frames.
"""

from __future__ import annotations

from pathlib import Path

from proceedings.core.errors import ProceedingsError

LAYOUT = ("expected local weights: {base} DIR (a CogVideoX-5b-I2V snapshot: model_index.json, scheduler/, text_encoder/, "
          "tokenizer/, transformer/, vae/) and {transformer} DIR (the Motion Forcing transformer, e.g. "
          "TSXu/MotionForcing_driving: config.json + *.safetensors); nothing is downloaded")


def check_frames(frames: int) -> int:
    if frames < 1 or (frames - 1) % 4:
        raise ProceedingsError(f"traj.json: frames = {frames} is not of the form 4k + 1 (CogVideoX), e.g. 49")
    return frames


def require_weights(base: str | Path | None, transformer: str | Path | None,
                    names: tuple[str, str] = ("--base", "--transformer")) -> tuple[Path, Path]:
    """The two weight folders, or a one-line error naming what is missing (by `names`: the CLI's options or the
    paper scale's environment variables) and the layout expected."""
    layout = LAYOUT.format(base=names[0], transformer=names[1])
    for name, path, marker in ((names[0], base, "model_index.json"), (names[1], transformer, "config.json")):
        if not path:
            raise ProceedingsError(f"CogVideoX backend: {name} not given; {layout}")
        if not (Path(path) / marker).is_file():
            raise ProceedingsError(f"CogVideoX backend: {name} '{path}' has no {marker}; {layout}")
    return Path(base), Path(transformer)


def load_pipeline(base: str | Path | None, transformer: str | Path | None, device: str = "cuda"):
    """diffusers' CogVideoX image-to-video pipeline with the Motion Forcing transformer, bf16, local files only."""
    base, transformer = require_weights(base, transformer)
    import torch
    from diffusers import CogVideoXImageToVideoPipeline, CogVideoXTransformer3DModel

    net = CogVideoXTransformer3DModel.from_pretrained(transformer, torch_dtype=torch.bfloat16, local_files_only=True)
    pipe = CogVideoXImageToVideoPipeline.from_pretrained(base, transformer=net, torch_dtype=torch.bfloat16,
                                                         local_files_only=True)
    return pipe.to(device)
