"""Video metrics (spec §2.6): VBench's dynamic-degree rule on Farneback flow, the Long-Quality proxy,
PSNR, motion responsiveness, and paired bootstrap intervals over episodes.

Every stand-in for a VBench network is labelled a proxy: Farneback for RAFT, the frozen probe
reader's features for DINO/CLIP, Farneback-warp interpolation for AMT, Laplacian sharpness
relative to the GT render for MUSIQ; aesthetic quality has no stand-in and is left out.
"""

from __future__ import annotations

import numpy as np

# Vchitect/VBench scripts/constant.py: NORMALIZE_DIC and DIM_WEIGHT (quality dimensions)
VBENCH_NORMALIZE = {"subject consistency": (0.1462, 1.0), "background consistency": (0.2615, 1.0),
                    "temporal flickering": (0.6293, 1.0), "motion smoothness": (0.706, 0.9975),
                    "dynamic degree": (0.0, 1.0), "imaging quality": (0.0, 1.0)}
VBENCH_WEIGHT = {"subject consistency": 1.0, "background consistency": 1.0, "temporal flickering": 1.0,
                 "motion smoothness": 1.0, "dynamic degree": 0.5, "imaging quality": 1.0}


def _gray(frame: np.ndarray) -> np.ndarray:
    """(H, W, 3) float [0, 1] or uint8 -> (H, W) uint8."""
    f = frame if frame.dtype == np.uint8 else np.clip(np.round(frame * 255), 0, 255).astype(np.uint8)
    return (0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]).astype(np.uint8)


def flow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Farneback optical flow a -> b: (H, W, 2) in pixels."""
    import cv2

    return cv2.calcOpticalFlowFarneback(_gray(a), _gray(b), None, 0.5, 2, 7, 3, 5, 1.1, 0)


def dynamic_degree(video: np.ndarray, fps: float = 8.0) -> bool:
    """VBench dynamic_degree rule: a pair is moving when the mean of its top-5 % flow magnitudes exceeds
    thres = max(1, 8/fps) * 6 * min(H, W) / 256; the video is dynamic when >= round(4 * T / 16) pairs move."""
    t, h, w = video.shape[:3]
    thres = max(1.0, 8.0 / fps) * 6.0 * min(h, w) / 256.0
    count_num = round(4 * t / 16)
    moving = 0
    for a, b in zip(video[:-1], video[1:]):
        mag = np.linalg.norm(flow(a, b), axis=-1).ravel()
        top = np.sort(mag)[-max(1, int(len(mag) * 0.05)):]
        moving += float(top.mean()) > thres
    return moving >= count_num


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    """PSNR in dB of two frames in [0, 1] (capped at 60 dB for identical frames)."""
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return 60.0 if mse < 1e-6 else float(10 * np.log10(1.0 / mse))


def motion_direction_ok(video: np.ndarray, direction: tuple[float, float], where_px: tuple[float, float] | None,
                        radius_px: float = 6.0) -> bool:
    """Mean flow over the segment (in the target's region, or the whole frame for the camera) points
    within 45 degrees of the commanded direction."""
    total = np.zeros(2)
    for a, b in zip(video[:-1], video[1:]):
        f = flow(a, b)
        if where_px is not None:
            h, w = f.shape[:2]
            rows, cols = np.mgrid[0:h, 0:w]
            region = (rows - where_px[1]) ** 2 + (cols - where_px[0]) ** 2 <= (2 * radius_px) ** 2
            f = f[region] if region.any() else f.reshape(-1, 2)
        total += f.reshape(-1, 2).mean(0)
    norm = np.linalg.norm(total)
    return bool(norm > 1e-3 and float(total @ np.asarray(direction)) / norm >= np.cos(np.pi / 4))


def laplacian_variance(frame: np.ndarray) -> float:
    import cv2

    return float(cv2.Laplacian(_gray(frame).astype(np.float64), cv2.CV_64F).var())


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


def consistency(features: np.ndarray) -> float:
    """VBench subject/background consistency: mean over frames 2..T of the average cosine to the first
    and to the previous frame's features."""
    if len(features) < 2:
        return 1.0
    return float(np.mean([(_cos(features[0], f) + _cos(p, f)) / 2 for p, f in zip(features[:-1], features[1:])]))


def motion_smoothness(video: np.ndarray) -> float:
    """1 - mean |odd frame - its Farneback-warp interpolation from the even neighbours| (AMT stand-in)."""
    import cv2

    errs = []
    h, w = video.shape[1:3]
    grid = np.stack(np.meshgrid(np.arange(w), np.arange(h)), -1).astype(np.float32)
    for k in range(1, len(video) - 1, 2):
        a, mid, b = video[k - 1], video[k], video[k + 1]
        half = 0.5 * flow(b, a)  # sample a at x + half-flow from the midpoint
        warped = cv2.remap(np.ascontiguousarray(a, np.float32), grid + half, None, cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
        errs.append(float(np.abs(warped - mid).mean()))
    return 1.0 - float(np.mean(errs)) if errs else 1.0


QUALITY_DIMS = tuple(VBENCH_WEIGHT)


def clip_dimensions(clips: list[np.ndarray], gt_clips: list[np.ndarray], subject_features,
                    background_features) -> np.ndarray:
    """VBench's quality dimensions (proxies) of each 16-frame clip: (clips, 6) in QUALITY_DIMS order."""
    rows = []
    for c, g in zip(clips, gt_clips):
        sharpness = np.mean([laplacian_variance(f) for f in c]) / max(np.mean([laplacian_variance(f) for f in g]), 1e-9)
        rows.append([consistency(subject_features(c)), consistency(background_features(c)),
                     1.0 - np.abs(np.diff(c, axis=0)).mean(), motion_smoothness(c), float(dynamic_degree(c)),
                     min(1.0, sharpness)])
    return np.asarray(rows, float).reshape(-1, len(QUALITY_DIMS))


def quality_score(dims: np.ndarray, static: np.ndarray) -> dict[str, float]:
    """VBench quality score (normalised, weighted; aesthetic left out) of clips' dimensions (clips, 6); temporal
    flickering is taken on the static clips (all clips when none is static)."""
    static = np.asarray(static, bool)
    means = dict(zip(QUALITY_DIMS, dims.mean(0)))
    flicker = dims[:, QUALITY_DIMS.index("temporal flickering")]
    means["temporal flickering"] = flicker[static].mean() if static.any() else flicker.mean()
    normed = {k: float(np.clip((v - VBENCH_NORMALIZE[k][0]) / (VBENCH_NORMALIZE[k][1] - VBENCH_NORMALIZE[k][0]), 0, 1))
              for k, v in means.items()}
    score = sum(VBENCH_WEIGHT[k] * normed[k] for k in normed) / sum(VBENCH_WEIGHT.values())
    return {"long_quality": float(score), **{f"{k.replace(' ', '_')}_proxy": float(v) for k, v in means.items()}}


def paired_bootstrap_ci(a: np.ndarray, b: np.ndarray, seed: int = 0, n: int = 2000,
                        statistic=None) -> tuple[float, float]:
    """95 % CI of statistic(a) - statistic(b) over paired units (axis 0: episodes), resampling the pairs. The
    default statistic is the mean, and a pair with a NaN on either side is dropped."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    rng = np.random.default_rng(seed)
    if statistic is None:
        d = a - b
        d = d[~np.isnan(d)]
        if len(d) == 0:
            return (float("nan"), float("nan"))
        means = d[rng.integers(0, len(d), (n, len(d)))].mean(1)
    else:
        draws = rng.integers(0, len(a), (n, len(a)))
        means = np.array([statistic(a[idx]) - statistic(b[idx]) for idx in draws])
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))
