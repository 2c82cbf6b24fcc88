"""MP4 output, written atomically: a reader sees the finished file or none, never half a video."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from proceedings.motionforcing.camera import FAR


def depth_frames(depth: np.ndarray) -> np.ndarray:
    """Metres (T, H, W) -> RGB frames (T, 3, H, W): near bright, far and holes dark (inverse depth)."""
    inverse = np.where(depth > 0, 1.0 / np.maximum(depth, 1e-3), 0.0)
    scale = max(float(inverse.max()), 1.0 / FAR)
    return np.repeat((inverse / scale)[:, None], 3, 1)


def write_mp4(path: Path, frames: np.ndarray, fps: int = 8, upscale: int = 8) -> Path:
    """frames (T, 3, H, W) in [0, 1] -> an H.264 MP4, each pixel shown as an upscale x upscale block."""
    import imageio.v3 as iio

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    video = (np.clip(frames, 0, 1).transpose(0, 2, 3, 1) * 255).round().astype(np.uint8)
    video = video.repeat(upscale, 1).repeat(upscale, 2)
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")
    try:
        iio.imwrite(tmp, video, fps=fps, codec="libx264", macro_block_size=8)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
