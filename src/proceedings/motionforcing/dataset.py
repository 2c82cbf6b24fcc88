"""Sets of drive clips as arrays, written as resumable shards, and the model inputs built from them.

A set is padded to `max_agents` (absent agents have `present = False`). The ego warp is computed once
per clip (it is never masked); point videos are drawn per batch from the given-points mask, so Masked
Point Recovery can mask anew at every step. Depth enters the networks as log depth / log FAR in [0, 1].
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import atomic_write_bytes
from proceedings.core.staging import Paused, past_deadline
from proceedings.motionforcing import drive_world
from proceedings.motionforcing.camera import FAR, Intrinsics
from proceedings.motionforcing.conditions import ego_warp, point_video

MAX_AGENTS = 5


def normalise_depth(depth: np.ndarray | torch.Tensor):
    """Metres -> log depth / log FAR; 0 stays 0 (warp holes)."""
    if isinstance(depth, torch.Tensor):
        return torch.where(depth > 0, torch.log(depth.clamp_min(1e-3)) / np.log(FAR), torch.zeros_like(depth))
    return np.where(depth > 0, np.log(np.maximum(depth, 1e-3)) / np.log(FAR), 0.0).astype(np.float32)


def metres(normalised: torch.Tensor) -> torch.Tensor:
    return torch.exp(normalised.clamp(0, 1.2) * np.log(FAR))


@dataclass
class ClipSet:
    rgb: np.ndarray  # (N, T, 3, H, W) float32
    depth: np.ndarray  # (N, T, H, W) float32 metres
    ids: np.ndarray  # (N, T, H, W) uint8
    warp: np.ndarray  # (N, T, H, W) float32 metres, 0 = hole
    centres: np.ndarray  # (N, A, T, 2)
    centre_depth: np.ndarray  # (N, A, T)
    radii0: np.ndarray  # (N, A)
    colours: np.ndarray  # (N, A, 3) body colours (the localiser's query)
    present: np.ndarray  # (N, A) bool
    cams: np.ndarray  # (N, T, 3)

    def __len__(self) -> int:
        return len(self.rgb)

    @property
    def frames(self) -> int:
        return self.rgb.shape[1]

    @property
    def size(self) -> int:
        return self.rgb.shape[-1]

    @classmethod
    def from_clips(cls, clips: list[drive_world.Clip]) -> "ClipSet":
        A, T = MAX_AGENTS, clips[0].rgb.shape[0]
        n = len(clips)
        centres, cdepth = np.zeros((n, A, T, 2)), np.ones((n, A, T))
        radii, colours, present = np.zeros((n, A)), np.zeros((n, A, 3)), np.zeros((n, A), bool)
        for i, c in enumerate(clips):
            k = len(c.radii0)
            centres[i, :k], cdepth[i, :k], radii[i, :k], colours[i, :k], present[i, :k] = (
                c.centres, c.centre_depth, c.radii0, c.colours, True)
        warp = [ego_warp(c.depth[0], c.static_mask[0], c.K, c.cams) for c in clips]
        return cls(np.stack([c.rgb for c in clips]), np.stack([c.depth for c in clips]),
                   np.stack([c.ids for c in clips]), np.stack(warp), centres, cdepth, radii, colours, present,
                   np.stack([c.cams for c in clips]))

    @classmethod
    def concat(cls, sets: list["ClipSet"]) -> "ClipSet":
        return cls(**{f.name: np.concatenate([getattr(s, f.name) for s in sets]) for f in fields(cls)})

    def subset(self, index) -> "ClipSet":
        return ClipSet(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **{f.name: getattr(self, f.name) for f in fields(self)})
        return buffer.getvalue()

    @classmethod
    def load(cls, path: Path) -> "ClipSet":
        try:
            with np.load(path) as data:
                return cls(**{f.name: data[f.name] for f in fields(cls)})
        except (OSError, KeyError, ValueError) as err:
            raise ProceedingsError(f"clip shard '{path}' cannot be read ({err}); delete it and rebuild") from err

    def given_all(self) -> np.ndarray:
        """Every present agent's point given in every frame. (N, A, T)"""
        return np.repeat(self.present[:, :, None], self.frames, 2)


def build(out: Path, clips: int, frames: int, size: int, seed: int, shard: int = 128, ego_variants: bool = False,
          agents: tuple[int, int] = (2, MAX_AGENTS), desc: str = "render clips", deadline: float | None = None) -> ClipSet:
    """Render `clips` clips (seeds seed, seed + 1, ...) into shards under `out`; finished shards (marked
    `.done`) are kept, so an interrupted build resumes, and past `deadline` (time.time()) it stops with
    Paused after each shard it renders. With `ego_variants`, each seed gives the four ego paths of the
    ego-only suite (clips must be a multiple of 4)."""
    out.mkdir(parents=True, exist_ok=True)
    per_seed = 4 if ego_variants else 1
    sets = []
    with progress_bar(total=clips, desc=desc, unit="clip") as bar:
        for first in range(0, clips, shard):
            n = min(shard, clips - first)
            path, done = out / f"shard_{first:06d}.npz", out / f"shard_{first:06d}.done"
            if not done.exists():
                rendered = []
                for i in range(first // per_seed, (first + n) // per_seed):
                    rendered += (drive_world.sample_ego_variants(seed + i, frames, size, agents) if ego_variants
                                 else [drive_world.sample(seed + i, frames, size, agents)])
                atomic_write_bytes(path, ClipSet.from_clips(rendered).to_bytes())
                done.touch()
                if past_deadline(deadline):
                    raise Paused(f"{desc}: time budget reached after {first + n}/{clips} clips; run the same "
                                 "command again to resume")
            sets.append(ClipSet.load(path))
            bar.update(n)
    return ClipSet.concat(sets)


@dataclass
class Batch:
    """Model inputs and targets for a batch of clips (torch, float32)."""

    image0: torch.Tensor  # (B, 3, H, W)
    depth0: torch.Tensor  # (B, 1, H, W) normalised
    points: torch.Tensor  # (B, T, 3, H, W) point video
    valid: torch.Tensor  # (B, T, 1, H, W) point-valid channel
    warp: torch.Tensor  # (B, T, 1, H, W) normalised ego-warp depth
    depth: torch.Tensor  # (B, T, 1, H, W) normalised target depth
    rgb: torch.Tensor  # (B, T, 3, H, W) target video
    given: np.ndarray  # (B, A, T) which points were given
    moving: torch.Tensor | None = None  # (B, T, 1, H, W) 1 where an agent is at frame t or at frame 0

    @property
    def static(self) -> torch.Tensor:
        """[I0, D0]: the image condition of stage 1 and of the direct model."""
        return torch.cat([self.image0, self.depth0], 1)

    @property
    def per_frame(self) -> torch.Tensor:
        """[point video, point-valid, ego warp] per frame."""
        return torch.cat([self.points, self.valid, self.warp], 2)


def batch(data: ClipSet, index: np.ndarray, given: np.ndarray) -> Batch:
    """Inputs for clips `index` with the points `given` (B, A, T) (masked points are not drawn)."""
    K = Intrinsics.for_size(data.size)
    pvs, valids = [], []
    for i, g in zip(index, given):
        keep = data.present[i]
        pv, valid = point_video(data.centres[i][keep], data.centre_depth[i][keep], data.radii0[i][keep], g[keep], K.size)
        pvs.append(pv)
        valids.append(valid)
    T, H = data.frames, data.size
    depth = torch.from_numpy(normalise_depth(data.depth[index]))[:, :, None]
    valid = torch.from_numpy(np.stack(valids))[:, :, None, None, None].expand(-1, -1, 1, H, H)
    agents = data.ids[index] > 0
    moving = torch.from_numpy(agents | agents[:, :1]).float()[:, :, None]
    return Batch(image0=torch.from_numpy(data.rgb[index, 0]), depth0=depth[:, 0], points=torch.from_numpy(np.stack(pvs)),
                 valid=valid.contiguous(), warp=torch.from_numpy(normalise_depth(data.warp[index]))[:, :, None],
                 depth=depth, rgb=torch.from_numpy(data.rgb[index]), given=given, moving=moving)
