"""The sprite world, rendered exactly in numpy (spec §2.5): a 64x64 world seen through a camera crop.

A frame is a pure function of (scene, frame index, seed): the environment's sky/ground palette, the
objects (eight analytic shapes with colour, size, texture, rotation, glow/open/broken states), the
time-of-day tint and per-frame weather particles. A segment interpolates the scene before and after
its program with the operators' temporal profiles (eased ramps and paths, fades, cross-fades) and
integrates velocities with wall bounces; its last frame is the render of the segment's end scene.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import numpy as np

from proceedings.oopsworld.taxonomy import COORD_RANGE, RADIUS, Program, objects

COLORS = {"red": (0.90, 0.12, 0.12), "green": (0.10, 0.75, 0.20), "blue": (0.15, 0.30, 0.95),
          "yellow": (0.95, 0.85, 0.10), "purple": (0.60, 0.20, 0.80), "orange": (0.98, 0.55, 0.10)}
SKY_GROUND = {"meadow": ((0.55, 0.78, 0.98), (0.30, 0.58, 0.28)), "street": ((0.72, 0.76, 0.82), (0.38, 0.38, 0.42)),
              "room": ((0.86, 0.80, 0.68), (0.55, 0.36, 0.22)), "beach": ((0.45, 0.80, 1.00), (0.93, 0.86, 0.60))}
TINT = {"day": (1.0, 1.0, 1.0), "dusk": (1.0, 0.72, 0.50), "night": (0.30, 0.35, 0.60)}
HORIZON = 40.0  # world y where the sky ends
VIEW = 32.0  # world units across the view at zoom 1
OUTLINE = (0.08, 0.08, 0.08)


def ease(p: float) -> float:
    """Smoothstep: the eased ramp of appearance/placement operators (exactly 0 at 0 and 1 at 1)."""
    return p * p * (3.0 - 2.0 * p)


def reflect(x: float, v: float, lo: float = COORD_RANGE[0], hi: float = COORD_RANGE[1]) -> tuple[float, float]:
    """Position and velocity after bouncing between walls at lo and hi."""
    span = hi - lo
    y = (x - lo) % (2 * span)
    return (lo + 2 * span - y, -v) if y > span else (lo + y, v)


def advance(scene: dict, frames: int) -> dict:
    """The scene `frames` frames later: every velocity integrated, bouncing off the walls."""
    out = copy.deepcopy(scene)
    for obj in out["local"]:
        (x, vx), (y, vy) = (reflect(obj["pos"][0] + obj["vel"][0] * frames, obj["vel"][0]),
                            reflect(obj["pos"][1] + obj["vel"][1] * frames, obj["vel"][1]))
        obj["pos"], obj["vel"] = [x, y], [vx, vy]
    return out


# ---- one frame -----------------------------------------------------------------------------------

def view_axes(camera: dict, size: int) -> tuple[np.ndarray, np.ndarray]:
    """World x of the pixel columns and world y of the pixel rows, (size,) each."""
    offsets = ((np.arange(size) + 0.5) / size - 0.5) * VIEW / float(camera["zoom"])
    return float(camera["x"]) + offsets, float(camera["y"]) + offsets


@lru_cache(maxsize=512)
def background(environment: str, cx: float, cy: float, zoom: float, size: int) -> np.ndarray:
    """Sky and ground of the environment seen by a camera, with two fixed landmarks (a sun disc and a
    hill) that make the camera's position readable from any view. Cached: treat as read-only."""
    xs, ys = view_axes({"x": cx, "y": cy, "zoom": zoom}, size)
    wx, wy = np.meshgrid(xs, ys, indexing="xy")
    sky, ground = (np.array(c, np.float32) for c in SKY_GROUND[environment])
    hill = (wy >= HORIZON - 12 + np.abs(wx - 48.0)) & (wy < HORIZON)
    below = ((wy >= HORIZON) | hill)[..., None]
    img = np.where(below, ground, sky).astype(np.float32)
    img[(wx - 16.0) ** 2 + (wy - 14.0) ** 2 <= 16.0] = (1.0, 0.92, 0.45)
    if environment == "meadow":
        tufts = below[..., 0] & ((np.floor(wx) + 2 * np.floor(wy)) % 5 == 0)
        img[tufts] *= 0.8
    elif environment == "street":
        img[(wy >= 47) & (wy < 49) & (np.floor(wx / 4) % 2 == 0)] = 0.9
    elif environment == "room":
        img[below[..., 0] & ((np.floor(wx / 4) + np.floor(wy / 4)) % 2 == 0)] *= 0.85
    else:  # beach: a band of sea at the horizon
        img[(wy >= HORIZON) & (wy < HORIZON + 4)] = (0.20, 0.45, 0.80)
    img.flags.writeable = False
    return img


def shape_mask(category: str, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The category's silhouette in object coordinates (u right, v down, radius 1)."""
    if category == "ball":
        return u * u + v * v <= 1
    if category == "box":
        return (np.abs(u) <= 0.8) & (np.abs(v) <= 0.8)
    if category == "tree":
        crown = (v >= -1) & (v <= 0.5) & (np.abs(u) <= 0.6 * (v + 1))
        return crown | ((np.abs(u) <= 0.2) & (v > 0.5) & (v <= 1))
    if category == "lamp":
        return ((np.abs(u) <= 0.18) & (v >= -0.3) & (v <= 1)) | (u * u + (v + 0.55) ** 2 <= 0.45 ** 2)
    if category == "car":
        return ((np.abs(u) <= 1) & (v >= 0) & (v <= 0.55)) | ((np.abs(u) <= 0.55) & (v >= -0.45) & (v < 0))
    if category == "house":
        return ((np.abs(u) <= 0.75) & (v >= 0) & (v <= 0.9)) | ((v >= -0.9) & (v < 0) & (np.abs(u) <= v + 0.9))
    if category == "rock":
        return u * u + ((v - 0.25) / 0.65) ** 2 <= 1
    if category == "flag":
        return ((np.abs(u + 0.8) <= 0.15) & (np.abs(v) <= 1)) | ((u >= -0.65) & (u <= 0.9) & (v >= -0.95) & (v <= -0.1))
    raise ValueError(category)


def draw_object(img: np.ndarray, emissive: np.ndarray, xs: np.ndarray, ys: np.ndarray, obj: dict) -> None:
    """Composite one object (render state: float color/radius/glow/alpha allowed) onto img, in place,
    evaluating its shape only in its bounding window."""
    radius, alpha = float(obj["radius"]), float(obj.get("alpha", 1.0))
    reach = 2.2 * radius  # the halo (1.5x) of a rotated corner (sqrt 2)
    c0, c1 = np.searchsorted(xs, obj["pos"][0] - reach), np.searchsorted(xs, obj["pos"][0] + reach)
    r0, r1 = np.searchsorted(ys, obj["pos"][1] - reach), np.searchsorted(ys, obj["pos"][1] + reach)
    if c0 >= c1 or r0 >= r1:
        return
    img, emissive = img[r0:r1, c0:c1], emissive[r0:r1, c0:c1]
    wx, wy = np.meshgrid(xs[c0:c1], ys[r0:r1], indexing="xy")
    theta = np.deg2rad(float(obj["rot"]))
    dx, dy = (wx - obj["pos"][0]) / radius, (wy - obj["pos"][1]) / radius
    u, v = np.cos(theta) * dx + np.sin(theta) * dy, -np.sin(theta) * dx + np.cos(theta) * dy
    body = shape_mask(obj["category"], u, v)
    if obj["broken"]:
        body &= ~((np.abs(u - 0.3 * v) < 0.14) | (np.abs(v + 0.2 * u) < 0.14))
    outline = shape_mask(obj["category"], u / 1.2, v / 1.2) & ~body
    color = np.broadcast_to(np.asarray(obj["color"], np.float32), img.shape).copy()
    if obj["texture"] == "striped":
        color[(np.floor((u + 1) * 3) % 2 == 1)] *= 0.55
    elif obj["texture"] == "dotted":
        color[((u * 2.5) % 1 - 0.5) ** 2 + ((v * 2.5) % 1 - 0.5) ** 2 < 0.09] *= 0.5
    if obj["open"]:
        color[(np.abs(u) < 0.4) & (np.abs(v) < 0.4)] = 0.05
    glow = float(obj["glow"])
    if glow:
        color += glow * 0.5 * (1.0 - color)
        halo = shape_mask(obj["category"], u / 1.5, v / 1.5) & ~body & ~outline
        img[halo] += alpha * glow * 0.5 * (np.array([1.0, 0.95, 0.6], np.float32) - img[halo])
        emissive[halo | body] = np.maximum(emissive[halo | body], alpha * glow)
    img[outline] += alpha * (np.array(OUTLINE, np.float32) - img[outline])
    img[body] += alpha * (color[body] - img[body])


def weather_layer(weather: str, size: int, t: int, seed: int) -> tuple[np.ndarray, tuple[float, ...], float]:
    """(mask, colour, strength) of the weather's particles in frame t: deterministic in (t, seed)."""
    i, j = _pixel_grid(size)
    s = seed % 97
    if weather == "rain":
        return ((2 * j + i - 3 * t + s) % 9 == 0) & ((i - 2 * t + s) % 4 != 0), (0.75, 0.80, 0.95), 0.7
    if weather == "snow":
        return ((i - t) * 7 + j * 13 + s) % 19 == 0, (1.0, 1.0, 1.0), 0.9
    if weather == "fog":
        return np.ones((size, size), bool), (0.78, 0.78, 0.80), 0.55
    return np.zeros((size, size), bool), (0.0, 0.0, 0.0), 0.0


@lru_cache(maxsize=8)
def _pixel_grid(size: int) -> tuple[np.ndarray, np.ndarray]:
    return np.meshgrid(np.arange(size), np.arange(size), indexing="ij")


def compose(state: dict, t: int, seed: int, size: int) -> np.ndarray:
    """Render a render state: globals with cross-fade weights and objects with float attributes."""
    g = state["global"]
    cam = g["camera"]
    xs, ys = view_axes(cam, size)
    view = (float(cam["x"]), float(cam["y"]), float(cam["zoom"]), size)
    env_a, env_b, w_env = g["environment"]
    img = background(env_b, *view).copy() if w_env == 1.0 else \
        ((1 - w_env) * background(env_a, *view) + w_env * background(env_b, *view)).astype(np.float32)
    emissive = np.zeros((size, size), np.float32)
    for obj in (o for o in state["local"] if o.get("alpha", 1.0) > 0):
        draw_object(img, emissive, xs, ys, obj)
    time_a, time_b, w_time = g["time_of_day"]
    tint = (1 - w_time) * np.array(TINT[time_a], np.float32) + w_time * np.array(TINT[time_b], np.float32)
    img *= tint + emissive[..., None] * (1.0 - tint)
    weather_a, weather_b, w_weather = g["weather"]
    for weather, strength in ((weather_a, 1.0 - w_weather), (weather_b, w_weather)):
        mask, colour, amount = weather_layer(weather, size, t, seed)
        if strength and amount:
            img[mask] += strength * amount * (np.array(colour, np.float32) - img[mask])
    return np.clip(img, 0.0, 1.0)


def render(scene: dict, t: int = 0, seed: int = 0, size: int = 32) -> np.ndarray:
    """One frame of a scene: (size, size, 3) float32 in [0, 1]."""
    return compose(render_state(scene, scene, 1.0, 0), t, seed, size)


def to_uint8(frames: np.ndarray) -> np.ndarray:
    return np.round(frames * 255.0).astype(np.uint8)


# ---- segments ------------------------------------------------------------------------------------

def _object_state(obj: dict, alpha: float = 1.0) -> dict:
    return {"id": obj["id"], "category": obj["category"], "color": COLORS[obj["color"]], "radius": RADIUS[obj["size"]],
            "texture": obj["texture"], "pos": list(obj["pos"]), "rot": float(obj["rot"]),
            "glow": float(obj["state"]["glow"]), "open": obj["state"]["open"], "broken": obj["state"]["broken"],
            "alpha": alpha}


def _moved(obj: dict, k: int) -> list[float]:
    if k == 0:
        return list(obj["pos"])
    return [reflect(obj["pos"][d] + obj["vel"][d] * k, obj["vel"][d])[0] for d in (0, 1)]


def render_state(before: dict, after: dict, p: float, k: int, jump_ids: frozenset = frozenset()) -> dict:
    """The world at phase p = k/K of a segment from `before` to `after` (= program applied, not yet advanced)."""
    e = ease(p)
    ga, gb = before["global"], after["global"]
    camera = {key: (1 - e) * float(ga["camera"][key]) + e * float(gb["camera"][key]) if e < 1 else float(gb["camera"][key])
              for key in ("x", "y", "zoom")}
    glob = {"camera": camera, **{key: (ga[key], gb[key], e if ga[key] != gb[key] else 1.0)
                                 for key in ("environment", "time_of_day", "weather")}}
    objs_a, objs_b = objects(before), objects(after)
    local = []
    for oid in sorted(objs_a.keys() | objs_b.keys()):
        a, b = objs_a.get(oid), objs_b.get(oid)
        if b is None:  # removed: fades out while it keeps moving
            local.append(_object_state({**a, "pos": _moved(a, k)}, alpha=1 - e))
            continue
        if a is None:  # added: fades in
            local.append(_object_state({**b, "pos": _moved(b, k)}, alpha=e))
            continue
        path = [(1 - e) * pa + e * pb for pa, pb in zip(a["pos"], b["pos"])] if e < 1 else list(b["pos"])
        if oid in jump_ids and e < 1:
            path[1] -= 4 * JUMP_HEIGHT * p * (1 - p)
        mid = {**b, "pos": path}
        state = _object_state(mid)
        if e < 1:
            state["color"] = tuple((1 - e) * ca + e * cb for ca, cb in zip(COLORS[a["color"]], COLORS[b["color"]]))
            state["radius"] = (1 - e) * RADIUS[a["size"]] + e * RADIUS[b["size"]]
            state["rot"] = (1 - e) * float(a["rot"]) + e * (float(a["rot"]) + ((float(b["rot"]) - float(a["rot"])) % 360))
            state["glow"] = (1 - e) * float(a["state"]["glow"]) + e * float(b["state"]["glow"])
            if p < 0.5:
                state.update(texture=a["texture"], open=a["state"]["open"], broken=a["state"]["broken"])
        state["pos"] = _moved({**mid, "vel": b["vel"]}, k)
        if a["category"] != b["category"] and e < 1:  # replace: cross-fade the two silhouettes
            local.append({**state, "category": a["category"], "alpha": 1 - e})
            state["alpha"] = e
        local.append(state)
    return {"global": glob, "local": local}


JUMP_HEIGHT = 6.0


def render_segment(scene: dict, program: Program, frames: int = 8, size: int = 32, seed: int = 0, t0: int = 0,
                   max_objects: int = 3) -> tuple[np.ndarray, dict]:
    """K frames of one segment and its end scene (program applied, then K frames of motion).

    Frame k (1..K) shows phase k/K, so the last frame is exactly `render(end, t0 + K)`.
    """
    video = np.stack([compose(state, t0 + k, seed, size)
                      for k, state in enumerate(trajectory(scene, program, frames, max_objects), 1)])
    return video, advance(program.apply(scene, max_objects=max_objects), frames)


def trajectory(scene: dict, program: Program, frames: int = 8, max_objects: int = 3) -> list[dict]:
    """The program's per-frame trajectory (spec §2.2): the world state of each frame k = 1..K of the segment, from
    `scene` towards `program.apply(scene)` at phase k/K with each operator's temporal profile (`render_state`)."""
    after = program.apply(scene, max_objects=max_objects)
    jumps = frozenset(op.target for op in program.ops if op.op == "jump")
    return [render_state(scene, after, k / frames, k, jumps) for k in range(1, frames + 1)]
