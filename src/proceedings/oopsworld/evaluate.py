"""The benchmark (spec §2.6): every arm rolls out every episode from its GT start, on one prompt
surface, and is scored per episode by the frozen probe readers, PSNR at segment ends, dynamic degree on
dynamic segments (beside GT's) and the Long-Quality proxy. The gates read the same numbers on GT video,
a frozen-first-frame video, and an easy split generated from GT history.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from proceedings.oopsworld.data import Episode
from proceedings.oopsworld.generator import ChunkGenerator, rollout
from proceedings.oopsworld.metrics import clip_dimensions, dynamic_degree, motion_direction_ok, psnr, quality_score
from proceedings.oopsworld.probes import SchemaReaders, screen_position
from proceedings.oopsworld.training import SegmentData

CLIP = 16  # Long-Quality clips, frames (spec §2.6)


@dataclass
class VideoScores:
    """Per-episode numbers of one arm on one surface (or of GT / a frozen video)."""

    change: np.ndarray  # (E,) change-probe accuracy (nan: episode had none)
    anchor: np.ndarray  # (E,)
    anchor_by_segment: np.ndarray  # (E, S)
    psnr_by_segment: np.ndarray  # (E, S) last frame vs GT
    dd: np.ndarray  # (E,) fraction of dynamic segments judged dynamic (nan: none)
    dd_dynamic_ops_change: np.ndarray  # (E,) change accuracy on dynamic-op segments only
    motion: np.ndarray  # (E,) motion responsiveness
    clip_quality: np.ndarray  # (E, clips, 7): each 16-frame clip's 6 quality dimensions + "static" flag; (E, 0, 7) unscored

    def summary(self, dd_gt: float) -> dict[str, float]:
        dd = float(np.nanmean(self.dd))
        out = {"change_acc": _mean(self.change), "anchor_acc": _mean(self.anchor),
               "anchor_acc_last_segment": _mean(self.anchor_by_segment[:, -1]),
               "psnr_first_segment": _mean(self.psnr_by_segment[:, 0]),
               "psnr_last_segment": _mean(self.psnr_by_segment[:, -1]),
               "dynamic_degree": dd, "excess_dynamic_degree": round(dd - dd_gt, 4),
               "change_acc_dynamic_ops": _mean(self.dd_dynamic_ops_change),
               "motion_responsiveness": _mean(self.motion),
               **(episode_quality(self.clip_quality) if self.clip_quality.size else {})}
        return {k: round(float(v), 4) for k, v in out.items()}


def episode_quality(clip_quality: np.ndarray) -> dict[str, float]:
    """The Long-Quality proxy of episodes' clips (E, clips, 7), pooled over every clip."""
    flat = clip_quality.reshape(-1, clip_quality.shape[-1])
    return quality_score(flat[:, :-1], flat[:, -1] > 0)


def _mean(x: np.ndarray) -> float:
    x = np.asarray(x, float)
    return float(np.nanmean(x)) if np.isfinite(x).any() else float("nan")


def score_videos(videos: np.ndarray, episodes: list[Episode], readers: SchemaReaders,
                 with_quality: bool = True) -> VideoScores:
    """videos: (E, 2 + S*K, H, W, 3) float in [0, 1], the first two frames being the GT history."""
    e_count, s_count = len(episodes), episodes[0].segments
    k = episodes[0].programs[0].frames
    ends = [2 + (s + 1) * k - 1 for s in range(s_count)]
    frames, contexts, probes = [], [], []
    for e, ep in enumerate(episodes):
        for s in range(s_count):
            frames.append(videos[e, ends[s]])
            contexts.append((ep, s))
            probes.append([p for p in ep.probes if p.segment == s])
    answers = readers.answer(frames, contexts, probes)
    change, anchor = np.full(e_count, np.nan), np.full(e_count, np.nan)
    anchor_seg, psnrs = np.full((e_count, s_count), np.nan), np.zeros((e_count, s_count))
    dd, dyn_change, motion = np.full(e_count, np.nan), np.full(e_count, np.nan), np.full(e_count, np.nan)
    for e, ep in enumerate(episodes):
        per = [(probes[e * s_count + s], answers[e * s_count + s]) for s in range(s_count)]
        kinds = np.array([p.kind for plist, _ in per for p in plist])
        right = np.concatenate([a for _, a in per])
        if (kinds == "change").any():
            change[e] = right[kinds == "change"].mean()
        if (kinds == "anchor").any():
            anchor[e] = right[kinds == "anchor"].mean()
        dyn_right, dd_flags = [], []
        for s, (plist, a) in enumerate(per):
            is_anchor = np.array([p.kind == "anchor" for p in plist], bool)
            anchor_seg[e, s] = a[is_anchor].mean() if is_anchor.any() else np.nan
            psnrs[e, s] = psnr(videos[e, ends[s]], ep.frames[ends[s]].astype(np.float32) / 255.0)
            if ep.programs[s].dynamics >= 1:
                dd_flags.append(dynamic_degree(videos[e, ends[s] - k:ends[s] + 1]))
            if ep.programs[s].dynamics == 2:
                dyn_right.extend(a[~is_anchor])
        dd[e] = np.mean(dd_flags) if dd_flags else np.nan
        dyn_change[e] = np.mean(dyn_right) if dyn_right else np.nan
        ok = []
        for m in ep.motions:
            s = m["segment"]
            clip = videos[e, ends[s] - k:ends[s] + 1]
            cam = ep.scenes[s]["global"]["camera"]
            where = None if m["where"] is None else screen_position(cam, m["where"], videos.shape[2])
            ok.append(motion_direction_ok(clip, m["direction"], where))
        motion[e] = np.mean(ok) if ok else np.nan
    quality = _clip_quality(videos, episodes, readers) if with_quality else np.zeros((e_count, 0, 7))
    return VideoScores(change, anchor, anchor_seg, psnrs, dd, dyn_change, motion, quality)


def _clip_quality(videos: np.ndarray, episodes: list[Episode], readers: SchemaReaders) -> np.ndarray:
    """Each episode's 16-frame clips: quality dimensions and whether every segment in the clip is low-dynamic."""
    k = episodes[0].programs[0].frames
    rows = []
    for e, ep in enumerate(episodes):
        body = videos[e, 2:]
        starts = range(0, body.shape[0] - CLIP + 1, CLIP)
        dims = clip_dimensions([body[t:t + CLIP] for t in starts],
                               [ep.frames[2 + t:2 + t + CLIP].astype(np.float32) / 255.0 for t in starts],
                               readers.subject_features, readers.background_features)
        static = [all(ep.programs[s].dynamics <= 1 for s in range(t // k, (t + CLIP) // k)) for t in starts]
        rows.append(np.concatenate([dims, np.asarray(static, float)[:, None]], 1))
    return np.stack(rows)


def generate(model: ChunkGenerator, data: SegmentData, surface: str) -> np.ndarray:
    """Roll out every episode of `data` from its GT history: (E, 2 + S*K, H, W, 3) float."""
    e_count, s_count = data.frames.shape[0], data.segments
    out = []
    for start in range(0, e_count, 32):
        eps = np.arange(start, min(start + 32, e_count))
        ids = eps * s_count
        history, _ = data.chunk(ids)
        tokens = [data.tokens(surface, ids + s) for s in range(s_count)]
        video = rollout(model, history, [t[0] for t in tokens], [t[1] for t in tokens])
        out.append(torch.cat([history, video], 1).permute(0, 1, 3, 4, 2).numpy())
    return np.concatenate(out)


def generate_from_gt(model: ChunkGenerator, data: SegmentData, surface: str) -> np.ndarray:
    """Every segment generated from GT history (teacher forcing at test time): (E, 2 + S*K, H, W, 3)."""
    videos = data.frames.astype(np.float32) / 255.0
    k = data.frames_per_segment
    with torch.no_grad():
        for ids in np.array_split(np.arange(data.count), max(1, data.count // 64)):
            history, _ = data.chunk(ids)
            chunk = model(history, *data.tokens(surface, ids)).clamp(0, 1).permute(0, 1, 3, 4, 2).numpy()
            for n, i in enumerate(ids):
                e, s = divmod(int(i), data.segments)
                videos[e, 2 + s * k:2 + (s + 1) * k] = chunk[n]
    return videos


def frozen_first_frame(data: SegmentData) -> np.ndarray:
    """The video that never changes: the last history frame repeated."""
    videos = data.frames.astype(np.float32) / 255.0
    videos[:, 2:] = videos[:, 1:2]
    return videos


def gt_videos(data: SegmentData) -> np.ndarray:
    return data.frames.astype(np.float32) / 255.0
