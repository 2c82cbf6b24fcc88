"""SMART-lite: discrete next-token motion prediction with re-tokenisation (SMART, rainmaker22/SMART).

The vocabulary is a k-disk cover of 0.5 s segments in their local frames: segments are taken in
random order and one becomes a token when no token lies within `radius` (mean point distance); the
radius halves until `size` tokens are found. A track is tokenised closed-loop: from the frame reached
so far, the next ground-truth segment is matched to the nearest token and the frame moves by the
*token's* transition, so tokenisation error never accumulates. The model shares the decoder with
MoCAR; it learns next-token cross-entropy, and its rollout samples K token sequences, decodes each
sampled token to points and re-tokenises them before they become the next input.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from proceedings.mocar.backbone import Backbone, BackboneConfig
from proceedings.mocar.batch import Batch
from proceedings.mocar.forecast import Forecast
from proceedings.mocar.frames import compose, to_global, to_local, wrap

HEADING_M_PER_RAD = 2.0  # a radian of end-heading error costs like 2 m of position error


class Vocabulary(nn.Module):
    def __init__(self, points: torch.Tensor, transitions: torch.Tensor):
        super().__init__()
        self.register_buffer("points", points)  # (V, S, 2)
        self.register_buffer("transitions", transitions)  # (V, 3)

    @classmethod
    def k_disk(cls, points: torch.Tensor, transitions: torch.Tensor, size: int, seed: int = 0,
               radius: float = 1.0) -> "Vocabulary":
        """Cover segments (n, S, 2) / (n, 3) with `size` tokens (halving the radius until enough)."""
        size = min(size, len(points))
        order = np.random.default_rng(seed).permutation(len(points))
        pts, trans = points[order], transitions[order]
        while True:
            chosen, covered = [], torch.zeros(len(pts), dtype=torch.bool)
            for i in range(len(pts)):
                if covered[i]:
                    continue
                chosen.append(i)
                covered |= _distance(pts, trans, pts[i:i + 1], trans[i:i + 1])[:, 0] < radius
                if len(chosen) == size:
                    idx = torch.tensor(chosen)
                    return cls(pts[idx].clone(), trans[idx].clone())
            radius /= 2

    def __len__(self) -> int:
        return len(self.points)

    def nearest(self, points: torch.Tensor, end_heading: torch.Tensor) -> torch.Tensor:
        """Token index of segments (..., S, 2) with end headings (...,) in their frames."""
        flat = points.reshape(-1, *points.shape[-2:])
        trans = torch.cat((flat[:, -1], end_heading.reshape(-1, 1)), dim=-1)
        return _distance(self.points, self.transitions, flat, trans).argmin(0).reshape(points.shape[:-2])

    def tokenize(self, xy: torch.Tensor, heading: torch.Tensor, times: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        """Closed-loop tokens (B, n) of a track and the frames they reach (B, n+1, 3)."""
        frame = torch.cat((xy[:, times[0]], heading[:, times[0], None]), dim=-1)
        tokens, frames = [], [frame]
        for a, b in zip(times[:-1], times[1:]):
            local = to_local(xy[:, a + 1:b + 1], frame)
            token = self.nearest(local, wrap(heading[:, b] - frame[:, 2]))
            frame = compose(frame, self.transitions[token])
            tokens.append(token)
            frames.append(frame)
        return torch.stack(tokens, 1), torch.stack(frames, 1)


def _distance(points_a, trans_a, points_b, trans_b) -> torch.Tensor:
    """(na, nb) mean point distance plus weighted end-heading difference."""
    d = (points_a[:, None] - points_b[None]).norm(dim=-1).mean(-1)
    return d + HEADING_M_PER_RAD * wrap(trans_a[:, None, 2] - trans_b[None, :, 2]).abs()


class SmartLite(nn.Module):
    def __init__(self, vocabulary: Vocabulary, backbone: BackboneConfig):
        super().__init__()
        self.vocabulary = vocabulary
        self.embed = nn.Embedding(len(vocabulary), backbone.d)
        self.backbone = Backbone(backbone)
        self.head = nn.Linear(backbone.d, len(vocabulary))

    def loss(self, batch: Batch, generator: torch.Generator | None = None) -> tuple[torch.Tensor, dict]:
        tokens, frames = self.vocabulary.tokenize(batch.xy, batch.heading, batch.times)
        h, _ = self.backbone(self.embed(tokens[:, None, :-1]), frames[:, None, 1:-1], batch)
        logits = self.head(h[:, 0])  # (B, n-1, V)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        return loss, {"cross_entropy": float(loss.detach())}

    @torch.no_grad()
    def predict(self, batch: Batch, modes: int = 6, horizon: int | None = None,
                generator: torch.Generator | None = None, temperature: float = 1.0) -> Forecast:
        """K sampled token rollouts; mode probabilities from the sequences' likelihoods."""
        H, horizon = batch.history, horizon or batch.future
        tokens, frames = self.vocabulary.tokenize(batch.xy[:, :batch.current + 1], batch.heading[:, :batch.current + 1],
                                                  batch.times[:H + 1])
        h, past = self.backbone(self.embed(tokens[:, None].expand(-1, modes, -1)), frames[:, None, 1:], batch)
        frame = frames[:, None, -1].expand(-1, modes, -1)
        log_p, out = torch.zeros(len(tokens), modes, device=tokens.device), []
        for step in range(horizon):
            probs = torch.softmax(self.head(h[:, :, -1]) / temperature, -1)  # (B, K, V)
            # drawn on the CPU with the seeded generator: the same samples on every device
            sampled = torch.multinomial(probs.reshape(-1, probs.shape[-1]).cpu(), 1, generator=generator)
            sampled = sampled.reshape(probs.shape[:2]).to(probs.device)
            log_p += torch.log(probs.gather(-1, sampled[..., None])[..., 0])
            points = to_global(self.vocabulary.points[sampled], frame)
            out.append(points)
            # re-tokenisation: the decoded trajectory, back in the frame, is matched to the vocabulary again
            again = self.vocabulary.nearest(to_local(points, frame), self.vocabulary.transitions[sampled, 2])
            frame = compose(frame, self.vocabulary.transitions[again])
            if step + 1 < horizon:
                h, past = self.backbone(self.embed(again[:, :, None]), frame[:, :, None], batch, first=H + step, past=past)
        return Forecast(torch.cat(out, dim=2), torch.softmax(log_p, -1))
