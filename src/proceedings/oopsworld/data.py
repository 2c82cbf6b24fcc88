"""SeamlessWorld episodes (spec §2.3): scenes, one program per boundary, both prompt surfaces, probes.

An episode starts from a sampled scene (two still frames of history), then S segments of K frames;
each boundary's program is drawn from the curriculum stage's operators and composite depth. Every
boundary carries the implicit prompt (the operation, from the operators' templates), the explicit
prompt (the whole target scene) and the schema-derived probes: change probes for every touched slot,
anchor probes for every preserved one, read at the segment's last frame, and motion probes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proceedings.oopsworld.taxonomy import (CAMERA_POSITIONS, COORD_RANGE, DIRECTIONS, OPERATORS, RADIUS, STATE_FLAGS,
                                            VOCABULARY, Op, Program, ProgramError, describe, objects)
from proceedings.oopsworld.world import render, render_segment, to_uint8

LOW_DYNAMIC = tuple(n for n, o in OPERATORS.items() if o.dynamics <= 1)
HIGH_DYNAMIC = tuple(n for n, o in OPERATORS.items() if o.dynamics == 2)
# curriculum stage -> (operators, composite depths); stage 4 = long rollouts of any program (spec §2.4)
STAGES = {1: (LOW_DYNAMIC, (1,)), 2: (HIGH_DYNAMIC, (1,)), 3: (tuple(OPERATORS), (2, 3)), 4: (tuple(OPERATORS), (1, 2))}
ATTRIBUTES = ("category", "color", "size", "texture", *STATE_FLAGS)
GLOBAL_READERS = ("environment", "time_of_day", "weather", "camera_x", "camera_y", "zoom")


def sample_scene(rng: random.Random, max_objects: int = 3, min_objects: int = 1) -> dict:
    """A random still scene, objects spread inside the initial view and never overlapping."""
    g = {"environment": rng.choice(VOCABULARY["environment"]), "time_of_day": rng.choice(VOCABULARY["time_of_day"]),
         "weather": rng.choice(VOCABULARY["weather"]), "camera": {"x": 32.0, "y": 32.0, "zoom": 1.0}}
    local: list[dict] = []
    for k in range(rng.randint(min_objects, max_objects)):
        for _ in range(100):
            size = rng.choice(VOCABULARY["size"])
            pos = [float(rng.randint(20, 44)), float(rng.randint(20, 44))]
            if all(abs(pos[0] - o["pos"][0]) + abs(pos[1] - o["pos"][1]) > RADIUS[size] + RADIUS[o["size"]] + 4
                   for o in local):
                break
        else:
            break
        names = {(o["color"], o["category"]) for o in local}
        color, category = rng.choice([(c, k) for c in VOCABULARY["color"] for k in VOCABULARY["category"]
                                      if (c, k) not in names])
        local.append({"id": f"o{k + 1}", "category": category, "color": color, "size": size,
                      "texture": rng.choice(VOCABULARY["texture"]), "pos": pos, "vel": [0.0, 0.0], "rot": 0.0,
                      "state": {"glow": rng.random() < 0.2, "open": False, "broken": False}})
    return {"schema_version": 1, "global": g, "local": local}


def _random_args(rng: random.Random, name: str, target: str | None, scene: dict) -> dict:
    args = {}
    for arg, kind in OPERATORS[name].args.items():
        if kind == "coord":
            args[arg] = float(rng.randint(int(COORD_RANGE[0]) + 8, int(COORD_RANGE[1]) - 8))
        elif kind == "object":
            others = [o for o in objects(scene) if o != target]
            if not others:
                raise ProgramError("no other object")
            args[arg] = rng.choice(others)
        else:
            args[arg] = rng.choice(VOCABULARY[kind])
    return args


def sample_program(rng: random.Random, scene: dict, operators: tuple[str, ...], depth: int, frames: int = 8,
                   max_objects: int = 3, tries: int = 200) -> Program:
    """A valid program of `depth` ops drawn from `operators` whose prompts name objects unambiguously."""
    for _ in range(tries):
        ops = []
        for _ in range(depth):
            name = rng.choice(operators)
            target = rng.choice(list(objects(scene)) or [None]) if OPERATORS[name].target == "object" else None
            try:
                ops.append(Op(name, target, _random_args(rng, name, target, scene)))
            except ProgramError:
                break
        if len(ops) < depth:
            continue
        program = Program(tuple(ops), frames)
        try:
            after = program.apply(scene, max_objects=max_objects)
        except ProgramError:
            continue
        if len({(o["color"], o["category"]) for o in after["local"]}) == len(after["local"]):
            return program
    raise ProgramError(f"no valid program of depth {depth} from {operators} for this scene")


# ---- prompt surfaces -----------------------------------------------------------------------------

def _where(x: float, y: float) -> str:
    col = "left" if x < 28 else "right" if x > 36 else "centre"
    row = "top" if y < 28 else "bottom" if y > 36 else "middle"
    return f"the {row} {col}"


def implicit_prompt(program: Program, scene: dict, rng: random.Random) -> str:
    """The operation surface: only the change, one template per op ("turn the blue box red and pan left")."""
    objs, parts = objects(scene), []
    for op in program.ops:
        fields = {k: str(v) for k, v in op.args.items()}
        if op.target in objs:
            fields["target"] = describe(objs[op.target])
        if "other" in op.args:
            fields["other"] = describe(objs[op.args["other"]])
        if "x" in op.args:
            fields["where"] = _where(op.args["x"], op.args["y"])
        parts.append(rng.choice(op.spec.templates).format(**fields))
    return " and ".join(parts)


def explicit_prompt(scene: dict) -> str:
    """The scene surface: a full description of the target scene."""
    g = scene["global"]
    cam = g["camera"]
    things = []
    for o in scene["local"]:
        states = [s for s, on in (("glowing", o["state"]["glow"]), ("open", o["state"]["open"]),
                                  ("broken", o["state"]["broken"])) if on]
        moving = next((f" moving {d}" for d, v in DIRECTIONS.items() if list(v) == [c / max(abs(c), 1e-9) if c else 0.0
                                                                                 for c in o["vel"]] and any(o["vel"])), "")
        things.append(f"a {' '.join(states + [o['size'], o['texture'], o['color'], o['category']])} at "
                      f"{_where(*o['pos'])}{moving}")
    return (f"a {g['environment']} at {g['time_of_day']}, weather {g['weather']}, camera at {cam['x']:g} {cam['y']:g} "
            f"zoom {cam['zoom']:g}; " + ("; ".join(things) if things else "no objects"))


# ---- probes --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Probe:
    """One schema-derived yes/no question about a segment's last frame."""

    kind: str  # "change" | "anchor"
    slot: str  # the slot path it is about
    reader: str  # an attribute ("color", "present", ...) or a global reader ("weather", "camera_x", ...)
    expected: str | int
    where: tuple[float, float] | None = None  # world position of the object crop; None = whole frame
    segment: int = 0

    @property
    def question(self) -> str:
        if self.where is None:
            return f"Is the {self.reader.replace('_', ' ')} {self.expected}?"
        return f"Is the object at {self.where[0]:.0f},{self.where[1]:.0f} {self.reader} {self.expected}?"


def global_value(scene: dict, reader: str) -> str | int:
    g = scene["global"]
    if reader == "camera_x":
        return CAMERA_POSITIONS.index(float(g["camera"]["x"]))
    if reader == "camera_y":
        return CAMERA_POSITIONS.index(float(g["camera"]["y"]))
    if reader == "zoom":
        return [0.8, 1.0, 1.25].index(float(g["camera"]["zoom"]))
    return g[reader]


def attribute_value(obj: dict, reader: str) -> str | bool:
    return obj["state"][reader] if reader in STATE_FLAGS else obj[reader]


_GLOBAL_OF_SLOT = {"global.environment": "environment", "global.time_of_day": "time_of_day", "global.weather": "weather",
                   "global.camera.x": "camera_x", "global.camera.y": "camera_y", "global.camera.zoom": "zoom"}


def in_view(scene: dict, pos: tuple[float, float], margin: float = 2.0) -> bool:
    cam = scene["global"]["camera"]
    half = 16.0 / float(cam["zoom"]) - margin
    return abs(pos[0] - cam["x"]) <= half and abs(pos[1] - cam["y"]) <= half


def segment_probes(before: dict, program: Program, end: dict, segment: int) -> list[Probe]:
    """Change probes for the touched slots, anchor probes for the preserved ones, at the segment's end.

    Object probes read a crop at the object's end position (skipped when it left the view); a moved,
    added or set-in-motion object is probed by its category being present where it should be; a
    removed one by nothing being there. `rot` has no reader and is not probed.
    """
    touched = program.touches(before)
    ends, probes = objects(end), []

    def touched_slot(slot: str) -> bool:
        return any(slot == t or slot.startswith(t + ".") or t.startswith(slot + ".") for t in touched)

    for reader, slot in ((r, s) for s, r in _GLOBAL_OF_SLOT.items()):
        kind = "change" if touched_slot(slot) else "anchor"
        probes.append(Probe(kind, slot, reader, global_value(end, reader), None, segment))
    for oid, obj_before in objects(before).items():
        base = f"local.{oid}"
        if oid not in ends:  # removed
            pos = tuple(obj_before["pos"])
            if in_view(end, pos):
                probes.append(Probe("change", base, "present", 0, pos, segment))
            continue
        obj = ends[oid]
        pos = tuple(obj["pos"])
        if not in_view(end, pos):
            continue
        placement = any(touched_slot(f"{base}.{k}") for k in ("pos", "vel"))
        probes.append(Probe("change" if placement else "anchor", f"{base}.pos", "category", obj["category"], pos, segment))
        for reader in ATTRIBUTES:
            slot = f"{base}.state.{reader}" if reader in STATE_FLAGS else f"{base}.{reader}"
            probes.append(Probe("change" if touched_slot(slot) else "anchor", slot, reader,
                                attribute_value(obj, reader), pos, segment))
    for oid in ends.keys() - objects(before).keys():  # added
        obj = ends[oid]
        if in_view(end, tuple(obj["pos"])):
            for reader in ("present", "category", "color"):
                probes.append(Probe("change", f"local.{oid}", reader, 1 if reader == "present" else obj[reader],
                                    tuple(obj["pos"]), segment))
    return probes


MOTION_OPS = {"start_motion": "direction", "jump": "side", "pan": "side", "tilt": "vertical"}


def motion_probes(program: Program, before: dict, segment: int) -> list[dict]:
    """Commanded directions to find in the flow: an object's own motion, or the camera's (content flows
    the other way)."""
    out = []
    for op in program.ops:
        if op.op not in MOTION_OPS:
            continue
        dx, dy = DIRECTIONS[op.args[MOTION_OPS[op.op]]]
        if op.op in ("pan", "tilt"):
            out.append({"segment": segment, "direction": (-dx, -dy), "where": None})
        else:
            out.append({"segment": segment, "direction": (dx, dy), "where": tuple(objects(before)[op.target]["pos"])})
    return out


# ---- episodes ------------------------------------------------------------------------------------

@dataclass
class Episode:
    """Frames (2 still history frames + S*K), per-segment programs, prompts, scenes and probes."""

    seed: int
    frames: np.ndarray  # (2 + S*K, size, size, 3) uint8
    scenes: list[dict]  # scene at the start of each segment, plus the final one (S + 1)
    programs: list[Program]
    implicit: list[str]
    explicit: list[str]
    probes: list[Probe] = field(default_factory=list)
    motions: list[dict] = field(default_factory=list)

    @property
    def segments(self) -> int:
        return len(self.programs)

    def history(self, segment: int, frames: int = 8) -> np.ndarray:
        """The two frames before segment `segment` (0-based): (2, size, size, 3) uint8."""
        start = 2 + segment * frames
        return self.frames[start - 2:start]

    def target(self, segment: int, frames: int = 8) -> np.ndarray:
        start = 2 + segment * frames
        return self.frames[start:start + frames]


def sample_episode(seed: int, segments: int = 4, stage: int | None = 4, frames: int = 8, size: int = 32,
                   max_objects: int = 3, operators: tuple[str, ...] | None = None,
                   depths: tuple[int, ...] | None = None) -> Episode:
    """One episode; `stage` picks operators and composite depth (spec §2.4), unless given explicitly;
    `stage=None` draws the stage per episode (a training pool with every curriculum stage in it)."""
    rng = random.Random(seed)
    stage = stage or rng.randint(1, 4)
    stage_ops, stage_depths = STAGES[stage]
    operators, depths = operators or stage_ops, depths or stage_depths
    while True:
        scene = sample_scene(rng, max_objects)
        try:
            return _roll(rng, seed, scene, segments, operators, depths, frames, size, max_objects)
        except ProgramError:  # this scene admits no program of the asked kind; draw another
            continue


def _roll(rng, seed, scene, segments, operators, depths, frames, size, max_objects) -> Episode:
    still = render(scene, 0, seed, size)
    video = [still, render(scene, 1, seed, size)]
    ep = Episode(seed, np.zeros(0), [scene], [], [], [])
    for s in range(segments):
        program = sample_program(rng, scene, operators, rng.choice(depths), frames, max_objects)
        clip, end = render_segment(scene, program, frames, size, seed, t0=1 + s * frames, max_objects=max_objects)
        video.extend(clip)
        ep.programs.append(program)
        ep.implicit.append(implicit_prompt(program, scene, rng))
        ep.explicit.append(explicit_prompt(program.apply(scene, max_objects=max_objects)))
        ep.probes.extend(segment_probes(scene, program, end, s))
        ep.motions.extend(motion_probes(program, scene, s))
        scene = end
        ep.scenes.append(scene)
    ep.frames = to_uint8(np.stack(video))
    return ep


def build_episodes(seeds: range | list[int], cache: bool = True, **kwargs) -> list[Episode]:
    """Episodes for these seeds (see `sample_episode` for kwargs), cached under $PROCEEDINGS_CACHE."""
    import hashlib
    import pickle

    from proceedings.core.models import cache_root
    from proceedings.core.progress import progress_bar
    from proceedings.core.runtime import atomic_write_bytes
    from proceedings.oopsworld.taxonomy import TAXONOMY_FILE

    sources = [TAXONOMY_FILE] + [Path(__file__).with_name(name) for name in ("taxonomy.py", "world.py", "data.py")]
    key = hashlib.sha1(repr((list(seeds), sorted(kwargs.items()), [f.read_bytes() for f in sources])).encode()
                       ).hexdigest()[:12]
    path = cache_root() / "oopsworld" / "episodes" / f"{key}.pkl"
    if cache and path.exists():
        return pickle.loads(path.read_bytes())
    episodes = [sample_episode(seed, **kwargs) for seed in progress_bar(list(seeds), desc="render episodes")]
    if cache:
        atomic_write_bytes(path, pickle.dumps(episodes))
    return episodes


SPLITS = {"all": {}, "long": {"segments": 6}, "dynamics:low": {"operators": LOW_DYNAMIC, "depths": (1,)},
          "dynamics:high": {"operators": HIGH_DYNAMIC, "depths": (1, 2)}}


def split_options(split: str) -> dict:
    """Benchmark splits (spec §2.3): all, long, dynamics:low|high, family:NAME, composite:K."""
    from proceedings.oopsworld.taxonomy import FAMILIES

    if split in SPLITS:
        return dict(SPLITS[split])
    kind, _, value = split.partition(":")
    if kind == "family" and value in FAMILIES:
        return {"operators": tuple(n for n, o in OPERATORS.items() if o.family == value), "depths": (1,)}
    if kind == "composite" and value in ("1", "2", "3"):
        return {"depths": (int(value),)}
    raise ProgramError(f"unknown split '{split}'; use all, long, dynamics:low, dynamics:high, composite:1|2|3 or "
                       f"family:{'|'.join(FAMILIES)}")


def save_episodes(episodes: list[Episode], out: Path) -> Path:
    """frames.npz (E, T, H, W, 3 uint8) + episodes.jsonl (scenes, programs, both prompts, probes)."""
    import io
    import json
    from dataclasses import asdict

    from proceedings.core.runtime import atomic_write_bytes, atomic_write_text

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, frames=np.stack([ep.frames for ep in episodes]))
    atomic_write_bytes(out / "frames.npz", buffer.getvalue())
    lines = [json.dumps({"seed": ep.seed, "scenes": ep.scenes, "programs": [p.to_dict() for p in ep.programs],
                         "implicit": ep.implicit, "explicit": ep.explicit,
                         "probes": [asdict(p) for p in ep.probes], "motions": ep.motions}) for ep in episodes]
    atomic_write_text(out / "episodes.jsonl", "\n".join(lines) + "\n")
    return out
