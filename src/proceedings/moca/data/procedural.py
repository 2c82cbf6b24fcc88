"""A seeded part grammar: chairs, tables, shelves and warehouse scenes made of boxes, with exact ground truth.

No part-annotated 3D dataset can be had offline (PartNet, Objaverse, 3D-FRONT need downloads), so the
compositional-object and scene tasks of the paper (spec §4) are synthesised. Every component is a box
with an exact pose (centre, half-extents, rotation), its support parent (the part it rests on or is
fixed to; -1 for the floor) and its symmetry group (legs, arms, slats, ...). Parts that the grammar
joins touch exactly (zero gap, zero overlap), so the consistency metrics have an exact answer: a
grammar sample has no floating component and no colliding pair. Tokens are L surface points per
component, sampled area-weighted on the box's faces, in one shared frame with the floor at z = -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from proceedings.core.errors import ProceedingsError

FLOOR = -1.0  # every object stands on the plane z = FLOOR
KINDS = ("chair", "table", "shelf", "scene:warehouse")
PART_RANGES = {"chair": (6, 18), "table": (4, 10), "shelf": (5, 11), "scene:warehouse": (8, 128)}


@dataclass
class Part:
    """One component: an exact box with its pose, support parent and symmetry group."""

    name: str
    center: np.ndarray  # (3,)
    half: np.ndarray  # (3,) half-extents along the box's own axes
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))  # columns = the box's axes in the world
    parent: int = -1  # index of the part it rests on or is fixed to, -1 = the root of the support tree
    symmetry: str = ""  # parts of one group are mirror/translation copies ("legs", "arms", ...)
    primitive: str = "box"


@dataclass
class Assembly:
    """A shape or scene: its parts and, once sampled, L surface points per part in one frame."""

    kind: str
    parts: list[Part]
    points: np.ndarray | None = None  # (N, L, 3)
    sample_id: str = ""

    @property
    def n(self) -> int:
        return len(self.parts)


def _box(name: str, lo, hi, parent: int = -1, symmetry: str = "") -> Part:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return Part(name, (lo + hi) / 2, (hi - lo) / 2, parent=parent, symmetry=symmetry)


def chair(rng: np.random.Generator, max_parts: int = 18) -> list[Part]:
    """Seat, 4 legs, a back (a panel, or a top rail on 1-6 slats), optional 2 arms and 0-4 stretchers."""
    w, d = rng.uniform(0.8, 1.2), rng.uniform(0.75, 1.1)
    seat_z, t, leg = FLOOR + rng.uniform(0.8, 1.05), rng.uniform(0.06, 0.12), rng.uniform(0.06, 0.11)
    budget = max_parts - 6
    slats = int(rng.integers(0, min(6, budget) + 1)) if rng.random() < 0.5 else 0
    budget -= slats
    arms = 2 if budget >= 2 and rng.random() < 0.4 else 0
    stretchers = int(rng.integers(0, min(4, budget - arms) + 1))
    parts = [_box("seat", (-w / 2, -d / 2, seat_z - t), (w / 2, d / 2, seat_z))]
    for sx, sy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        x0 = -w / 2 if sx < 0 else w / 2 - leg
        y0 = -d / 2 if sy < 0 else d / 2 - leg
        parts.append(_box(f"leg_{len(parts)}", (x0, y0, FLOOR), (x0 + leg, y0 + leg, seat_z - t), 0, "legs"))
    back_t, back_h = rng.uniform(0.06, 0.1), rng.uniform(0.7, 0.95)
    y_back = d / 2 - back_t
    if slats == 0:
        parts.append(_box("back", (-w / 2, y_back, seat_z), (w / 2, d / 2, seat_z + back_h), 0))
    else:
        rail_h = rng.uniform(0.12, 0.2)
        slat_w = min(rng.uniform(0.05, 0.1), w / (2 * slats + 1))
        rail = len(parts)
        parts.append(_box("back_rail", (-w / 2, y_back, seat_z + back_h - rail_h), (w / 2, d / 2, seat_z + back_h), 0))
        for s in range(slats):
            cx = -w / 2 + (s + 1) * w / (slats + 1)
            parts.append(_box(f"slat_{s}", (cx - slat_w / 2, y_back, seat_z), (cx + slat_w / 2, d / 2, seat_z + back_h - rail_h),
                              0, "slats"))
        parts[rail].parent = rail + 1
    if arms:
        arm_t, arm_h = rng.uniform(0.05, 0.09), rng.uniform(0.25, 0.4)
        for side in (-1, 1):
            x0 = -w / 2 if side < 0 else w / 2 - arm_t
            parts.append(_box(f"arm_{side:+d}", (x0, -d / 2, seat_z), (x0 + arm_t, y_back, seat_z + arm_h), 0, "arms"))
    z_s, s_t = FLOOR + rng.uniform(0.15, 0.35), min(rng.uniform(0.04, 0.07), 0.9 * leg)  # inside the legs
    spans = [("front", 1, 2, 0), ("rear", 3, 4, 0), ("left", 1, 3, 1), ("right", 2, 4, 1)]
    for name, a, b, axis in spans[:stretchers]:  # between the inner faces of two legs
        la, lb, across = parts[a], parts[b], 1 - axis
        lo, hi = np.zeros(3), np.zeros(3)
        lo[axis], hi[axis] = la.center[axis] + la.half[axis], lb.center[axis] - lb.half[axis]
        lo[across], hi[across] = la.center[across] - s_t / 2, la.center[across] + s_t / 2
        lo[2], hi[2] = z_s, z_s + s_t
        parts.append(_box(f"stretcher_{name}", lo, hi, a, "stretchers"))
    return parts


def table(rng: np.random.Generator, max_parts: int = 10) -> list[Part]:
    """Top, 4 legs, an optional lower shelf between the legs and 0-4 drawers hanging under the top."""
    w, d = rng.uniform(1.2, 1.9), rng.uniform(0.8, 1.2)
    top_z, t, leg = FLOOR + rng.uniform(1.0, 1.4), rng.uniform(0.05, 0.1), rng.uniform(0.07, 0.13)
    parts = [_box("top", (-w / 2, -d / 2, top_z - t), (w / 2, d / 2, top_z))]
    for sx, sy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        x0 = -w / 2 if sx < 0 else w / 2 - leg
        y0 = -d / 2 if sy < 0 else d / 2 - leg
        parts.append(_box(f"leg_{len(parts)}", (x0, y0, FLOOR), (x0 + leg, y0 + leg, top_z - t), 0, "legs"))
    budget = max_parts - 5
    if budget > 0 and rng.random() < 0.5:
        z, st = FLOOR + rng.uniform(0.2, 0.4), rng.uniform(0.04, 0.07)
        parts.append(_box("shelf", (-w / 2 + leg, -d / 2, z), (w / 2 - leg, d / 2, z + st), 1))
        budget -= 1
    drawers = int(rng.integers(0, min(4, budget) + 1))
    if drawers:
        dh, inner = rng.uniform(0.12, 0.2), w - 2 * leg
        for k in range(drawers):
            x0 = -w / 2 + leg + k * inner / drawers
            parts.append(_box(f"drawer_{k}", (x0, -d / 2, top_z - t - dh), (x0 + inner / drawers, -d / 2 + 0.6 * d, top_z - t),
                              0, "drawers"))
    return parts


def shelf(rng: np.random.Generator, max_parts: int = 11) -> list[Part]:
    """Two side panels, 2-8 boards between them (bottom and top included) and a back panel."""
    w, d, h = rng.uniform(0.8, 1.6), rng.uniform(0.35, 0.6), rng.uniform(1.3, 1.9)
    side, board, back = rng.uniform(0.04, 0.08), rng.uniform(0.03, 0.06), rng.uniform(0.02, 0.04)
    boards = int(rng.integers(2, min(8, max_parts - 3) + 1))
    parts = [_box("side_left", (-w / 2, -d / 2, FLOOR), (-w / 2 + side, d / 2, FLOOR + h), -1, "sides"),
             _box("side_right", (w / 2 - side, -d / 2, FLOOR), (w / 2, d / 2, FLOOR + h), -1, "sides")]
    for k in range(boards):
        z = FLOOR + k * (h - board) / (boards - 1)
        parts.append(_box(f"board_{k}", (-w / 2 + side, -d / 2, z), (w / 2 - side, d / 2 - back, z + board), 0, "boards"))
    parts.append(_box("back", (-w / 2 + side, d / 2 - back, FLOOR), (w / 2 - side, d / 2, FLOOR + h), 0))
    return parts


def warehouse(rng: np.random.Generator, n: int) -> list[Part]:
    """A floor slab and stacks of crates on a grid (1-3 high, each resting on the one below): n components."""
    if n < 2:
        raise ProceedingsError(f"a warehouse scene needs at least 2 components, got {n}")
    crates = n - 1
    stacks = int(np.ceil(crates / 3))
    cols = int(np.ceil(np.sqrt(stacks)))
    cell, size = 2.0 / cols, 2.0 / cols * 0.7
    parts = [_box("floor", (-1, -1, FLOOR - 0.05), (1, 1, FLOOR))]
    heights = np.full(stacks, crates // stacks)
    heights[: crates % stacks] += 1
    for s, height in enumerate(heights):
        cx, cy = -1 + cell * (s % cols + 0.5), -1 + cell * (s // cols + 0.5)
        z, below = FLOOR, 0
        for level in range(height):
            half = size / 2 * rng.uniform(0.75, 1.0)
            h = size * rng.uniform(0.4, 0.8) / max(1, cols / 4)
            parts.append(_box(f"crate_{s}_{level}", (cx - half, cy - half, z), (cx + half, cy + half, z + h), below, "crates"))
            z, below = z + h, len(parts) - 1
    return parts


def build(kind: str, rng: np.random.Generator, components: tuple[int, int] | None = None) -> list[Part]:
    """One grammar sample of `kind` whose part count lies within `components` (default: the kind's range)."""
    lo, hi = components or PART_RANGES.get(kind, (0, 0))
    if kind not in KINDS:
        raise ProceedingsError(f"unknown kind '{kind}'; choose one of: {', '.join(KINDS)}")
    low, high = PART_RANGES[kind]
    if hi < low or lo > high or lo > hi:
        raise ProceedingsError(f"{kind} has {low}-{high} components; the range {lo}-{hi} cannot be met")
    if kind == "scene:warehouse":
        return warehouse(rng, int(rng.integers(max(lo, low), min(hi, high) + 1)))
    grammar = {"chair": chair, "table": table, "shelf": shelf}[kind]
    for _ in range(1000):
        parts = grammar(rng, max_parts=min(hi, high))
        if lo <= len(parts) <= hi:
            return parts
    raise ProceedingsError(f"the {kind} grammar produced no sample with {lo}-{hi} components")


def box_corners(part: Part) -> np.ndarray:
    """The 8 corners of a part's box in the world frame, (8, 3)."""
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return part.center + (signs * part.half) @ part.rotation.T


def surface_points(center: np.ndarray, half: np.ndarray, rotation: np.ndarray, count: int,
                   rng: np.random.Generator) -> np.ndarray:
    """`count` points uniform on a box's surface (faces chosen by area), (count, 3)."""
    areas = np.array([half[1] * half[2], half[0] * half[2], half[0] * half[1]] * 2)
    face = rng.choice(6, size=count, p=areas / areas.sum())
    local = rng.uniform(-1, 1, size=(count, 3))
    axis = face % 3
    local[np.arange(count), axis] = np.where(face < 3, 1.0, -1.0)
    return center + (local * half) @ rotation.T


def sample_points(parts: list[Part], count: int, rng: np.random.Generator) -> np.ndarray:
    """L surface points per component, (N, L, 3) float32."""
    return np.stack([surface_points(p.center, p.half, p.rotation, count, rng) for p in parts]).astype(np.float32)


def generate(kind: str = "chair", n: int = 100, components: tuple[int, int] | None = None,
             points_per_component: int = 16, seed: int = 0) -> list[Assembly]:
    """`n` seeded grammar samples of one kind, each with L = points_per_component points per component."""
    if n < 1:
        raise ProceedingsError(f"n must be >= 1, got {n}")
    if points_per_component < 3:
        raise ProceedingsError(f"points_per_component must be >= 3, got {points_per_component}")
    rng = np.random.default_rng([seed, KINDS.index(kind) if kind in KINDS else 99])
    out = []
    for i in range(n):
        parts = build(kind, rng, components)
        out.append(Assembly(kind, parts, sample_points(parts, points_per_component, rng), f"{kind}-{seed}-{i}"))
    return out
