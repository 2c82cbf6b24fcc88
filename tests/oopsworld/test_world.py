"""The sprite world is exact: bit-identical per seed, a segment ends on the render of its end scene,
and VBench's dynamic-degree rule on Farneback flow tells motion from stillness."""

import copy
import random

import numpy as np

from proceedings.oopsworld.data import sample_episode, sample_program, sample_scene
from proceedings.oopsworld.metrics import dynamic_degree
from proceedings.oopsworld.taxonomy import OPERATORS, Program
from proceedings.oopsworld.world import advance, compose, render, render_segment, trajectory


def test_rendering_is_bit_identical_per_seed_and_weather_differs_across_seeds():
    a, b = sample_episode(7, segments=2), sample_episode(7, segments=2)
    assert np.array_equal(a.frames, b.frames) and a.implicit == b.implicit
    scene = sample_scene(random.Random(1))
    scene["global"]["weather"] = "rain"
    assert not np.array_equal(render(scene, 3, seed=1), render(scene, 3, seed=2))


def test_every_operators_segment_ends_exactly_on_a_fresh_render_of_its_end_scene():
    rng = random.Random(0)
    seen = set()
    for trial in range(3 * 23):
        scene = sample_scene(rng)
        name = sorted(OPERATORS)[trial % len(OPERATORS)]
        try:
            program = sample_program(rng, scene, (name,), 1, tries=20)
        except Exception:
            continue
        video, end = render_segment(scene, program, frames=8, seed=3, t0=5)
        assert np.abs(video[-1] - render(end, 13, seed=3)).max() == 0
        assert end == advance(program.apply(scene), 8)
        seen.add(name)
    assert len(seen) >= 18


def test_each_operators_per_frame_trajectory_is_what_the_segment_renders_and_leaves_the_scene_intact():
    rng = random.Random(1)
    seen = set()
    for trial in range(23):
        scene = sample_scene(rng)
        name = sorted(OPERATORS)[trial]
        try:
            program = sample_program(rng, scene, (name,), 1, tries=20)
        except Exception:
            continue
        before = copy.deepcopy(scene)
        states = trajectory(scene, program, frames=4)
        video, _ = render_segment(scene, program, frames=4, seed=3, t0=5)
        assert scene == before and len(states) == 4
        assert all(np.abs(compose(s, 6 + k, 3, 32) - video[k]).max() == 0 for k, s in enumerate(states))
        assert np.abs(compose(states[0], 9, 3, 32) - video[-1]).max() > 0 or OPERATORS[name].dynamics == 0
        seen.add(name)
    assert len(seen) >= 18


def _square_clip(speed: float) -> np.ndarray:
    clip = np.zeros((16, 32, 32, 3), np.float32)
    for t in range(16):
        x = int(round(6 + speed * t))
        clip[t, 12:20, x:x + 8] = 1.0
    return clip


def test_dynamic_degree_a_square_moving_one_pixel_per_frame_is_dynamic_a_still_clip_is_not():
    assert dynamic_degree(_square_clip(1.0))
    assert not dynamic_degree(_square_clip(0.0))


def test_a_recolour_changes_the_target_gradually_and_nothing_else():
    scene = sample_scene(random.Random(4), min_objects=2, max_objects=2)
    scene["global"]["weather"] = "clear"
    target = scene["local"][0]
    color = next(c for c in ("red", "blue") if c != target["color"])
    video, _ = render_segment(scene, Program.parse([{"op": "recolor", "target": target["id"], "args": {"color": color}}]))
    first = render(scene, 0)
    diffs = [np.abs(f - first).sum() for f in video]
    assert all(a <= b + 1e-6 for a, b in zip(diffs, diffs[1:])) and diffs[-1] > 0
