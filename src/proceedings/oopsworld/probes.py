"""Frozen probe readers trained on GT renders (spec §2.6): they answer the schema-derived probes.

The object reader looks at a crop centred on the object's GT position (plus the zoom as a fourth
channel) and reads present / category / colour / size / texture / glow / open / broken; the global
reader looks at the whole frame and reads environment / time / weather and the camera's grid cell.
Both are trained once on random GT scenes, cached under $PROCEEDINGS_CACHE, and never updated.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass

import numpy as np

from proceedings.core.models import cache_root
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.oopsworld.data import Probe, sample_scene
from proceedings.oopsworld.taxonomy import CAMERA_POSITIONS, RADIUS, STATE_FLAGS, VOCABULARY, ZOOMS
from proceedings.oopsworld.world import VIEW, render

CROP = 20
OBJECT_HEADS = {"present": 2, "category": 8, "color": 6, "size": 3, "texture": 3, "glow": 2, "open": 2, "broken": 2}
GLOBAL_HEADS = {"environment": 4, "time_of_day": 3, "weather": 4, "camera_x": 5, "camera_y": 5, "zoom": 3}


def encode(reader: str, value) -> int:
    """A probe's expected value as the reader's class index."""
    if reader in VOCABULARY:
        return VOCABULARY[reader].index(value)
    return int(value)


def screen_position(camera: dict, pos, size: int) -> tuple[float, float]:
    """(column, row) in pixels of a world position."""
    col = ((pos[0] - float(camera["x"])) * float(camera["zoom"]) / VIEW + 0.5) * size - 0.5
    row = ((pos[1] - float(camera["y"])) * float(camera["zoom"]) / VIEW + 0.5) * size - 0.5
    return col, row


def crops(frames: np.ndarray, centres: np.ndarray, zooms: np.ndarray) -> np.ndarray:
    """(n, 4, CROP, CROP) float32 from frames (n, H, W, 3) in [0, 1]: edge-padded crops plus a zoom plane."""
    pad = CROP // 2 + 1
    padded = np.pad(frames, ((0, 0), (pad, pad), (pad, pad), (0, 0)), mode="edge")
    out = np.empty((len(frames), 4, CROP, CROP), np.float32)
    size = frames.shape[1]
    for n, ((col, row), zoom) in enumerate(zip(centres, zooms)):
        col, row = min(max(col, 0), size - 1), min(max(row, 0), size - 1)  # a centre just off screen
        r, c = int(round(row)) + pad - CROP // 2, int(round(col)) + pad - CROP // 2
        out[n, :3] = padded[n, r:r + CROP, c:c + CROP].transpose(2, 0, 1)
        out[n, 3] = zoom
    return out


def _reader(in_channels: int, heads: dict[str, int], width: int = 32):
    import torch.nn as nn

    class Reader(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(
                nn.Conv2d(in_channels, width, 3, padding=1), nn.GELU(),
                nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.GELU(),
                nn.Conv2d(2 * width, 2 * width, 3, stride=2, padding=1), nn.GELU(),
                nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(32 * width, 128), nn.GELU())
            self.heads = nn.ModuleDict({name: nn.Linear(128, n) for name, n in heads.items()})

        def forward(self, x):
            h = self.trunk(x)
            return {name: head(h) for name, head in self.heads.items()}

    return Reader()


@dataclass(frozen=True)
class ProbeConfig:
    scenes: int = 1500  # random GT scenes rendered for training
    steps: int = 600
    batch: int = 128
    lr: float = 2e-3
    size: int = 32
    seed: int = 1234

    def key(self) -> str:
        return hashlib.sha1(repr(sorted(asdict(self).items())).encode()).hexdigest()[:10]


def _training_scene(rng: random.Random) -> dict:
    scene = sample_scene(rng, 3)
    cam = scene["global"]["camera"]
    cam.update(x=rng.choice(CAMERA_POSITIONS), y=rng.choice(CAMERA_POSITIONS), zoom=rng.choice(ZOOMS))
    half = 16.0 / cam["zoom"]
    for obj in scene["local"]:
        obj["pos"] = [cam["x"] + rng.uniform(-half + 3, half - 3), cam["y"] + rng.uniform(-half + 3, half - 3)]
        obj["rot"] = float(rng.choice((0, 0, 45, 90, 180)))
        obj["state"] = {flag: rng.random() < 0.3 for flag in STATE_FLAGS}
    return scene


def training_set(config: ProbeConfig):
    """Frames, their global labels, and object crops with labels (-1 = not applicable)."""
    rng = random.Random(config.seed)
    frames, glob, obj_x, obj_y = [], [], [], []
    for n in progress_bar(range(config.scenes), desc="render probe training scenes"):
        scene = _training_scene(rng)
        frame = render(scene, rng.randrange(1000), rng.randrange(10_000), config.size)
        frames.append(frame)
        g = scene["global"]
        glob.append([encode(k, g[k]) for k in ("environment", "time_of_day", "weather")]
                    + [CAMERA_POSITIONS.index(g["camera"]["x"]), CAMERA_POSITIONS.index(g["camera"]["y"]),
                       ZOOMS.index(g["camera"]["zoom"])])
        centres, labels = [], []
        for obj in scene["local"]:
            col, row = screen_position(g["camera"], obj["pos"], config.size)
            centres.append((col + rng.uniform(-1, 1), row + rng.uniform(-1, 1)))
            labels.append([1, encode("category", obj["category"]), encode("color", obj["color"]),
                           encode("size", obj["size"]), encode("texture", obj["texture"]),
                           *(int(obj["state"][f]) for f in STATE_FLAGS)])
        for _ in range(2):  # empty places: nothing is centred there
            for _ in range(50):
                half = 16.0 / g["camera"]["zoom"] - 1
                wx, wy = g["camera"]["x"] + rng.uniform(-half, half), g["camera"]["y"] + rng.uniform(-half, half)
                if all(max(abs(wx - o["pos"][0]), abs(wy - o["pos"][1])) > RADIUS[o["size"]] + 3 for o in scene["local"]):
                    centres.append(screen_position(g["camera"], (wx, wy), config.size))
                    labels.append([0] + [-1] * 7)
                    break
        obj_x.append(crops(np.repeat(frame[None], len(centres), 0), np.array(centres),
                           np.full(len(centres), g["camera"]["zoom"], np.float32)))
        obj_y.extend(labels)
    return (np.stack(frames).transpose(0, 3, 1, 2).astype(np.float32), np.array(glob),
            np.concatenate(obj_x), np.array(obj_y))


class ProbeReaders:
    """The two frozen readers and the probe answering built on them."""

    def __init__(self, object_reader, global_reader, size: int = 32):
        self.object_reader, self.global_reader, self.size = object_reader.eval(), global_reader.eval(), size

    def read_objects(self, x: np.ndarray) -> dict[str, np.ndarray]:
        import torch

        with torch.no_grad():
            out = {k: [] for k in OBJECT_HEADS}
            for start in range(0, len(x), 512):
                logits = self.object_reader(torch.from_numpy(x[start:start + 512]))
                for k in out:
                    out[k].append(logits[k].argmax(1).numpy())
        return {k: np.concatenate(v) if v else np.zeros(0, int) for k, v in out.items()}

    def read_globals(self, frames: np.ndarray) -> dict[str, np.ndarray]:
        """frames: (n, H, W, 3) float in [0, 1]."""
        import torch

        with torch.no_grad():
            logits = self.global_reader(torch.from_numpy(np.ascontiguousarray(frames.transpose(0, 3, 1, 2), np.float32)))
        return {k: v.argmax(1).numpy() for k, v in logits.items()}

    def subject_features(self, frames: np.ndarray) -> np.ndarray:
        """The global reader's trunk features of each frame (T, H, W, 3): the DINO stand-in."""
        import torch

        with torch.no_grad():
            x = torch.from_numpy(np.ascontiguousarray(frames.transpose(0, 3, 1, 2), np.float32))
            return self.global_reader.trunk(x).numpy()

    @staticmethod
    def background_features(frames: np.ndarray) -> np.ndarray:
        """4x4 mean-pooled colour layout of each frame (T, H, W, 3): the CLIP stand-in."""
        t, h, w, c = frames.shape
        return frames.reshape(t, 4, h // 4, 4, w // 4, c).mean((2, 4)).reshape(t, -1)

    def answer(self, frames: list[np.ndarray], cameras: list[dict], probes: list[list[Probe]]) -> list[np.ndarray]:
        """For each frame (H, W, 3 float) with its GT camera and probes: a bool array, probe answered right."""
        globals_read = self.read_globals(np.stack(frames)) if frames else {}
        obj_frames, centres, zooms, index = [], [], [], []
        for f, (frame, cam, plist) in enumerate(zip(frames, cameras, probes)):
            for p, probe in enumerate(plist):
                if probe.where is not None:
                    obj_frames.append(frame)
                    centres.append(screen_position(cam, probe.where, self.size))
                    zooms.append(float(cam["zoom"]))
                    index.append((f, p))
        obj_read = self.read_objects(crops(np.stack(obj_frames), np.array(centres), np.array(zooms, np.float32))) \
            if obj_frames else {}
        answers = [np.zeros(len(plist), bool) for plist in probes]
        for f, plist in enumerate(probes):
            for p, probe in enumerate(plist):
                if probe.where is None:
                    answers[f][p] = globals_read[probe.reader][f] == encode(probe.reader, probe.expected)
        for n, (f, p) in enumerate(index):
            probe = probes[f][p]
            present = obj_read["present"][n] == 1
            if probe.reader == "present":
                answers[f][p] = obj_read["present"][n] == probe.expected
            else:  # an attribute of an object that must be there
                answers[f][p] = present and obj_read[probe.reader][n] == encode(probe.reader, probe.expected)
        return answers


def train_readers(config: ProbeConfig = ProbeConfig(), cache: bool = True) -> ProbeReaders:
    """Train (or load from the cache) the two frozen readers."""
    import torch
    import torch.nn.functional as F

    object_reader, global_reader = _reader(4, OBJECT_HEADS), _reader(3, GLOBAL_HEADS)
    path = cache_root() / "oopsworld" / f"probes-{config.key()}.pt"
    state = load_checkpoint(path) if cache else None
    if state is None:
        torch.manual_seed(config.seed)
        frames, glob, obj_x, obj_y = training_set(config)
        rng = np.random.default_rng(config.seed)
        params = list(object_reader.parameters()) + list(global_reader.parameters())
        opt = torch.optim.AdamW(params, lr=config.lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, config.steps)
        heads_o, heads_g = list(OBJECT_HEADS), list(GLOBAL_HEADS)
        for _ in progress_bar(range(config.steps), desc="train probe readers"):
            i, j = rng.integers(0, len(obj_x), config.batch), rng.integers(0, len(frames), config.batch // 2)
            out_o, out_g = object_reader(torch.from_numpy(obj_x[i])), global_reader(torch.from_numpy(frames[j]))
            y_o, y_g = torch.from_numpy(obj_y[i]), torch.from_numpy(glob[j])
            loss = sum(F.cross_entropy(out_o[h], y_o[:, k], ignore_index=-1) for k, h in enumerate(heads_o))
            loss = loss + sum(F.cross_entropy(out_g[h], y_g[:, k]) for k, h in enumerate(heads_g))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        state = {"object": object_reader.state_dict(), "global": global_reader.state_dict()}
        if cache:
            save_checkpoint(path, state)
    object_reader.load_state_dict(state["object"])
    global_reader.load_state_dict(state["global"])
    return ProbeReaders(object_reader, global_reader, config.size)





def warm_up() -> str:
    """`make setup`: train and cache the frozen probe readers every preset and test uses."""
    from proceedings.core.runtime import set_threads

    set_threads()
    train_readers(ProbeConfig())
    return "oopsworld: probe readers cached"
