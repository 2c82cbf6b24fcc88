"""Probe readers derived from the scene schema, by analysis-by-synthesis (spec §2.6, issue 31's "exact probes").

A probe asks one thing about a segment's last frame ("is the object at 26,30 red?", "is it night?").
Because the world is an exact renderer, the reader renders the GT end scene once per candidate answer
(the object in each colour, or absent; the weather as each kind; the camera in each cell) at the same
frame index and seed, and picks the candidate nearest to the frame (object crops 20x20 around the GT
position; whole frames for globals). A probe is answered right when its expected value is among the
nearest. GT video is read right by construction; a frozen or drifting video is read as what it shows.

The first version trained CNN readers on GT renders (spec §2.6): after 600 steps (165 CPU-s) they read
GT video at change 0.51 / anchor 0.62 (the first tiny run of 2026-12-01, not kept), failing gate G1, so
this exact reader replaced them.
"""

from __future__ import annotations

import copy

import numpy as np

from proceedings.oopsworld.data import Episode, Probe
from proceedings.oopsworld.taxonomy import CAMERA_POSITIONS, STATE_FLAGS, VOCABULARY, ZOOMS, objects
from proceedings.oopsworld.world import VIEW, render

CROP = 20
ABSENT = "<absent>"


def screen_position(camera: dict, pos, size: int) -> tuple[float, float]:
    """(column, row) in pixels of a world position."""
    col = ((pos[0] - float(camera["x"])) * float(camera["zoom"]) / VIEW + 0.5) * size - 0.5
    row = ((pos[1] - float(camera["y"])) * float(camera["zoom"]) / VIEW + 0.5) * size - 0.5
    return col, row


def crop(frame: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """A CROP x CROP window of an (H, W, 3) frame around (column, row), edge-padded."""
    size, pad = frame.shape[0], CROP // 2 + 1
    col, row = (min(max(v, 0), size - 1) for v in centre)
    padded = np.pad(frame, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    r, c = int(round(row)) + pad - CROP // 2, int(round(col)) + pad - CROP // 2
    return padded[r:r + CROP, c:c + CROP]


_GLOBAL_VALUES = {"environment": VOCABULARY["environment"], "time_of_day": VOCABULARY["time_of_day"],
                  "weather": VOCABULARY["weather"], "camera_x": CAMERA_POSITIONS, "camera_y": CAMERA_POSITIONS,
                  "zoom": ZOOMS}


def _global_variant(scene: dict, reader: str, value) -> dict:
    out = copy.deepcopy(scene)
    g = out["global"]
    if reader.startswith("camera_") or reader == "zoom":
        g["camera"][{"camera_x": "x", "camera_y": "y", "zoom": "zoom"}[reader]] = value
    else:
        g[reader] = value
    return out


def _without(scene: dict, oid: str) -> dict:
    out = copy.deepcopy(scene)
    out["local"] = [o for o in out["local"] if o["id"] != oid]
    return out


def _object_variants(before: dict, end: dict, probe: Probe) -> dict:
    """Candidate answer -> the scene that answer would show (ABSENT = no object there)."""
    oid = probe.slot.split(".")[1]
    if probe.reader == "present":
        if oid in objects(end):  # added: there, or not
            return {1: end, 0: _without(end, oid)}
        ghost = copy.deepcopy(objects(before)[oid])  # removed: what would still be there
        ghost["pos"] = list(probe.where)
        return {0: end, 1: {**end, "local": end["local"] + [ghost]}}
    variants = {ABSENT: _without(end, oid)}
    values = (False, True) if probe.reader in STATE_FLAGS else VOCABULARY[probe.reader]
    for value in values:
        scene = copy.deepcopy(end)
        obj = objects(scene)[oid]
        if probe.reader in STATE_FLAGS:
            obj["state"][probe.reader] = value
        else:
            obj[probe.reader] = value
        variants[value] = scene
    return variants


class SchemaReaders:
    """Reads probes by nearest candidate render; candidate renders are cached per (episode, segment, probe)."""

    def __init__(self, size: int = 32):
        self.size = size
        self._cache: dict[tuple, tuple[list, np.ndarray]] = {}

    def _candidates(self, ep: Episode, segment: int, index: int, probe: Probe) -> tuple[list, np.ndarray]:
        key = (ep.seed, ep.segments, segment, index)
        if key not in self._cache:
            before, end = ep.scenes[segment], ep.scenes[segment + 1]
            t = 1 + (segment + 1) * ep.programs[segment].frames  # the segment's last frame index
            if probe.where is None:
                variants = {v: _global_variant(end, probe.reader, v) for v in _GLOBAL_VALUES[probe.reader]}
            else:
                variants = _object_variants(before, end, probe)
            images = [render(scene, t, ep.seed, self.size) for scene in variants.values()]
            if probe.where is not None:
                centre = screen_position(end["global"]["camera"], probe.where, self.size)
                images = [crop(image, centre) for image in images]
            self._cache[key] = (list(variants), np.stack(images))
        return self._cache[key]

    def expected_key(self, probe: Probe):
        if probe.where is None and probe.reader in ("camera_x", "camera_y", "zoom"):
            return _GLOBAL_VALUES[probe.reader][int(probe.expected)]
        return probe.expected

    def read(self, frame: np.ndarray, ep: Episode, segment: int, index: int, probe: Probe) -> bool:
        """Whether `frame` (the segment's last, (H, W, 3) in [0, 1]) shows the probe's expected value."""
        values, images = self._candidates(ep, segment, index, probe)
        seen = frame if probe.where is None else crop(
            frame, screen_position(ep.scenes[segment + 1]["global"]["camera"], probe.where, self.size))
        dist = ((images - seen[None]) ** 2).mean(axis=(1, 2, 3))
        return bool(dist[values.index(self.expected_key(probe))] <= dist.min() + 1e-9)

    def answer(self, frames: list[np.ndarray], contexts: list[tuple[Episode, int]],
               probes: list[list[Probe]]) -> list[np.ndarray]:
        """For each segment-end frame with its (episode, segment) and probes: which probes it answers right."""
        return [np.array([self.read(frame, ep, s, i, p) for i, p in enumerate(plist)], bool)
                for frame, (ep, s), plist in zip(frames, contexts, probes)]

    @staticmethod
    def subject_features(frames: np.ndarray) -> np.ndarray:
        """8x8 mean-pooled colour layout of each frame (T, H, W, 3): the DINO stand-in (proxy)."""
        t, h, w, c = frames.shape
        return frames.reshape(t, 8, h // 8, 8, w // 8, c).mean((2, 4)).reshape(t, -1)

    @staticmethod
    def background_features(frames: np.ndarray) -> np.ndarray:
        """4x4 mean-pooled colour layout of each frame (T, H, W, 3): the CLIP stand-in (proxy)."""
        t, h, w, c = frames.shape
        return frames.reshape(t, 4, h // 4, 4, w // 4, c).mean((2, 4)).reshape(t, -1)
