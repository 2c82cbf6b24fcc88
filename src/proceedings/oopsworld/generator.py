"""The chunk-causal generator (spec §2.5, issue 31): one chunk = one segment of K frames.

A small UNet reads the last two history frames; its 16x16 and 8x8 feature maps cross-attend to the
condition tokens (tanh-gated, GLIGEN-style). The chunk is produced *end state first*: one head
predicts the segment's last frame as a residual on the last history frame, a second head predicts
the K-1 in-between frames from the features and that end state. Rolled out, each chunk's last two
frames are the next chunk's history (self-forcing style), so the model is causal over segments.
The same network is the teacher (scene tokens), B1, B2 and OopsWorld (operation tokens).

Two options make *what* an operation does cheap to learn (round 13; every arm shares them): `palette`
paints the redrawn region from the world's colour vocabulary (a softmax per pixel, times a per-frame
tint) instead of free RGB, and `layers` moves the last frame's content as J object layers and a
background, each by its own per-frame displacement, instead of a dense 8x8 flow. `ramp` gives the
in-between frames no redraw of their own: they fade in the end state's (round 13: their K-1 free
paints flickered, so every generated chunk was judged dynamic). `erase` (round 14) gives the redraw a second
mask that clears the frame to its surrounding background (what a moved object uncovers), so the redraw's colour
need not learn backgrounds: trained on recolor alone the colour follows the request, beside moves it paints
background on the recoloured object (README, round 14). `gated` (round 16) gives the end state one redraw head per
operator family, picked by the op tokens' operator words, so a recolour's head is one no move or tint writes over
(round 15: a learned recolour is wiped within ~20 steps once other operators train the one shared head).
`paint_attn` (round 17) adds to the end head's colour logits a cross-attention from the 32x32 features it reads to
the condition tokens, so a token's colour word reaches the painted colour in one linear step (round 16: the recolour
head opened on the body but painted the requested colour at chance; the word reached the trunk, not the paint).
`paint_gate` (round 18) multiplies that offset by a per-pixel gate from the same features: with one op token the
attention's output is one offset for the whole frame, pulled by every pixel where the head opens, so the gate lets
it act on the recoloured body alone. `forward(..., with_colour=True)` also returns the end head's colour before the
mask, for the training option that supervises it inside the changed region (`changed_colour_l1`);
`with_layers=True` returns the object layers' split and displacements, which round 19 supervises with the world's
own masks and motions (`layer_targets`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from proceedings.oopsworld.encoders import MiniLMTokens, structured_vocabulary, word_families
from proceedings.oopsworld.taxonomy import FAMILIES
from proceedings.oopsworld.world import COLORS, OUTLINE, SKY_GROUND


@dataclass(frozen=True)
class GeneratorConfig:
    channels: tuple[int, int, int] = (16, 32, 64)
    frames: int = 8  # K, frames per chunk (= segment)
    history: int = 2
    token_dim: int = 64
    encoder: str = "structured"  # "structured" | "text"
    warp: bool = True  # each frame starts from the last history frame warped by a predicted flow
    masked: bool = True  # masked redraw: repaint only where a predicted mask opens, keep the rest (else a free residual)
    palette: bool = False  # the redraw's colour is a softmax over PALETTE (times a per-frame tint), not free RGB
    layers: int = 0  # J > 0: the warp moves J object layers + the background rigidly instead of the 8x8 flow
    ramp: bool = False  # in-between frames fade in the end state's one redraw (a per-frame ramp), no K-1 own paints
    erase: bool = False  # a second mask clears to the surrounding background before the redraw paints (round 14)
    gated: bool = False  # one end-state redraw head per operator family, picked by the op tokens (round 16)
    paint_attn: bool = False  # the end head's colour logits + a 32x32 cross-attention to the tokens (round 17)
    paint_gate: bool = False  # paint_attn's colour offset times a per-pixel gate from the 32x32 features (round 18)


MASK_BIAS = -3.0  # initial mask logit: sigmoid(-3) = 0.05
# the world's colour vocabulary: object colours, outline, every environment's sky and ground, black, white
PALETTE = torch.tensor([*COLORS.values(), OUTLINE, *(c for pair in SKY_GROUND.values() for c in pair),
                        (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)])
LAYER_BIAS = 4.0  # initial background logit against 0 for each object layer
INPAINT = 15  # px: the window whose background pixels fill an object layer's hole


class TokenAttention(nn.Module):
    """Feature map queries (B, C, H, W) attend to condition tokens (B, L, D): the attention output (B, C, H, W)."""

    def __init__(self, channels: int, token_dim: int, heads: int = 4):
        super().__init__()
        self.norm = nn.GroupNorm(8, channels)
        self.attn = nn.MultiheadAttention(channels, heads, kdim=token_dim, vdim=token_dim, batch_first=True)

    def forward(self, x: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        q = self.norm(x).flatten(2).transpose(1, 2)  # (batch, h*w, c)
        out, _ = self.attn(q, tokens, tokens, key_padding_mask=~mask, need_weights=False)
        return out.transpose(1, 2).reshape(b, c, h, w)


class CrossAttention(TokenAttention):
    """The attention output added to the feature map through a tanh gate (GLIGEN-style)."""

    def __init__(self, channels: int, token_dim: int, heads: int = 4):
        super().__init__(channels, token_dim, heads)
        self.gate = nn.Parameter(torch.tensor(0.5))

    def forward(self, x: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x + torch.tanh(self.gate) * super().forward(x, tokens, mask)


class PaintAttention(TokenAttention):
    """The attention output projected to `colours` logits (B, colours, H, W), added to the end head's colour logits
    (round 17): a token's colour word reaches the paint in one linear step, not only through the trunk. With `gate`
    (round 18) the offset is multiplied by sigmoid(1x1 conv of the features), so it can act where the head must
    repaint (the recoloured body) and nowhere else."""

    def __init__(self, channels: int, token_dim: int, colours: int, heads: int = 4, gate: bool = False):
        super().__init__(channels, token_dim, heads)
        self.out = nn.Conv2d(channels, colours, 1)
        self.gate = nn.Conv2d(channels, 1, 1) if gate else None

    def forward(self, x: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        offset = self.out(super().forward(x, tokens, mask))
        return offset if self.gate is None else offset * torch.sigmoid(self.gate(x))


class ResBlock(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(cin, cout, 3, padding=1), nn.Conv2d(cout, cout, 3, padding=1)
        self.norm1, self.norm2 = nn.GroupNorm(8, cout), nn.GroupNorm(8, cout)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.gelu(self.norm1(self.conv1(x)))
        return self.skip(x) + self.norm2(self.conv2(h))


class StructuredTokens(nn.Module):
    """Embeds bags of closed-vocabulary words: (B, L, W) ids -> (B, L, D)."""

    def __init__(self, dim: int):
        super().__init__()
        self.embed = nn.Embedding(len(structured_vocabulary()), dim, padding_idx=0)
        self.out = nn.Sequential(nn.GELU(), nn.Linear(dim, dim))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.out(self.embed(ids).sum(2))


class TextTokens(nn.Module):
    """Projects frozen MiniLM per-token states: (B, L, 384) -> (B, L, D)."""

    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(MiniLMTokens.dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self.proj(states)


class ChunkGenerator(nn.Module):
    """history (B, 2, 3, H, W) in [0, 1] + tokens -> the segment's K frames (B, K, 3, H, W)."""

    def __init__(self, config: GeneratorConfig):
        super().__init__()
        c1, c2, c3 = config.channels
        self.config = config
        self.tokens = StructuredTokens(config.token_dim) if config.encoder == "structured" else TextTokens(config.token_dim)
        self.stem = ResBlock(3 * config.history, c1)
        self.down1, self.enc2 = nn.Conv2d(c1, c2, 3, stride=2, padding=1), ResBlock(c2, c2)
        self.attn16 = CrossAttention(c2, config.token_dim)
        self.down2, self.enc3 = nn.Conv2d(c2, c3, 3, stride=2, padding=1), ResBlock(c3, c3)
        self.attn8 = CrossAttention(c3, config.token_dim)
        self.mid = ResBlock(c3, c3)
        self.attn8_up = CrossAttention(c3, config.token_dim)
        self.up2, self.dec2 = nn.ConvTranspose2d(c3, c2, 4, stride=2, padding=1), ResBlock(2 * c2, c2)
        self.attn16_up = CrossAttention(c2, config.token_dim)
        self.up1, self.dec1 = nn.ConvTranspose2d(c2, c1, 4, stride=2, padding=1), ResBlock(2 * c1, c1)
        if config.palette and not config.masked:
            raise ValueError("palette paints the masked redraw; use masked=True with palette=True")
        if config.erase and not config.masked:
            raise ValueError("erase clears before the masked redraw; use masked=True with erase=True")
        self.colours = len(PALETTE) if config.palette else 3
        paint = self.colours + config.erase + 1 if config.masked else 3  # colour (+ erase logit) (+ mask logit)
        if config.gated and config.encoder != "structured":
            raise ValueError("gated picks a head by the op token's operator word; use encoder='structured' with "
                             "gated=True")
        self.heads = 1 + len(FAMILIES) if config.gated else 1  # gated: head 0 for tokens naming no operator (a scene)
        self.end_head = nn.Conv2d(c1, paint * self.heads, 3, padding=1)
        if config.paint_gate and not config.paint_attn:
            raise ValueError("paint_gate gates the paint attention's offset; use paint_attn=True with paint_gate=True")
        if config.paint_attn:
            self.paint_attn = PaintAttention(c1, config.token_dim, self.colours, gate=config.paint_gate)
        if config.gated:
            self.register_buffer("word_family", torch.from_numpy(word_families()), persistent=False)
        if config.ramp and not config.masked:
            raise ValueError("ramp fades in the masked redraw; use masked=True with ramp=True")
        if config.ramp:  # per-frame share of the end state's redraw, starting at the world's eased profile
            self.ramp_head = nn.Linear(c3, config.frames - 1)
            phase = torch.arange(1, config.frames) / config.frames
            nn.init.zeros_(self.ramp_head.weight)
            with torch.no_grad():
                self.ramp_head.bias.copy_(torch.logit(phase * phase * (3 - 2 * phase)))
        else:
            self.between = nn.Sequential(ResBlock(c1 + 6, c1), nn.Conv2d(c1, paint * (config.frames - 1), 3, padding=1))
        if config.masked:
            self.tone_head = nn.Linear(c3, 3 * config.frames)  # per-frame log-gain per channel (global tints)
            nn.init.zeros_(self.tone_head.weight)
            nn.init.zeros_(self.tone_head.bias)
            for head in (self.end_head, *(() if config.ramp else (self.between[-1],))):  # masks nearly closed: copy
                nn.init.constant_(head.bias.view(-1, paint)[:, self.colours:], MASK_BIAS)
        if config.palette:  # per-frame tint of the palette per channel (time of day), log-gain 0 at start
            self.tint_head = nn.Linear(c3, 3 * config.frames)
            nn.init.zeros_(self.tint_head.weight)
            nn.init.zeros_(self.tint_head.bias)
        if config.layers:  # which layer each pixel of the last frame is in; each layer's per-frame displacement
            self.layer_head = nn.Conv2d(c1, config.layers + 1, 3, padding=1)
            with torch.no_grad():  # mostly background at start (softmax 0.95): the frame is nearly kept
                self.layer_head.bias.copy_(torch.tensor([LAYER_BIAS] + [0.0] * config.layers))
            self.shift_head = nn.Sequential(nn.Linear(c1 + c3, c3), nn.GELU(), nn.Linear(c3, 2 * config.frames))
            nn.init.zeros_(self.shift_head[-1].weight)
            nn.init.zeros_(self.shift_head[-1].bias)
        elif config.warp:  # per-frame displacement in pixels, predicted at 8x8 (smooth), zero at start
            self.flow_head = nn.Conv2d(c3, 2 * config.frames, 3, padding=1)
            nn.init.zeros_(self.flow_head.weight)
            nn.init.zeros_(self.flow_head.bias)

    def forward(self, history: torch.Tensor, token_values: torch.Tensor, token_mask: torch.Tensor,
                with_colour: bool = False, with_layers: bool = False) -> torch.Tensor | tuple:
        """The K frames (B, K, 3, H, W); `with_colour`: also the end head's colour (B, 3, H, W) before its mask;
        `with_layers`: also the layer split's logits (B, J+1, H, W) and displacements (B, K, J+1, 2), as a pair."""
        if with_layers and not self.config.layers:
            raise ValueError("with_layers reads the object layers; use layers > 0")
        b, _, _, h, w = history.shape
        tokens = self.tokens(token_values)  # (B, L, D)
        last = history[:, -1]
        x1 = self.stem(history.reshape(b, -1, h, w) * 2 - 1)  # 32x32
        x2 = self.attn16(self.enc2(self.down1(x1)), tokens, token_mask)  # 16x16
        x3 = self.attn8(self.enc3(self.down2(x2)), tokens, token_mask)  # 8x8
        y3 = self.attn8_up(self.mid(x3), tokens, token_mask)
        y2 = self.attn16_up(self.dec2(torch.cat([self.up2(y3), x2], 1)), tokens, token_mask)
        y1 = self.dec1(torch.cat([self.up1(y2), x1], 1))
        k, pooled = self.config.frames, y3.mean((2, 3))
        if self.config.layers:
            base, layer_out = self._layered(last, y1, pooled)
        elif self.config.warp:
            base = self._warped(last, y3)
        else:
            base = last[:, None].expand(-1, k, -1, -1, -1)
        if self.config.masked:
            base = base * torch.exp(self.tone_head(pooled)).reshape(b, k, 3, 1, 1)
        tint = (torch.exp(self.tint_head(pooled)) if self.config.palette else pooled.new_ones(b, 3 * k)).reshape(b, k, 3, 1, 1)
        end_paint = self._end_paint(y1, tokens, token_values, token_mask).reshape(b, 1, -1, h, w)
        end = self._paint(base[:, -1:], end_paint, tint[:, -1:])[:, 0]  # the end state first, then the frames between
        if self.config.ramp:
            share = torch.sigmoid(self.ramp_head(pooled)).reshape(b, k - 1, 1, 1, 1)
            between = self._paint(base[:, :-1], end_paint.expand(-1, k - 1, -1, -1, -1), tint[:, :-1], share)
        else:
            between = self._paint(base[:, :-1], self.between(torch.cat([y1, end, last], 1)).reshape(b, k - 1, -1, h, w),
                                  tint[:, :-1])
        frames = torch.cat([between, end[:, None]], 1)  # (B, K, 3, H, W)
        extras = (*((self._colour(end_paint, tint[:, -1:])[:, 0],) if with_colour else ()),
                  *((layer_out,) if with_layers else ()))
        return (frames, *extras) if extras else frames

    def _end_paint(self, features: torch.Tensor, tokens: torch.Tensor, token_values: torch.Tensor,
                   token_mask: torch.Tensor) -> torch.Tensor:
        """The end head's paint (B, P, H, W); gated, each sample's mix of its heads by `route`; with `paint_attn`,
        the colour logits plus the paint attention's."""
        paint = self.end_head(features)
        if self.config.gated:
            b, _, h, w = paint.shape
            heads = paint.reshape(b, self.heads, -1, h, w)  # (B, heads, P, H, W)
            paint = torch.einsum("bn,bnphw->bphw", self.route(token_values, token_mask), heads)
        if not self.config.paint_attn:
            return paint
        colour = paint[:, :self.colours] + self.paint_attn(features, tokens, token_mask)
        return torch.cat([colour, paint[:, self.colours:]], 1)

    def route(self, token_values: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
        """Shares (B, heads) of the gated end heads: each op token picks its operator family's head, a composite
        splits evenly between its ops' heads, and tokens that name no operator (a scene prompt) get head 0."""
        family = self.word_family[token_values].amax(2) * token_mask  # (B, L): op token's family + 1, else 0
        counts = F.one_hot(family, self.heads).float().sum(1)  # (B, heads)
        counts[:, 0] = (counts[:, 1:].sum(1) == 0).float()
        return counts / counts.sum(1, keepdim=True)

    def _paint(self, base: torch.Tensor, paint: torch.Tensor, tint: torch.Tensor, share: torch.Tensor | float = 1.0
               ) -> torch.Tensor:
        """Masked redraw (B, F, 3, H, W): base + share * sigmoid(mask) * (colour - base), so what the mask leaves
        closed is kept exactly; the colour is sigmoid RGB, or with a palette tint * softmax(logits) @ PALETTE;
        with `erase`, the base is first cleared where share * sigmoid(erase) opens, to the background around it;
        without masks, a free residual on the base."""
        if not self.config.masked:
            return base + paint
        if self.config.erase:
            hole = share * torch.sigmoid(paint[:, :, -2:-1])
            base = fill_holes(base.flatten(0, 1), 1 - hole.flatten(0, 1)).reshape(base.shape)
        mask = share * torch.sigmoid(paint[:, :, -1:])
        return base + mask * (self._colour(paint, tint) - base)

    def _colour(self, paint: torch.Tensor, tint: torch.Tensor) -> torch.Tensor:
        """The redraw's colour (B, F, 3, H, W): sigmoid RGB, or with a palette tint * softmax(logits) @ PALETTE."""
        if not self.config.palette:
            return torch.sigmoid(paint[:, :, :3])
        return tint * torch.einsum("bfphw,pc->bfchw", torch.softmax(paint[:, :, :self.colours], 2),
                                   PALETTE.to(paint))

    def _layered(self, last: torch.Tensor, features: torch.Tensor, pooled: torch.Tensor
                 ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """`last` moved as J object layers + the background: a softmax assigns each pixel of the last frame to a
        layer, and each layer gets a per-frame displacement from its pooled features (see `move_layers`). Only
        what moving changes is added to `last`, so unmoved layers keep the frame exactly, however soft the
        assignment (a soft split alone would fade every object towards its background fill). Also returns the
        split's logits (B, J+1, H, W) and the displacements (B, K, J+1, 2) (round 19 supervises them)."""
        b, j, k = last.shape[0], self.config.layers + 1, self.config.frames
        logits = self.layer_head(features)
        assign = torch.softmax(logits, 1)  # (B, J+1, H, W)
        per_layer = torch.einsum("bjhw,bchw->bjc", assign, features) / (assign.sum((2, 3))[..., None] + 1e-3)
        shift = self.shift_head(torch.cat([per_layer, pooled[:, None].expand(-1, j, -1)], 2))  # (B, J+1, 2K)
        shift = shift.reshape(b, j, k, 2).transpose(1, 2)
        moved = move_layers(last, assign, shift)
        return last[:, None] + moved - move_layers(last, assign, torch.zeros(b, 1, j, 2)), (logits, shift)

    def _warped(self, last: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """`last` (B, 3, H, W) backward-warped by K predicted flows: (B, K, 3, H, W). Moving content (pans,
        motions, jumps) is then a displacement to learn, not a picture to repaint."""
        b, _, h, w = last.shape
        k = self.config.frames
        flow = F.interpolate(self.flow_head(features), size=(h, w), mode="bilinear", align_corners=False)
        flow = flow.reshape(b * k, 2, h, w).permute(0, 2, 3, 1)  # (B*K, H, W, 2) in pixels (dx, dy)
        ys, xs = torch.meshgrid(torch.arange(h, dtype=last.dtype), torch.arange(w, dtype=last.dtype), indexing="ij")
        grid = torch.stack([xs, ys], -1)[None] - flow  # where each output pixel comes from
        grid = torch.stack([grid[..., 0] * 2 / (w - 1) - 1, grid[..., 1] * 2 / (h - 1) - 1], -1)
        source = last[:, None].expand(-1, k, -1, -1, -1).reshape(b * k, 3, h, w)
        return F.grid_sample(source, grid, mode="bilinear", padding_mode="border", align_corners=True).reshape(b, k, 3, h, w)


def move_layers(last: torch.Tensor, assign: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """Frames (B, K, 3, H, W) of `last` (B, 3, H, W) split by `assign` (B, J+1, H, W; layer 0 the background)
    into layers, each translated rigidly by its per-frame `shift` (B, K, J+1, 2) pixels (dx, dy). The background
    is the frame with object pixels filled by the mean of nearby background pixels (what a moved object
    uncovers), shifted (pans); the object layers are shifted and composited over it in order ("over",
    premultiplied). With zero shifts and a hard assignment the frame is kept exactly."""
    b, _, h, w = last.shape
    k, j = shift.shape[1], assign.shape[1]
    background = fill_holes(last, assign[:, :1])
    rep = lambda x: x[:, None].expand(-1, k, *x.shape[1:]).reshape(b * k, *x.shape[1:])  # noqa: E731
    shift = shift.reshape(b * k, j, 2)
    out = _shift(rep(background), shift[:, 0], "border")
    objects, alphas = rep(assign[:, 1:, None] * last[:, None]), rep(assign[:, 1:, None])  # (B*K, J, 3|1, H, W)
    for n in range(1, j):
        out = out * (1 - _shift(alphas[:, n - 1], shift[:, n], "zeros")) + _shift(objects[:, n - 1], shift[:, n], "zeros")
    return out.reshape(b, k, 3, h, w)


def fill_holes(image: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """`image` (N, C, H, W) with what `keep` (N, 1, H, W) in [0, 1] leaves out replaced by the mean of the kept pixels
    within INPAINT px (where none is near: the image's mean kept colour), softly: image + (1 - keep) * (fill - image)."""
    near = F.avg_pool2d(keep * image, INPAINT, 1, INPAINT // 2, count_include_pad=False)
    weight = F.avg_pool2d(keep, INPAINT, 1, INPAINT // 2, count_include_pad=False)
    far = 1e-2 * keep.mean((2, 3), keepdim=True)
    fill = (near + 1e-2 * (keep * image).mean((2, 3), keepdim=True)) / (weight + far + 1e-6)
    return image + (1 - keep) * (fill - image)


def _shift(image: torch.Tensor, shift: torch.Tensor, padding: str) -> torch.Tensor:
    """Translate each image (N, C, H, W) by its own (dx, dy) pixels (N, 2), bilinearly."""
    n, _, h, w = image.shape
    theta = torch.zeros(n, 2, 3, dtype=image.dtype)
    theta[:, 0, 0], theta[:, 1, 1] = 1.0, 1.0
    theta[:, :, 2] = -shift * torch.tensor([2.0 / w, 2.0 / h], dtype=image.dtype)  # output(p) = input(p - shift)
    grid = F.affine_grid(theta, list(image.shape), align_corners=False)
    return F.grid_sample(image, grid, mode="bilinear", padding_mode=padding, align_corners=False)


def change_weighted_l1(pred: torch.Tensor, target: torch.Tensor, last: torch.Tensor, w: float = 4.0,
                       end_weight: float = 0.5) -> torch.Tensor:
    """L1 with weight 1 + w * [|target - last history frame| > 0.02] (spec §5: identity is no cheap minimum);
    the end state carries `end_weight` of the loss, the K-1 in-between frames the rest (end state first)."""
    weight = 1.0 + w * ((target - last[:, None]).abs() > 0.02).float()
    error = (weight * (pred - target).abs()).mean((0, 2, 3, 4))  # (K,)
    return end_weight * error[-1] + (1 - end_weight) * error[:-1].mean()


def changed_colour_l1(colour: torch.Tensor, target_end: torch.Tensor, last: torch.Tensor) -> torch.Tensor:
    """Mean L1 of the end head's colour (B, 3, H, W) to the GT end frame inside the GT changed region (pixels where
    the end frame differs from the last history frame by > 0.02, as in `change_weighted_l1`); 0 where nothing changed.
    Round 18: the colour is supervised wherever the frame must change, however closed the mask still is there."""
    changed = ((target_end - last).abs() > 0.02).any(1, keepdim=True).float()  # (B, 1, H, W)
    return (changed * (colour - target_end).abs()).sum() / (3 * changed.sum()).clamp(min=1.0)


def rollout(model: ChunkGenerator, history: torch.Tensor, token_values: list[torch.Tensor],
            token_masks: list[torch.Tensor]) -> torch.Tensor:
    """Generate S segments chunk by chunk from the model's own output: (B, S*K, 3, H, W) in [0, 1]."""
    chunks = []
    with torch.no_grad():
        for values, mask in zip(token_values, token_masks):
            chunk = model(history, values, mask).clamp(0, 1)
            chunks.append(chunk)
            history = chunk[:, -model.config.history:]
    return torch.cat(chunks, 1)
