"""Pose files: `{"convention": "opencv", "T_src_to_tgt": 4x4, "units": "meters"|"relative", "intrinsics"?}`.

Spec §6: OpenCV axes (x right, y down, z forward); T maps source-camera points to the target camera.
Translations are in metres with a metric depth estimator, or in units of the median scene depth
("relative") with a relative-depth one; mixing them is refused unless the caller says so.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text

UNITS = ("meters", "relative")
ORTHONORMAL_TOLERANCE = 1e-3  # issue 29: |R^T R - I| > 1e-3 is refused


@dataclass
class Pose:
    T: np.ndarray  # (4, 4) T_src->tgt
    units: str = "meters"
    intrinsics: np.ndarray | None = None  # (3, 3); None = the source camera's

    def __post_init__(self) -> None:
        self.T = check_transform(self.T)
        if self.units not in UNITS:
            raise ProceedingsError(f"pose units '{self.units}' unknown; use one of: {', '.join(UNITS)}")
        if self.intrinsics is not None:
            K = np.asarray(self.intrinsics, dtype=np.float64)
            if K.shape != (3, 3) or not np.isfinite(K).all():
                raise ProceedingsError(f"pose intrinsics must be a finite 3x3 matrix, got shape {K.shape}")
            self.intrinsics = K


def check_transform(T) -> np.ndarray:
    """A finite rigid 4x4 transform with an orthonormal rotation, or a one-line error."""
    T = np.asarray(T, dtype=np.float64)
    if T.shape != (4, 4):
        raise ProceedingsError(f"pose must be a 4x4 matrix, got shape {T.shape}")
    if not np.isfinite(T).all():
        raise ProceedingsError("pose has non-finite entries (NaN or inf)")
    R = T[:3, :3]
    error = float(np.abs(R.T @ R - np.eye(3)).max())
    if error > ORTHONORMAL_TOLERANCE or np.linalg.det(R) < 0:
        raise ProceedingsError(f"pose rotation is not orthonormal (max |R^T R - I| = {error:.2g} > "
                               f"{ORTHONORMAL_TOLERANCE:g}, det {np.linalg.det(R):.3g}); pass a proper rotation")
    if not np.allclose(T[3], [0, 0, 0, 1]):
        raise ProceedingsError(f"pose last row must be [0, 0, 0, 1], got {T[3].tolist()}")
    return T


def save_pose(path: Path | str, pose: Pose) -> Path:
    record = {"convention": "opencv", "T_src_to_tgt": pose.T.tolist(), "units": pose.units}
    if pose.intrinsics is not None:
        record["intrinsics"] = pose.intrinsics.tolist()
    return atomic_write_text(path, json.dumps(record, indent=1))


def load_pose(path: Path | str) -> Pose:
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ProceedingsError(f"pose file '{path}' cannot be read as JSON ({err})") from None
    if not isinstance(record, dict) or "T_src_to_tgt" not in record:
        raise ProceedingsError(f"pose file '{path}' has no 'T_src_to_tgt' 4x4 matrix")
    if record.get("convention", "opencv") != "opencv":
        raise ProceedingsError(f"pose file '{path}': convention '{record['convention']}' unsupported; use 'opencv'")
    return Pose(np.asarray(record["T_src_to_tgt"], dtype=np.float64), record.get("units", "meters"),
                record.get("intrinsics"))


def check_units(pose: Pose, estimator_units: str, override: bool = False) -> None:
    """A metric pose needs a metric depth model: refuse a mismatch unless `override` (`--units relative`)."""
    if pose.units != estimator_units and not override:
        raise ProceedingsError(f"the pose is in '{pose.units}' but the depth model gives '{estimator_units}' depth; "
                               "convert the pose or pass --units relative to accept it")


def trajectory(kind: str, frames: int, scale: float = 1.0) -> list[np.ndarray]:
    """T_src->tgt for a camera path around the source view: orbit, dolly or spiral (`scale` in metres)."""
    if kind not in ("orbit", "dolly", "spiral"):
        raise ProceedingsError(f"unknown trajectory '{kind}'; choose orbit, dolly or spiral")
    if frames < 2:
        raise ProceedingsError(f"a trajectory needs at least 2 frames, got {frames}")
    from proceedings.ovie.camera import look_at

    out, focus, up = [], np.array([0.0, 0.0, 2.0 * scale]), np.array([0.0, -1.0, 0.0])
    for s in np.linspace(0, 2 * math.pi, frames, endpoint=False):
        if kind == "orbit":
            eye = focus + 2.0 * scale * np.array([math.sin(0.35 * math.sin(s)), 0.0, -math.cos(0.35 * math.sin(s))])
        elif kind == "dolly":
            eye = np.array([0.0, 0.0, 0.5 * scale * math.sin(s)])
        else:
            eye = 0.25 * scale * np.array([math.cos(s), math.sin(s), 0.4 * math.sin(s / 2)])
        out.append(look_at(eye, focus, up))
    return out
