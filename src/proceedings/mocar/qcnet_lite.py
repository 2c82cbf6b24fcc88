"""QCNet-lite: the one-shot multi-modal regressor, the query/proposal family's reference (QCNet).

The same decoder reads the history segments (raw points and transitions in their frames); K mode
queries follow the last history token, attend to the history, the context seen from the current
frame and each other, and each regresses the whole future at once in the current frame, with a
mode logit. Trained with the same winner-take-all loss as MoCAR; no refinement stage.
"""

from __future__ import annotations

import torch
from torch import nn

from proceedings.mocar.backbone import Backbone, BackboneConfig
from proceedings.mocar.batch import Batch
from proceedings.mocar.forecast import Forecast, winner_take_all
from proceedings.mocar.frames import SEGMENT, to_global
from proceedings.mocar.tokenizer import SCALE_M, segment_features


class QCNetLite(nn.Module):
    def __init__(self, backbone: BackboneConfig, modes: int = 6, future: int = 12, head_hidden: int = 128):
        super().__init__()
        d = backbone.d
        self.modes, self.future = modes, future
        self.embed = nn.Sequential(nn.Linear(4 * SEGMENT + 3, d), nn.GELU(), nn.Linear(d, d))
        self.query = nn.Parameter(torch.zeros(d))
        self.mode = nn.Embedding(modes, d)
        self.backbone = Backbone(backbone)
        self.head = nn.Sequential(nn.Linear(d, head_hidden), nn.GELU(), nn.Linear(head_hidden, future * SEGMENT * 2))
        self.mode_logit = nn.Linear(d, 1)

    def _forward(self, batch: Batch, modes: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(trajectories (B, K, future*S, 2) in the global frame, logits (B, K))."""
        H = batch.history
        points, headings, transitions = batch.segments()
        feats = torch.cat((segment_features(points[:, :H], headings[:, :H]), transitions[:, :H, :2] / SCALE_M,
                           transitions[:, :H, 2:]), dim=-1)
        history = self.embed(feats)[:, None].expand(-1, modes, -1, -1)
        query = (self.query + self.mode.weight[:modes])[None, :, None].expand(len(feats), -1, -1, -1)
        frames = batch.frames()
        token_frames = torch.cat((frames[:, 1:H + 1], frames[:, H:H + 1]), dim=1)[:, None]  # shared by the K queries
        h = self.backbone(torch.cat((history, query), dim=2), token_frames, batch)[0][:, :, H]
        local = self.head(h).reshape(*h.shape[:2], -1, 2)
        return to_global(local, frames[:, None, H].expand(-1, modes, -1)), self.mode_logit(h).squeeze(-1)

    def loss(self, batch: Batch, generator: torch.Generator | None = None) -> tuple[torch.Tensor, dict]:
        trajectories, logits = self._forward(batch, self.modes)
        loss, _ = winner_take_all(trajectories, logits, batch.future_xy())
        return loss, {"wta": float(loss.detach())}

    @torch.no_grad()
    def predict(self, batch: Batch, modes: int | None = None, horizon: int | None = None) -> Forecast:
        trajectories, logits = self._forward(batch, modes or self.modes)
        steps = (horizon or batch.future) * SEGMENT
        return Forecast(trajectories[:, :, :steps], torch.softmax(logits, -1))
