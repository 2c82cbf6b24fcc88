"""The part grammar's exact ground truth, and the box metrics judged on known answers."""

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.moca.boxes import Box, fit_box, iou_matrix, separation
from proceedings.moca.data.procedural import FLOOR, PART_RANGES, build, generate
from proceedings.moca.metrics import (calibrate_epsilon, fit_assembly, matched_iou, one_nna, part_iou, violation_rate,
                                      violations)


def exact_boxes(parts):
    return [Box(p.center, p.half, p.rotation) for p in parts]


@pytest.mark.parametrize("kind", ["chair", "table", "shelf", "scene:warehouse"])
def test_grammar_part_counts_stay_in_range_and_joined_parts_touch_exactly(kind):
    rng = np.random.default_rng(0)
    lo, hi = PART_RANGES[kind] if kind != "scene:warehouse" else (8, 24)  # scenes to 128 parts: tested in count only
    for _ in range(6):
        parts = build(kind, rng, (lo, hi))
        assert lo <= len(parts) <= hi
        boxes = exact_boxes(parts)
        for i, part in enumerate(parts):  # every part touches its parent (-1: the root) with zero gap
            if part.parent >= 0:
                assert abs(separation(boxes[i], boxes[part.parent])) < 1e-9
        assert min(p.center[2] - p.half[2] for p in parts) == pytest.approx(FLOOR, abs=0.051)
        assert violations(boxes, 1e-9).total == 0


def test_warehouse_scenes_reach_128_components():
    assert build("scene:warehouse", np.random.default_rng(0), (128, 128)).__len__() == 128


def test_chairs_cover_the_issue_range_of_6_to_18_parts_and_name_their_symmetry_groups():
    counts = [a.n for a in generate("chair", 300, points_per_component=3, seed=1)]
    assert min(counts) == 6 and max(counts) >= 15
    parts = generate("chair", 1, points_per_component=3)[0].parts
    assert [p.symmetry for p in parts[1:5]] == ["legs"] * 4


def test_grammar_samples_score_zero_violations_and_a_leg_shifted_down_3_eps_floats():
    held = generate("chair", 24, (6, 6), points_per_component=16, seed=3)
    fitted = [fit_assembly(a.points, a.sample_id) for a in held]
    eps = calibrate_epsilon(fitted)
    assert 0 < eps < 0.5 and violation_rate(fitted, eps) == 0
    points = held[0].points.copy()
    points[1, :, 2] -= 3 * eps  # leg 1 drops away from the seat (a 6-part chair has no stretchers)
    found = violations(fit_assembly(points), eps)
    assert found.floating == 1 and found.colliding == 0


def test_two_boxes_overlapping_by_3_eps_are_a_colliding_pair_and_touching_ones_are_not():
    eps = 0.05
    a = Box(np.zeros(3), np.full(3, 0.5), np.eye(3))
    touching = Box(np.array([1.0, 0, 0]), np.full(3, 0.5), np.eye(3))
    pushed = Box(np.array([1.0 - 3 * eps, 0, 0]), np.full(3, 0.5), np.eye(3))
    assert violations([a, touching], eps).total == 0
    assert violations([a, pushed], eps).colliding == 1


def test_box_fit_recovers_a_turned_box_and_iou_is_exact_on_known_overlaps():
    rng = np.random.default_rng(0)
    c, s = np.cos(0.4), np.sin(0.4)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * [0.5, 0.2, 0.1]
    box = fit_box(np.vstack([corners @ rot.T, rng.uniform(-1, 1, (50, 3)) * [0.5, 0.2, 0.1] @ rot.T]))
    assert np.allclose(np.sort(box.half), [0.1, 0.2, 0.5], atol=0.02)  # a 7.5-degree search
    a = Box(np.zeros(3), np.ones(3), np.eye(3))
    b = Box(np.array([1.0, 0, 0]), np.ones(3), np.eye(3))  # overlaps half of a: IoU = 4 / 12
    assert abs(iou_matrix([a], [b], per_axis=8)[0, 0] - 1 / 3) < 1e-9
    assert matched_iou([a, b], [b, a]) == pytest.approx(1.0)


def test_part_iou_and_1nna_separate_a_set_from_itself_and_from_noise():
    held = [fit_assembly(a.points) for a in generate("chair", 12, (6, 8), 16, seed=5)]
    other = [fit_assembly(a.points) for a in generate("chair", 12, (6, 8), 16, seed=6)]
    assert part_iou(held, held) == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    noise = [fit_assembly(rng.normal(size=(7, 16, 3))) for _ in range(12)]
    assert part_iou(noise, held) < part_iou(other, held)
    assert one_nna(noise, held) == 1.0
    assert one_nna(other, held) < 0.9


def test_a_component_with_identical_points_is_refused_naming_the_sample():
    points = generate("chair", 1, (6, 6), 16)[0].points
    points[2] = points[2, :1]
    with pytest.raises(ProceedingsError, match="chair-7 component 2"):
        fit_assembly(points, "chair-7")


def test_impossible_part_ranges_are_refused():
    with pytest.raises(ProceedingsError, match="cannot be met"):
        generate("chair", 1, (2, 4))
    with pytest.raises(ProceedingsError, match="unknown kind"):
        generate("sofa", 1)
