"""MoCAR: next-code prediction in a continuous, coordinate-aware motion-code space (abstract; spec §2.3).

History segments are encoded to codes (posterior means) and form a teacher-forced prefix; the decoder
predicts the next code; in the rollout each predicted code stays in the latent memory as the next
input token (never re-encoded) while its decoded transition moves the agent's frame, from which the
map and neighbours are seen anew. K mode streams carry learned mode embeddings from the last history
token on and attend to each other at every step. Training is joint: tokenizer reconstruction + weak
KL, latent alignment of predicted to posterior codes (stop-gradient on the target), winner-take-all on
the trajectory decoded from the predicted codes with *predicted* transitions composed from the
current frame, and cross-entropy on the mode logits. Those inputs are the posterior codes of the true
segments, while the rollout feeds back its own codes; measured at small (README), the teacher-forced
trajectory was within 1 m (minADE6) and the rollout drifted to 10 m. The closed-loop term (`closed_loop`,
the free-running tail of spec §2.3 taken over the whole horizon) adds the same winner-take-all loss on the
rollout itself, back-propagated through its fed-back codes and composed frames.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.mocar.backbone import Backbone, BackboneConfig
from proceedings.mocar.batch import Batch
from proceedings.mocar.forecast import Forecast, clamp_transition, winner_take_all
from proceedings.mocar.frames import compose, place, to_global


@dataclass(frozen=True)
class MoCARConfig:
    backbone: BackboneConfig = field(default_factory=BackboneConfig)
    code_dim: int = 16
    tokenizer_hidden: int = 128
    modes: int = 6
    beta: float = 1e-3  # weak KL (spec §2.2); ablation: 0
    alignment: float = 1.0  # weight of the latent alignment loss; ablation: 0
    frozen_tokenizer: bool = False  # ablation: the pre-trained tokenizer stays frozen (no joint training)
    retokenize: bool = False  # ablation: re-encode each decoded segment instead of keeping the predicted code
    # weight of the winner-take-all loss on the model's own rollout (closed loop, README "the cause");
    # 0 = teacher-forced inputs only, as in round 2
    closed_loop: float = 0.0
    closed_loop_start: float = 0.0  # share of the training steps before the closed-loop term is switched on

    def to_dict(self) -> dict:
        return asdict(self)


class MoCAR(nn.Module):
    def __init__(self, cfg: MoCARConfig):
        super().__init__()
        from proceedings.mocar.tokenizer import Tokenizer

        self.cfg = cfg
        d = cfg.backbone.d
        self.tokenizer = Tokenizer(cfg.code_dim, cfg.tokenizer_hidden)
        self.embed = nn.Sequential(nn.Linear(cfg.code_dim, d), nn.GELU(), nn.Linear(d, d))
        self.mode = nn.Embedding(cfg.modes, d)
        self.backbone = Backbone(cfg.backbone)
        self.next_code = nn.Linear(d, cfg.code_dim)
        self.mode_logit = nn.Linear(d, 1)
        self.closed_loop_on = cfg.closed_loop > 0 and cfg.closed_loop_start == 0

    def at_step(self, step: int, steps: int) -> None:
        """Training is at `step` of `steps`: teacher forcing alone before `closed_loop_start`, then closed loop
        too (scheduled sampling's order: a model that first learns one step then learns its own rollout)."""
        self.closed_loop_on = self.cfg.closed_loop > 0 and step >= self.cfg.closed_loop_start * steps

    def tokens(self, codes: torch.Tensor, history: int, first: int = 0) -> torch.Tensor:
        """codes (B, K, T, D) -> embeddings, with mode embeddings from the last history token on."""
        h = self.embed(codes)
        T, K = codes.shape[2], codes.shape[1]
        is_mode = (torch.arange(first, first + T, device=h.device) >= history - 1).to(h.dtype)[None, None, :, None]
        return h + is_mode * self.mode.weight[None, :K, None, :]

    def teacher_forced(self, batch: Batch, mu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The training view: every input is the posterior code `mu` (B, n, D) of the true segment. Returns the
        future decoded from the predicted codes with *predicted* transitions composed from the current frame
        (B, K, F*S, 2), the mode logits (B, K) and the predicted codes of segments 1..n-1 (B, K, n-1, D)."""
        H, K = batch.history, self.cfg.modes
        frames = batch.frames()  # (B, n+1, 3)
        inputs = mu[:, None, :-1].expand(-1, K, -1, -1)  # codes of segments 0..n-2, teacher-forced
        h, _ = self.backbone(self.tokens(inputs, H), frames[:, None, 1:-1], batch)  # frames shared by the streams
        predicted = self.next_code(h)  # (B, K, n-1, D): codes of segments 1..n-1
        seg_pts, seg_T = self.tokenizer.decode(predicted[:, :, H - 1:])  # the F future segments
        trajectory = place(seg_pts, frames[:, None, H].expand(-1, K, -1), seg_T)
        return trajectory, self.mode_logit(h[:, :, H - 1]).squeeze(-1), predicted

    def loss(self, batch: Batch, generator: torch.Generator | None = None) -> tuple[torch.Tensor, dict]:
        cfg, H, Fn = self.cfg, batch.history, batch.future
        points, headings, transitions = batch.segments()  # (B, n, S, 2), (B, n, S), (B, n, 3)
        recon, mu, logs = self.tokenizer.loss(points, headings, transitions, cfg.beta, generator)
        K = cfg.modes
        trajectory, logits, predicted = self.teacher_forced(batch, mu)
        traj_loss, winner = winner_take_all(trajectory, logits, batch.future_xy())
        target = mu[:, 1:].detach()
        rows = torch.arange(len(winner), device=winner.device)
        align_future = F.mse_loss(predicted[rows, winner, H - 1:], target[:, H - 1:])
        align_history = F.mse_loss(predicted[:, 0, :H - 1], target[:, :H - 1]) if H > 1 else 0.0 * align_future
        align = align_future + align_history
        total = recon + cfg.alignment * align + traj_loss
        logs = {**logs, "align": float(align.detach()), "trajectory": float(traj_loss.detach())}
        if self.closed_loop_on:  # the trajectory the rollout itself produces, from the stream's own codes
            rolled, rolled_logits, _ = self.roll_out(batch, K, Fn)
            closed, _ = winner_take_all(rolled, rolled_logits, batch.future_xy())
            total = total + cfg.closed_loop * closed
            logs["closed_loop"] = float(closed.detach())
        return total, logs

    def roll_out(self, batch: Batch, modes: int, horizon: int) -> tuple[torch.Tensor, torch.Tensor, int]:
        """History codes as a teacher-forced prefix, then `horizon` codes each predicted from the stream's own
        earlier codes: points (B, K, horizon*S, 2), mode logits (B, K), clamped segments.

        Each predicted code is kept as the next input token (latent memory) and its decoded transition moves
        the frame the next token sees from. Differentiable: the closed-loop loss trains through it.
        """
        H = batch.history
        points, headings, _ = batch.segments()
        frames = batch.frames()
        codes = self.tokenizer.encode(points[:, :H], headings[:, :H])[0][:, None].expand(-1, modes, -1, -1)
        h, past = self.backbone(self.tokens(codes, H), frames[:, None, 1:H + 1], batch)
        logits = self.mode_logit(h[:, :, H - 1]).squeeze(-1)
        frame = frames[:, None, H].expand(-1, modes, -1)
        out, clamped = [], 0
        for step in range(horizon):
            z = self.next_code(h[:, :, -1])  # (B, K, D)
            seg, transition = self.tokenizer.decode(z)
            transition, n = clamp_transition(transition)
            clamped += n
            out.append(to_global(seg, frame))
            if self.cfg.retokenize:  # ablation: the decoded segment is re-encoded (trajectory-space re-tokenisation)
                z = self.tokenizer.encode(seg, path_headings(seg, transition[..., 2]))[0]
            frame = compose(frame, transition)
            if step + 1 < horizon:
                h, past = self.backbone(self.tokens(z[:, :, None], H, first=H + step), frame[:, :, None], batch,
                                        first=H + step, past=past)
        return torch.cat(out, dim=2), logits, clamped

    @torch.no_grad()
    def predict(self, batch: Batch, modes: int | None = None, horizon: int | None = None) -> Forecast:
        """Roll out `horizon` future segments (default: the batch's) in K parallel mode streams."""
        K = modes or self.cfg.modes
        if K < 1 or K > self.cfg.modes:
            raise ValueError(f"modes must be in 1..{self.cfg.modes}")
        points, logits, clamped = self.roll_out(batch, K, horizon or batch.future)
        return Forecast(points, torch.softmax(logits, -1), clamped)

def path_headings(points: torch.Tensor, end_heading: torch.Tensor) -> torch.Tensor:
    """Headings of decoded points (..., S, 2) from their displacements; the last one is the decoded dθ."""
    step = points - torch.cat((torch.zeros_like(points[..., :1, :]), points[..., :-1, :]), dim=-2)
    heading = torch.atan2(step[..., 1], step[..., 0])
    return torch.cat((heading[..., :-1], end_heading[..., None]), dim=-1)
