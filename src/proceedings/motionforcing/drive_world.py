"""The drive world: a seeded numpy ray-caster with exact ground truth (spec §2.5, issue 30).

A straight three-lane road (lane markings, dashed centre lines, grass verge, sky) and 2-5 box cars
(w 1.6, l 3.8, h 1.4 m, with a window band). The ego camera drives at 3-7 m/s with an acceleration
and a yaw rate. Agents cruise, brake, accelerate, cut in, cut out or overtake, each with a constant
longitudinal acceleration and a constant lateral speed from frame 0: their second half is fixed by
their first-half kinematics, so a masked future is recoverable from inertia. Every test agent moves at
least `3 * size / 32` px on screen (else copying frame 0 would win) and stays in view.

Per frame: RGB (3x3 supersampled), z-depth, instance ids (0 = background), the agents' 3D boxes and
projected centres, and the camera pose. The same seed gives bit-identical clips.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from proceedings.motionforcing.camera import CAMERA_HEIGHT, FAR, Intrinsics, pixel_rays, project, rotation, world_to_camera

CAR_SIZE = (1.6, 1.4, 3.8)  # width, height, length in metres, spec §2.5
LANE_WIDTH = 3.5
LANES = (-LANE_WIDTH, 0.0, LANE_WIDTH)
ROAD_HALF = 1.5 * LANE_WIDTH
DT = 0.3  # seconds between frames, spec §2.4
BEHAVIOURS = ("cruise", "brake", "accelerate", "cut_in", "cut_out", "overtake")
BODY_COLOURS = np.array([[0.85, 0.15, 0.15], [0.15, 0.3, 0.9], [0.95, 0.85, 0.1], [0.95, 0.5, 0.1],
                         [0.6, 0.2, 0.8], [0.1, 0.8, 0.85], [0.95, 0.3, 0.7], [0.95, 0.95, 0.95]])
WINDOW = np.array([0.12, 0.15, 0.2])
SUPERSAMPLE = 3  # odd, so the middle sample sits on the pixel centre (depth and ids come from it)


@dataclass
class Agent:
    lane_x: float  # lateral position at frame 0
    z0: float  # longitudinal position at frame 0 (world)
    speed: float  # m/s at frame 0
    accel: float  # m/s^2, constant
    lateral_speed: float  # m/s, constant
    colour: np.ndarray
    behaviour: str


@dataclass
class EgoMotion:
    speed: float  # m/s at frame 0
    accel: float  # m/s^2
    yaw_rate: float  # rad/s

    def poses(self, frames: int, substeps: int = 12) -> np.ndarray:
        """Camera poses (x, z, yaw) per frame, integrated from the origin facing +z. (T, 3)"""
        poses, x, z, h = [np.zeros(3)], 0.0, 0.0, DT / substeps
        for i in range(1, (frames - 1) * substeps + 1):
            t = (i - 0.5) * h
            speed, yaw = max(self.speed + self.accel * t, 0.5), self.yaw_rate * t
            x, z = x + speed * np.sin(yaw) * h, z + speed * np.cos(yaw) * h
            if i % substeps == 0:
                poses.append(np.array([x, z, self.yaw_rate * i * h]))
        return np.stack(poses)


@dataclass
class Clip:
    """One rendered clip; arrays are float32 except ids (uint8) and the float64 geometry."""

    rgb: np.ndarray  # (T, 3, H, W) in [0, 1]
    depth: np.ndarray  # (T, H, W) z-depth in metres, FAR for sky
    ids: np.ndarray  # (T, H, W) 0 = background, k + 1 = agent k
    centres: np.ndarray  # (A, T, 2) projected 3D box centres (u, v) in pixels
    centre_depth: np.ndarray  # (A, T) z-depth of each box centre
    boxes: np.ndarray  # (A, T, 4) world box centre x, z, heading, and centre height
    cams: np.ndarray  # (T, 3) camera poses (x, z, yaw)
    colours: np.ndarray  # (A, 3) body colours (the localiser's query)
    radii0: np.ndarray  # (A,) point-disk radius at frame 0: half the smaller side of the projected box
    K: Intrinsics
    behaviours: list[str] = field(default_factory=list)

    @property
    def static_mask(self) -> np.ndarray:
        return self.ids == 0


def agent_state(agent: Agent, t: np.ndarray) -> np.ndarray:
    """World (x, z, heading) at times t (s). Speed stops at 0 (a braking car halts). (len(t), 3)"""
    stop = np.inf if agent.accel >= 0 else agent.speed / -agent.accel
    tc = np.minimum(t, stop)
    z = agent.z0 + agent.speed * tc + 0.5 * agent.accel * tc ** 2
    speed = agent.speed + agent.accel * tc
    x = agent.lane_x + agent.lateral_speed * t
    heading = np.arctan2(agent.lateral_speed, np.maximum(speed, 1.0))
    return np.stack([x, z, heading], -1)


@dataclass(frozen=True)
class Box:
    """A box standing on the ground: a car (instance id k + 1, with windows) or static scenery (id 0)."""

    x: float
    z: float
    heading: float
    size: tuple[float, float, float]  # width, height, length
    colour: tuple[float, float, float]
    instance: int = 0
    windows: bool = False


def _box_hits(rays_w: np.ndarray, origin: np.ndarray, box: Box):
    """Slab test of rays against one box. Returns (t_near, face axis, local hit point); inf = miss."""
    w, h, l = box.size
    R = rotation(box.heading)
    o = (origin - np.array([box.x, 0.0, box.z])) @ R  # box frame
    d = rays_w @ R
    lo, hi = np.array([-w / 2, 0.0, -l / 2]), np.array([w / 2, h, l / 2])
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - o) / d, (hi - o) / d
    t_min, t_max = np.minimum(t1, t2), np.maximum(t1, t2)
    t_min = np.where(np.isnan(t_min), -np.inf, t_min)
    t_max = np.where(np.isnan(t_max), np.inf, t_max)
    near, far = t_min.max(-1), t_max.min(-1)
    hit = (near <= far) & (near > 1e-6)
    t_near = np.where(hit, near, np.inf)
    return t_near, t_min.argmax(-1), o + d * np.where(hit, near, 0.0)[..., None]


def _ground_colour(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Road, markings and verge at world (x, z), with a world-anchored texture (trackable flow)."""
    texture = (0.05 * np.sin(1.3 * x + 0.7 * z) + 0.04 * np.sin(-0.9 * x + 1.7 * z + 1.0)
               + 0.03 * np.sin(2.9 * x - 2.3 * z + 2.0) + 0.03 * np.sin(0.4 * x + 3.1 * z + 0.5))
    road = np.abs(x) < ROAD_HALF
    base = np.where(road[..., None], np.array([0.36, 0.36, 0.38]), np.array([0.28, 0.55, 0.22]))
    dashed = (np.abs(np.abs(x) - LANE_WIDTH / 2) < 0.15) & (np.mod(z, 6.0) < 3.0)
    edge = np.abs(np.abs(x) - ROAD_HALF) < 0.15
    base = np.where((dashed | edge)[..., None], np.array([0.92, 0.92, 0.88]), base)
    return base + texture[..., None]


def _sky_colour(rays_w: np.ndarray) -> np.ndarray:
    elevation = rays_w[..., 1] / np.linalg.norm(rays_w, axis=-1)
    a = np.clip(elevation * 2.0, 0, 1)[..., None]
    return (1 - a) * np.array([0.78, 0.85, 0.95]) + a * np.array([0.35, 0.55, 0.9])


def _box_corners(box: Box) -> np.ndarray:
    """The 8 world corners of a box. (8, 3)"""
    w, h, l = box.size
    corners = np.array([[sx * w / 2, y, sz * l / 2] for sx in (-1, 1) for y in (0, h) for sz in (-1, 1)])
    return corners @ rotation(box.heading).T + np.array([box.x, 0.0, box.z])


def _screen_window(box: Box, pose: np.ndarray, K: Intrinsics, s: int) -> tuple[slice, slice]:
    """Supersampled rows/cols that can see the box (its projected corners' bounds, one sample of slack)."""
    cam = world_to_camera(_box_corners(box), pose)
    n = K.size * s
    if (cam[:, 2] <= 0.05).any():  # a corner behind the camera: test every ray
        return slice(0, n), slice(0, n)
    uv, _ = project(cam, K)
    lo, hi = np.floor(uv.min(0) * s) - 1, np.ceil(uv.max(0) * s) + 1
    c0, r0 = (int(np.clip(x, 0, n)) for x in lo)
    c1, r1 = (int(np.clip(x, 0, n)) for x in hi)
    return slice(r0, r1), slice(c0, c1)


def render_frame(K: Intrinsics, pose: np.ndarray, boxes: list[Box]):
    """Ray-cast one frame of the road and `boxes`. Returns rgb (3, H, W), depth (H, W), ids (H, W)."""
    s = SUPERSAMPLE
    rays_c = pixel_rays(K, s)  # (sH, sW, 3), z = 1
    rays_w = rays_c @ rotation(pose[2]).T
    origin = np.array([pose[0], CAMERA_HEIGHT, pose[1]])
    with np.errstate(divide="ignore"):
        t_ground = np.where(rays_c[..., 1] < 0, CAMERA_HEIGHT / -rays_c[..., 1], np.inf)
    depth, ids = t_ground.copy(), np.zeros(t_ground.shape, np.uint8)
    hit_ground = origin + rays_w * np.where(np.isfinite(t_ground), t_ground, 0.0)[..., None]
    colour = np.where(np.isfinite(t_ground)[..., None], _ground_colour(hit_ground[..., 0], hit_ground[..., 2]),
                      _sky_colour(rays_w))
    for box in boxes:
        window_rows, window_cols = _screen_window(box, pose, K, s)
        if window_rows.stop <= window_rows.start or window_cols.stop <= window_cols.start:
            continue
        win = (window_rows, window_cols)
        t_near, axis, local = _box_hits(rays_w[win], origin, box)
        closer = t_near < depth[win]
        shade = np.array([0.72, 1.0, 0.86])[axis]  # side, top, front/back faces
        glass = (local[..., 1] > 0.85) & (local[..., 1] < 1.25) & (axis != 1) & box.windows
        box_rgb = np.where(glass[..., None], WINDOW, np.array(box.colour) * shade[..., None])
        colour[win] = np.where(closer[..., None], box_rgb, colour[win])
        depth[win], ids[win] = np.where(closer, t_near, depth[win]), np.where(closer, box.instance, ids[win])
    rgb = colour.reshape(K.size, s, K.size, s, 3).mean((1, 3))
    mid = s // 2  # depth and ids from the sample at each pixel's centre
    depth_c, ids_c = depth[mid::s, mid::s], ids[mid::s, mid::s]
    return np.clip(rgb, 0, 1).transpose(2, 0, 1), np.minimum(depth_c, FAR), ids_c


CENTRE_HEIGHT = CAR_SIZE[1] / 2
SCENERY_COLOURS = ((0.45, 0.33, 0.22), (0.5, 0.5, 0.47), (0.2, 0.35, 0.15), (0.62, 0.56, 0.45))


def _car(state: np.ndarray, k: int, colour: np.ndarray) -> Box:
    return Box(float(state[0]), float(state[1]), float(state[2]), CAR_SIZE, tuple(colour), k + 1, True)


def random_scenery(rng: np.random.Generator, count: int = 10) -> list[Box]:
    """Static roadside blocks (posts, huts, hedges) beyond the verge: they give the ego warp and the
    ego flow parallax that the flat road alone (depth per pixel independent of a level camera's pose) lacks."""
    return [Box(float(rng.choice([-1, 1]) * rng.uniform(ROAD_HALF + 1.5, ROAD_HALF + 5)), float(rng.uniform(4, 60)), 0.0,
                (float(rng.uniform(0.5, 2.5)), float(rng.uniform(1.5, 4.0)), float(rng.uniform(0.5, 4.0))),
                SCENERY_COLOURS[int(rng.integers(len(SCENERY_COLOURS)))]) for _ in range(count)]
EGO_VARIANTS = {"speed_up": (2.0, 0.0), "slow_down": (-2.0, 0.0), "left": (0.0, -0.15), "right": (0.0, 0.15)}


def random_ego(rng: np.random.Generator) -> EgoMotion:
    return EgoMotion(speed=rng.uniform(3, 7), accel=rng.uniform(-1.5, 1.5), yaw_rate=rng.uniform(-0.15, 0.15))


def _random_agent(rng: np.random.Generator, ego_speed: float, frames: int, colour: np.ndarray) -> Agent:
    behaviour = str(rng.choice(BEHAVIOURS))
    side = float(rng.choice([-1.0, 1.0]))
    lane_change = LANE_WIDTH / ((frames - 1) * DT)  # one lane over the clip, at constant lateral speed
    lane, z0, speed, accel, lateral = float(rng.choice(LANES)), rng.uniform(6, 18), ego_speed + rng.uniform(-2.5, 2.5), 0.0, 0.0
    if behaviour == "brake":
        speed, accel = ego_speed + rng.uniform(-1, 2), rng.uniform(-3, -1)
    elif behaviour == "accelerate":
        accel = rng.uniform(1, 2.5)
    elif behaviour == "cut_in":
        lane, lateral = side * LANE_WIDTH, -side * lane_change
    elif behaviour == "cut_out":
        lane, lateral = 0.0, side * lane_change
    elif behaviour == "overtake":
        lane, z0, speed = side * LANE_WIDTH, rng.uniform(3, 8), ego_speed + rng.uniform(3, 5)
    return Agent(lane, z0, max(speed, 0.0), accel, lateral, colour, behaviour)


def _track(agent: Agent, cams: np.ndarray, K: Intrinsics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World states (T, 3), projected centres (T, 2) and centre depths (T,) of one agent."""
    states = agent_state(agent, np.arange(len(cams)) * DT)
    world = np.stack([states[:, 0], np.full(len(states), CENTRE_HEIGHT), states[:, 1]], -1)
    centres, depth = project(world_to_camera(world, cams), K)
    return states, centres, depth


def _acceptable(agent: Agent, accepted: list[Agent], cams: list[np.ndarray], frames: int, K: Intrinsics) -> bool:
    """In view and 4-20 m ahead at frame 0, >= 3 m ahead always, moving >= 3*size/32 px, not touching others."""
    margin, min_motion = 1.0, 3.0 * K.size / 32
    for poses in cams:
        states, centres, depth = _track(agent, poses, K)
        if not (4 <= depth[0] <= 20 and depth.min() >= 3):
            return False
        if ((centres < margin) | (centres > K.size - margin)).any():
            return False
        if np.linalg.norm(centres[-1] - centres[0]) < min_motion:
            return False
    t = np.arange(frames) * DT
    mine = agent_state(agent, t)
    for other in accepted:
        theirs = agent_state(other, t)
        if ((np.abs(mine[:, 0] - theirs[:, 0]) < 2.2) & (np.abs(mine[:, 1] - theirs[:, 1]) < 5.5)).any():
            return False
    return True


def sample_scene(rng: np.random.Generator, frames: int, size: int, egos: list[EgoMotion],
                 agents: tuple[int, int] = (2, 5), tries: int = 300) -> list[Agent]:
    """Draw agents that satisfy `_acceptable` under every ego motion in `egos`."""
    K, want = Intrinsics.for_size(size), int(rng.integers(agents[0], agents[1] + 1))
    colours, cams = rng.permutation(len(BODY_COLOURS)), [ego.poses(frames) for ego in egos]
    accepted: list[Agent] = []
    for _ in range(tries):
        if len(accepted) == want:
            break
        candidate = _random_agent(rng, egos[0].speed, frames, BODY_COLOURS[colours[len(accepted)]])
        if _acceptable(candidate, accepted, cams, frames, K):
            accepted.append(candidate)
    return accepted


def _radius0(state: np.ndarray, pose: np.ndarray, K: Intrinsics) -> float:
    """Half the smaller side of the agent's projected 3D box at frame 0 (spec §2.1 step 3)."""
    uv, _ = project(world_to_camera(_box_corners(_car(state, 0, np.zeros(3))), pose), K)
    extent = uv.max(0) - uv.min(0)
    return float(0.5 * extent.min())


def render_clip(agents: list[Agent], ego: EgoMotion, frames: int, size: int, scenery: list[Box] = ()) -> Clip:
    K, cams = Intrinsics.for_size(size), ego.poses(frames)
    tracks = [_track(agent, cams, K) for agent in agents]
    rgb, depth, ids = zip(*(render_frame(K, cams[t], [*scenery, *(_car(tr[0][t], k, a.colour)
                                                                  for k, (tr, a) in enumerate(zip(tracks, agents)))])
                            for t in range(frames)))
    A = len(agents)
    boxes = np.zeros((A, frames, 4))
    for k, (states, _, _) in enumerate(tracks):
        boxes[k, :, :3], boxes[k, :, 3] = states, CENTRE_HEIGHT
    return Clip(rgb=np.stack(rgb).astype(np.float32), depth=np.stack(depth).astype(np.float32),
                ids=np.stack(ids).astype(np.uint8),
                centres=np.stack([tr[1] for tr in tracks]) if A else np.zeros((0, frames, 2)),
                centre_depth=np.stack([tr[2] for tr in tracks]) if A else np.zeros((0, frames)),
                boxes=boxes, cams=cams, colours=np.array([a.colour for a in agents]).reshape(A, 3),
                radii0=np.array([_radius0(tr[0][0], cams[0], K) for tr in tracks]), K=K,
                behaviours=[a.behaviour for a in agents])


def sample(seed: int, frames: int = 8, size: int = 32, agents: tuple[int, int] = (2, 5)) -> Clip:
    """One random clip: a random ego motion and 2-5 agents. Bit-identical for a seed."""
    rng = np.random.default_rng(seed)
    ego, scenery = random_ego(rng), random_scenery(rng)
    return render_clip(sample_scene(rng, frames, size, [ego], agents), ego, frames, size, scenery)


def sample_ego_variants(seed: int, frames: int = 8, size: int = 32, agents: tuple[int, int] = (2, 5)) -> list[Clip]:
    """The ego-only suite: one scene (same I0, same agent tracks in the world) under four ego paths."""
    rng = np.random.default_rng(seed)
    speed, scenery = rng.uniform(4, 6), random_scenery(rng)
    egos = [EgoMotion(speed, accel, yaw_rate) for accel, yaw_rate in EGO_VARIANTS.values()]
    scene = sample_scene(rng, frames, size, egos, agents)
    return [render_clip(scene, ego, frames, size, scenery) for ego in egos]
