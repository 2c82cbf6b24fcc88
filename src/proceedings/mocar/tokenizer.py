"""The motion tokenizer: a VAE over endpoint-normalised 0.5 s segments (abstract; spec §2.2).

Input: a segment's S points and headings in its start frame F_i (S x (x, y, cos Δθ, sin Δθ)). The
code z ∈ R^D decodes to the S points *and* the frame transition T_i = (dx, dy, dθ): dx, dy are the
last decoded point and dθ is read from a decoded (cos, sin) pair, so each code carries both the
local geometry and the move of the reference frame. Loss: L1 reconstruction plus a weak KL
β·KL(q(z|seg) || N(0, I)) (β ≈ 1e-3; β = 0 is an ablation).

Two choices make the code space usable over a 12-segment rollout (measured, README): (i) the (cos, sin)
of dθ is weighted `HEADING_WEIGHT` times in the reconstruction, because a heading error compounds
along every later segment (unweighted, the decoded dθ stayed at its mean, 0.035 rad off, and 12 composed
segments drifted 5 m); (ii) the reconstruction sees each segment from a slightly perturbed start frame
(`FRAME_JITTER`), so that a segment seen from a frame that has drifted is encoded with the drift and its
decoded transition brings the frame back, as a rollout needs. The code is pre-trained on segments
(`pretrain`) before the joint training, as SMART-lite's vocabulary is built before its training.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.mocar.frames import SEGMENT, relative, to_local, wrap

log = logging.getLogger(__name__)
SCALE_M = 5.0  # positions are divided by this before the networks see them
HEADING_WEIGHT = 30.0  # weight of the decoded (cos dθ, sin dθ) against the points (units of SCALE_M)
FRAME_JITTER = (0.3, 0.05)  # std of the start frame's perturbation: metres (x, y), radians (θ)


def segment_features(points: torch.Tensor, headings: torch.Tensor) -> torch.Tensor:
    """(..., S, 2) points and (..., S) relative headings -> (..., 4S) tokenizer input."""
    return torch.cat((points / SCALE_M, torch.cos(headings)[..., None], torch.sin(headings)[..., None]), dim=-1).flatten(-2)


def seen_from_perturbed_frame(points: torch.Tensor, headings: torch.Tensor, transitions: torch.Tensor,
                              generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Segments (..., S, 2), (..., S), (..., 3) re-expressed in their start frame moved by a random pose."""
    scale = torch.tensor((FRAME_JITTER[0], FRAME_JITTER[0], FRAME_JITTER[1]), device=transitions.device)
    offset = on_cpu_randn((*transitions.shape[:-1], 3), generator, transitions.device) * scale  # the moved frame, in F_i
    return to_local(points, offset), wrap(headings - offset[..., None, 2]), relative(offset, transitions)


def on_cpu_randn(shape: tuple, generator: torch.Generator | None, device: torch.device) -> torch.Tensor:
    """Standard normal noise drawn on the CPU (the training loop's seeded generator), then moved: a run draws
    the same noise on every device."""
    return torch.randn(shape, generator=generator).to(device)


class Tokenizer(nn.Module):
    def __init__(self, code_dim: int = 16, hidden: int = 128, segment: int = SEGMENT):
        super().__init__()
        self.code_dim, self.segment = code_dim, segment
        self.encoder = nn.Sequential(nn.Linear(4 * segment, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                     nn.Linear(hidden, 2 * code_dim))
        self.decoder = nn.Sequential(nn.Linear(code_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                     nn.Linear(hidden, 2 * segment + 2))

    def encode(self, points: torch.Tensor, headings: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(μ, log σ²), each (..., D)."""
        mu, logvar = self.encoder(segment_features(points, headings)).chunk(2, dim=-1)
        return mu, logvar.clamp(-10.0, 6.0)

    def decode(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Code (..., D) -> (points (..., S, 2) in the segment's start frame, transition (..., 3))."""
        out = self.decoder(z)
        points = out[..., :2 * self.segment].reshape(*z.shape[:-1], self.segment, 2) * SCALE_M
        dtheta = torch.atan2(out[..., -1], out[..., -2])
        return points, torch.cat((points[..., -1, :], dtheta[..., None]), dim=-1)

    def loss(self, points: torch.Tensor, headings: torch.Tensor, transitions: torch.Tensor, beta: float,
             generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor, dict]:
        """Reconstruction (L1, metres / SCALE_M, dθ weighted) + β KL of the segments seen from perturbed
        frames; returns (loss, μ of the segments as given, logs)."""
        seen = seen_from_perturbed_frame(points, headings, transitions, generator)
        mu, logvar = self.encode(*seen[:2])
        z = mu + torch.exp(0.5 * logvar) * on_cpu_randn(mu.shape, generator, mu.device)
        out = self.decoder(z)
        angle = seen[2][..., 2:]
        error = (out - torch.cat(((seen[0] / SCALE_M).flatten(-2), torch.cos(angle), torch.sin(angle)), dim=-1)).abs()
        recon = error[..., :-2].mean() + HEADING_WEIGHT * error[..., -2:].mean()
        kl = 0.5 * (mu.pow(2) + logvar.exp() - 1.0 - logvar).sum(-1).mean()
        return recon + beta * kl, self.encode(points, headings)[0], {"recon": float(recon.detach()), "kl": float(kl.detach())}


@dataclass(frozen=True)
class PretrainConfig:
    steps: int = 2000
    batch: int = 256  # segments
    lr: float = 2e-3
    seed: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def pretrain(tokenizer: Tokenizer, points: torch.Tensor, headings: torch.Tensor, transitions: torch.Tensor,
             beta: float, cfg: PretrainConfig, checkpoint: Path | None = None) -> dict:
    """Fit the tokenizer alone on segments (n, S, 2) / (n, S) / (n, 3); AdamW, cosine. A finished run's
    checkpoint is reloaded instead of training again. Returns wall and CPU seconds and the last losses."""
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        tokenizer.load_state_dict(state["model"])
        return state["log"]
    optimiser = torch.optim.AdamW(tokenizer.parameters(), lr=cfg.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, cfg.steps)
    generator = torch.Generator().manual_seed(cfg.seed)
    t0, c0, logs = time.perf_counter(), time.process_time(), {}
    device = next(tokenizer.parameters()).device
    tokenizer.train()
    for _ in progress_bar(range(cfg.steps), desc="pre-train tokenizer", unit="step"):
        idx = torch.randint(0, len(points), (cfg.batch,), generator=generator)
        loss, _, logs = tokenizer.loss(points[idx].to(device), headings[idx].to(device), transitions[idx].to(device),
                                       beta, generator)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        scheduler.step()
    record = {"steps": cfg.steps, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, **logs}
    if checkpoint:
        save_checkpoint(checkpoint, {"model": tokenizer.state_dict(), "log": record})
    return record
