"""The SeamlessWorld operation taxonomy (paper: 8 families, 23 atomic operators; spec §2.1-2.2).

A scene is the global-local schema (a JSON-like dict); a boundary carries an operator *program*:
typed ops that say what changes. `touches` names the slots an op changes, `preserve` is every other
slot (the visual anchors), `apply` is pure. The operator list lives in `taxonomy.toml` so it can be
swapped; anything a program gets wrong raises a one-line `ProgramError` with op index and slot path.
"""

from __future__ import annotations

import copy
import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proceedings.core.errors import ProceedingsError

TAXONOMY_FILE = Path(__file__).with_name("taxonomy.toml")
WORLD = 64  # world canvas, in world units (spec §2.5)
CAMERA_POSITIONS = (20.0, 26.0, 32.0, 38.0, 44.0)  # pan/tilt step 6; the 32x32 view stays inside the world
ZOOMS = (0.8, 1.0, 1.25)
RADIUS = {"small": 5.0, "medium": 6.0, "large": 7.5}  # world units; >= 5 px at zoom 1 (issue)
COORD_RANGE = (12.0, 52.0)  # where an object's centre may be put
SPEED = 1.0  # world units per frame of a started motion
JUMP = 8.0  # sideways displacement of a jump
STATE_FLAGS = ("glow", "open", "broken")
OBJECT_SLOTS = ("category", "color", "size", "texture", "pos", "vel", "rot", *(f"state.{s}" for s in STATE_FLAGS))
GLOBAL_SLOTS = ("environment", "time_of_day", "weather", "camera.x", "camera.y", "camera.zoom")
DIRECTIONS = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}


class ProgramError(ProceedingsError):
    """An operator program that cannot be applied to its scene; the message names op index and slot."""


@dataclass(frozen=True)
class Operator:
    """One atomic operator: a typed record read from taxonomy.toml."""

    name: str
    family: str
    target: str  # "object" | "scene" | "camera" | "global"
    args: dict[str, str]  # arg name -> type (a vocabulary name, "object" or "coord")
    dynamics: int  # 0 static, 1 low, 2 high
    templates: tuple[str, ...]


def _load() -> tuple[dict[str, tuple[str, ...]], dict[str, str], dict[str, Operator]]:
    raw = tomllib.loads(TAXONOMY_FILE.read_text())
    vocabulary = {k: tuple(v) for k, v in raw["vocabulary"].items()}
    operators = {name: Operator(name, spec["family"], spec["target"], dict(spec["args"]), int(spec["dynamics"]),
                                tuple(spec["templates"])) for name, spec in raw["operators"].items()}
    return vocabulary, dict(raw["families"]), operators


VOCABULARY, FAMILIES, OPERATORS = _load()


# ---- slots ---------------------------------------------------------------------------------------

def flatten(scene: dict) -> dict[str, Any]:
    """Every leaf slot of a scene: path -> value ("local.o1.color" -> "red", "global.camera.x" -> 32.0)."""
    g = scene["global"]
    slots = {f"global.{k}": g[k] for k in ("environment", "time_of_day", "weather")}
    slots.update({f"global.camera.{k}": float(g["camera"][k]) for k in ("x", "y", "zoom")})
    for obj in scene["local"]:
        base = f"local.{obj['id']}"
        for key in ("category", "color", "size", "texture"):
            slots[f"{base}.{key}"] = obj[key]
        slots[f"{base}.pos"] = tuple(round(float(v), 6) for v in obj["pos"])
        slots[f"{base}.vel"] = tuple(round(float(v), 6) for v in obj["vel"])
        slots[f"{base}.rot"] = float(obj["rot"])
        for flag in STATE_FLAGS:
            slots[f"{base}.state.{flag}"] = bool(obj["state"][flag])
    return slots


def under(slot: str, path: str) -> bool:
    """`slot` is `path` or lies inside it ("local.o1.color" is under "local.o1")."""
    return slot == path or slot.startswith(path + ".")


def overlaps(a: str, b: str) -> bool:
    return under(a, b) or under(b, a)


def changed_slots(before: dict, after: dict) -> set[str]:
    """Leaf slots whose value differs, including every slot of an object that appeared or vanished."""
    a, b = flatten(before), flatten(after)
    return {k for k in a.keys() | b.keys() if a.get(k, None) != b.get(k, None)}


def objects(scene: dict) -> dict[str, dict]:
    return {obj["id"]: obj for obj in scene["local"]}


def describe(obj: dict) -> str:
    """How prompts name an object: "the blue box"."""
    return f"the {obj['color']} {obj['category']}"


# ---- programs ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Op:
    op: str
    target: str | None = None
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> Operator:
        return OPERATORS[self.op]


@dataclass(frozen=True)
class Program:
    """The operator program of one boundary: ops on disjoint slots; `preserve` is the rest."""

    ops: tuple[Op, ...]
    frames: int = 8

    @classmethod
    def parse(cls, data: dict | list) -> "Program":
        """From {"ops": [{"op": ..., "target": ..., "args": {...}}], "frames": K} (or the bare op list)."""
        raw = data if isinstance(data, list) else data.get("ops") if isinstance(data, dict) else None
        if not isinstance(raw, list) or not raw:
            raise ProgramError("a program needs a non-empty 'ops' list")
        ops = []
        for i, entry in enumerate(raw):
            if not isinstance(entry, dict) or "op" not in entry:
                raise ProgramError(f"op {i}: each op is an object with an 'op' field")
            name = str(entry["op"])
            if name not in OPERATORS:
                near = difflib.get_close_matches(name, OPERATORS, n=3, cutoff=0.4)
                raise ProgramError(f"op {i}: unknown operator '{name}'"
                                   + (f"; nearest: {', '.join(near)}" if near else f"; known: {', '.join(OPERATORS)}"))
            args = entry.get("args", {}) or {}
            if not isinstance(args, dict):
                raise ProgramError(f"op {i} ({name}): 'args' must be an object")
            ops.append(Op(name, entry.get("target"), dict(args)))
        frames = data.get("frames", 8) if isinstance(data, dict) else 8
        if not isinstance(frames, int) or frames < 2:
            raise ProgramError(f"program: 'frames' must be an integer >= 2, got {frames!r}")
        return cls(tuple(ops), frames)

    def to_dict(self) -> dict:
        return {"ops": [{"op": o.op, "target": o.target, "args": dict(o.args)} for o in self.ops], "frames": self.frames}

    def touches(self, scene: dict) -> set[str]:
        return set().union(*self.slots_per_op(scene))

    def slots_per_op(self, scene: dict) -> list[set[str]]:
        """The slots each op changes; an `add` gets the id `apply` will give it (fresh in this program)."""
        taken, slots = set(objects(scene)), []
        for op in self.ops:
            slots.append(op_touches(op, scene, fresh_id(taken)))
            if op.op == "add":
                taken.add(fresh_id(taken))
        return slots

    def preserve(self, scene: dict) -> list[str]:
        """Every leaf slot of `scene` that no op touches (the visual anchors), sorted."""
        touched = self.touches(scene)
        return sorted(s for s in flatten(scene) if not any(under(s, t) for t in touched))

    @property
    def dynamics(self) -> int:
        return max(op.spec.dynamics for op in self.ops)

    def validate(self, scene: dict, max_objects: int = 3) -> None:
        """Raise ProgramError unless every op is well typed, applicable, and the ops touch disjoint slots."""
        seen: list[tuple[int, str]] = []
        count, removed = len(scene["local"]), {}
        for i, (op, slots) in enumerate(zip(self.ops, self.slots_per_op(scene))):
            _check_op(i, op, scene)
            for name, ref in [("target", op.target)] + [(f"args.{a}", op.args[a]) for a, kind in op.spec.args.items()
                                                         if kind == "object"]:
                if ref in removed:
                    raise ProgramError(f"op {i} ({op.op}): {name}: local.{ref} is removed by op {removed[ref]}")
            if op.op == "remove":
                removed[op.target] = i
            if op.op == "add":
                count += 1
                if count > max_objects:
                    raise ProgramError(f"op {i} (add): local: the scene would hold {count} objects, cap is {max_objects}")
            for slot in sorted(slots):
                for j, other in seen:
                    if overlaps(slot, other):
                        raise ProgramError(f"op {i} ({op.op}): {slot}: already changed by op {j}")
                seen.append((i, slot))
        self.apply(scene, validate=False, max_objects=max_objects)  # op-specific checks (no-ops, bounds)

    def apply(self, scene: dict, validate: bool = True, max_objects: int = 3) -> dict:
        """The target scene (a new dict; `scene` is left intact): every op applied in order."""
        if validate:
            self.validate(scene, max_objects)
        out = copy.deepcopy(scene)
        for i, op in enumerate(self.ops):
            _APPLY[op.op](out, op, scene, i)
        return out


def _check_op(i: int, op: Op, scene: dict) -> None:
    spec, objs = op.spec, objects(scene)
    where = f"op {i} ({op.op})"
    if spec.target == "object":
        if op.target not in objs:
            raise ProgramError(f"{where}: local.{op.target}: no such object; the scene has {', '.join(objs) or 'none'}")
    elif op.target not in (None, "", "scene", "camera", "global"):
        raise ProgramError(f"{where}: target: a {spec.target} operator takes no object target, got {op.target!r}")
    extra = set(op.args) - set(spec.args)
    if extra:
        raise ProgramError(f"{where}: args.{sorted(extra)[0]}: unexpected argument; takes {sorted(spec.args) or 'none'}")
    for name, kind in spec.args.items():
        if name not in op.args:
            raise ProgramError(f"{where}: args.{name}: missing ({kind})")
        value = op.args[name]
        if kind == "coord":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ProgramError(f"{where}: args.{name}: expected a number, got {value!r}")
            if not COORD_RANGE[0] <= float(value) <= COORD_RANGE[1]:
                raise ProgramError(f"{where}: args.{name}: {value} is outside the world's range {COORD_RANGE}")
        elif kind == "object":
            if value not in objs or value == op.target:
                raise ProgramError(f"{where}: args.{name}: '{value}' is not another object of the scene "
                                   f"({', '.join(k for k in objs if k != op.target) or 'none'})")
        elif value not in VOCABULARY[kind]:
            raise ProgramError(f"{where}: args.{name}: '{value}' is not a {kind}; allowed: {', '.join(VOCABULARY[kind])}")


def op_touches(op: Op, scene: dict, new_id: str) -> set[str]:
    """The slot paths one op changes (for `add`, the whole slot of the new object `new_id`)."""
    t = f"local.{op.target}"
    if op.op == "add":
        return {f"local.{new_id}"}
    if op.op in ("swap",):
        return {f"{t}.pos", f"local.{op.args['other']}.pos"}
    if op.op == "push":
        return {f"{t}.pos", f"local.{op.args['other']}.vel"}
    if op.op == "remove":
        return {t}
    if op.op in _SLOT:
        return {f"{t}.{_SLOT[op.op]}"}
    return {f"global.{_GLOBAL_SLOT[op.op]}"}


_SLOT = {"replace": "category", "recolor": "color", "retexture": "texture", "resize": "size", "move_to": "pos",
         "rotate": "rot", "start_motion": "vel", "stop_motion": "vel", "jump": "pos", "stack": "pos",
         "toggle_glow": "state.glow", "open_close": "state.open", "shatter": "state.broken"}
_GLOBAL_SLOT = {"pan": "camera.x", "tilt": "camera.y", "zoom": "camera.zoom", "set_time_of_day": "time_of_day",
                "set_weather": "weather", "set_environment": "environment"}


def fresh_id(taken: set[str]) -> str:
    """The first object id not in `taken`. Within one program an added object never reuses the id of
    one removed before it, so `remove` then `add` is a vanished object and a new one, not an edit."""
    return next(f"o{k}" for k in range(1, len(taken) + 2) if f"o{k}" not in taken)


# ---- apply, one function per operator ---------------------------------------------------------------

def _fail(i: int, op: Op, slot: str, message: str) -> None:
    raise ProgramError(f"op {i} ({op.op}): {slot}: {message}")


def _set_attr(key: str):
    def apply(out: dict, op: Op, before: dict, i: int) -> None:
        obj = objects(out)[op.target]
        value = op.args[key]
        if obj[key] == value:
            _fail(i, op, f"local.{op.target}.{key}", f"is already {value} (an op must change its slot)")
        obj[key] = value
    return apply


def _add(out: dict, op: Op, before: dict, i: int) -> None:
    new_id = fresh_id(set(objects(before)) | set(objects(out)))
    out["local"].append({"id": new_id, "category": op.args["category"], "color": op.args["color"],
                         "size": op.args["size"], "texture": "plain",
                         "pos": [float(op.args["x"]), float(op.args["y"])], "vel": [0.0, 0.0], "rot": 0.0,
                         "state": {flag: False for flag in STATE_FLAGS}})


def _remove(out: dict, op: Op, before: dict, i: int) -> None:
    out["local"] = [obj for obj in out["local"] if obj["id"] != op.target]


def _move_to(out: dict, op: Op, before: dict, i: int) -> None:
    obj = objects(out)[op.target]
    new = [float(op.args["x"]), float(op.args["y"])]
    if max(abs(a - b) for a, b in zip(new, obj["pos"])) < 4:
        _fail(i, op, f"local.{op.target}.pos", "the new position is within 4 units of the old one")
    obj["pos"] = new


def _swap(out: dict, op: Op, before: dict, i: int) -> None:
    objs = objects(out)
    a, b = objs[op.target], objs[op.args["other"]]
    a["pos"], b["pos"] = list(b["pos"]), list(a["pos"])


def _rotate(out: dict, op: Op, before: dict, i: int) -> None:
    obj = objects(out)[op.target]
    obj["rot"] = float((obj["rot"] + float(op.args["angle"])) % 360.0)


def _start_motion(out: dict, op: Op, before: dict, i: int) -> None:
    obj = objects(out)[op.target]
    vel = [SPEED * c for c in DIRECTIONS[op.args["direction"]]]
    if list(map(float, obj["vel"])) == vel:
        _fail(i, op, f"local.{op.target}.vel", f"is already moving {op.args['direction']}")
    obj["vel"] = vel


def _stop_motion(out: dict, op: Op, before: dict, i: int) -> None:
    obj = objects(out)[op.target]
    if not any(obj["vel"]):
        _fail(i, op, f"local.{op.target}.vel", "is not moving")
    obj["vel"] = [0.0, 0.0]


def _jump(out: dict, op: Op, before: dict, i: int) -> None:
    obj = objects(out)[op.target]
    x = obj["pos"][0] + JUMP * DIRECTIONS[op.args["side"]][0]
    if not COORD_RANGE[0] <= x <= COORD_RANGE[1]:
        _fail(i, op, f"local.{op.target}.pos", f"a jump {op.args['side']} lands outside the world (x = {x:g})")
    obj["pos"] = [x, obj["pos"][1]]


def _push(out: dict, op: Op, before: dict, i: int) -> None:
    """A slides up to B (contact), B inherits A's push along the dominant axis of A->B."""
    objs = objects(out)
    a, b = objs[op.target], objs[op.args["other"]]
    dx, dy = b["pos"][0] - a["pos"][0], b["pos"][1] - a["pos"][1]
    axis = (1.0 if dx > 0 else -1.0, 0.0) if abs(dx) >= abs(dy) else (0.0, 1.0 if dy > 0 else -1.0)
    gap = RADIUS[a["size"]] + RADIUS[b["size"]]
    contact = [b["pos"][0] - axis[0] * gap if axis[0] else b["pos"][0],
               b["pos"][1] - axis[1] * gap if axis[1] else b["pos"][1]]
    if list(map(float, a["pos"])) == contact:
        _fail(i, op, f"local.{op.target}.pos", f"is already against local.{op.args['other']} (an op must change its slot)")
    a["pos"] = contact
    if list(map(float, b["vel"])) == [SPEED * axis[0], SPEED * axis[1]]:
        _fail(i, op, f"local.{op.args['other']}.vel", "already moves that way")
    b["vel"] = [SPEED * axis[0], SPEED * axis[1]]


def _stack(out: dict, op: Op, before: dict, i: int) -> None:
    objs = objects(out)
    a, b = objs[op.target], objs[op.args["other"]]
    y = b["pos"][1] - RADIUS[a["size"]] - RADIUS[b["size"]]
    if y < 0:
        _fail(i, op, f"local.{op.target}.pos", "the stack would reach above the world")
    if list(map(float, a["pos"])) == [float(b["pos"][0]), float(y)]:
        _fail(i, op, f"local.{op.target}.pos", f"is already on local.{op.args['other']}")
    a["pos"] = [float(b["pos"][0]), float(y)]


def _camera(key: str, values: tuple[float, ...], steps: dict[str, int], arg: str):
    def apply(out: dict, op: Op, before: dict, i: int) -> None:
        camera = out["global"]["camera"]
        index = values.index(float(camera[key])) + steps[op.args[arg]]
        if not 0 <= index < len(values):
            _fail(i, op, f"global.camera.{key}", f"the camera would leave the world ({op.op} {op.args[arg]} from "
                  f"{camera[key]:g}; allowed {', '.join(f'{v:g}' for v in values)})")
        camera[key] = values[index]
    return apply


def _set_global(key: str):
    def apply(out: dict, op: Op, before: dict, i: int) -> None:
        if out["global"][key] == op.args[key]:
            _fail(i, op, f"global.{key}", f"is already {op.args[key]}")
        out["global"][key] = op.args[key]
    return apply


def _toggle(flag: str, one_way: bool = False):
    def apply(out: dict, op: Op, before: dict, i: int) -> None:
        state = objects(out)[op.target]["state"]
        if one_way and state[flag]:
            _fail(i, op, f"local.{op.target}.state.{flag}", "is already broken")
        state[flag] = not state[flag]
    return apply


_APPLY = {
    "add": _add, "remove": _remove, "replace": _set_attr("category"),
    "recolor": _set_attr("color"), "retexture": _set_attr("texture"), "resize": _set_attr("size"),
    "move_to": _move_to, "swap": _swap, "rotate": _rotate,
    "start_motion": _start_motion, "stop_motion": _stop_motion, "jump": _jump,
    "push": _push, "stack": _stack,
    "pan": _camera("x", CAMERA_POSITIONS, {"left": -1, "right": 1}, "side"),
    "tilt": _camera("y", CAMERA_POSITIONS, {"up": -1, "down": 1}, "vertical"),
    "zoom": _camera("zoom", ZOOMS, {"out": -1, "in": 1}, "zoom_direction"),
    "set_time_of_day": _set_global("time_of_day"), "set_weather": _set_global("weather"),
    "set_environment": _set_global("environment"),
    "toggle_glow": _toggle("glow"), "open_close": _toggle("open"), "shatter": _toggle("broken", one_way=True),
}
assert set(_APPLY) == set(OPERATORS), "taxonomy.toml and the apply table disagree"


# ---- scenes --------------------------------------------------------------------------------------

def validate_scene(scene: Any, max_objects: int = 3) -> dict:
    """Check a scene dict against the schema; ProgramError names the field and the allowed values."""
    if not isinstance(scene, dict) or not isinstance(scene.get("global"), dict) or not isinstance(scene.get("local"), list):
        raise ProgramError("scene: needs a 'global' object and a 'local' list")
    g = scene["global"]
    for key in ("environment", "time_of_day", "weather"):
        if g.get(key) not in VOCABULARY[key]:
            raise ProgramError(f"scene: global.{key}: {g.get(key)!r} is not one of {', '.join(VOCABULARY[key])}")
    camera = g.get("camera", {})
    for key, values in (("x", CAMERA_POSITIONS), ("y", CAMERA_POSITIONS), ("zoom", ZOOMS)):
        if not isinstance(camera.get(key), (int, float)) or float(camera[key]) not in values:
            raise ProgramError(f"scene: global.camera.{key}: {camera.get(key)!r} is outside the world; "
                               f"allowed {', '.join(f'{v:g}' for v in values)}")
    if len(scene["local"]) > max_objects:
        raise ProgramError(f"scene: local: {len(scene['local'])} objects, cap is {max_objects}")
    ids = set()
    for obj in scene["local"]:
        oid = obj.get("id")
        if not isinstance(oid, str) or oid in ids:
            raise ProgramError(f"scene: local: object id {oid!r} missing or repeated")
        ids.add(oid)
        for key in ("category", "color", "size", "texture"):
            if obj.get(key) not in VOCABULARY[key]:
                raise ProgramError(f"scene: local.{oid}.{key}: {obj.get(key)!r} is not one of {', '.join(VOCABULARY[key])}")
        for key in ("pos", "vel"):
            if not (isinstance(obj.get(key), (list, tuple)) and len(obj[key]) == 2):
                raise ProgramError(f"scene: local.{oid}.{key}: expected [x, y]")
        obj.setdefault("rot", 0.0)
        obj["state"] = {flag: bool(obj.get("state", {}).get(flag, False)) for flag in STATE_FLAGS}
    return scene
