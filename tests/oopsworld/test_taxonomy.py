"""The taxonomy: 8 families / 23 typed operators from taxonomy.toml, pure apply, touches = the diff,
preserve = the complement, and one-line ProgramErrors for every kind of bad program."""

import copy
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from proceedings.oopsworld.data import sample_program, sample_scene
from proceedings.oopsworld.taxonomy import (FAMILIES, OPERATORS, Program, ProgramError, changed_slots, flatten,
                                            under, validate_scene)


def test_eight_families_twenty_three_operators_each_with_three_templates():
    assert len(FAMILIES) == 8 and len(OPERATORS) == 23
    assert {op.family for op in OPERATORS.values()} == set(FAMILIES)
    assert all(len(op.templates) >= 3 and op.dynamics in (0, 1, 2) for op in OPERATORS.values())


# Found by Hypothesis in fresh-clone runs: seed=2304, depth=3 draws "remove o1, pan, add" (the added
# object took the removed one's id, so touches named o2 and o1 only partly changed); seed=190, depth=3
# pushes o1 against o2 and then o2 back against o1 (already in contact: o2.pos was touched, unchanged).
@example(seed=2304, depth=3)
@example(seed=190, depth=3)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 3))
def test_apply_is_pure_and_changes_exactly_the_touched_slots(seed, depth):
    rng = random.Random(seed)
    scene = sample_scene(rng)
    try:
        program = sample_program(rng, scene, tuple(OPERATORS), depth, tries=50)
    except ProgramError:
        return  # no valid program of that depth for this scene
    before = copy.deepcopy(scene)
    after = program.apply(scene)
    assert scene == before  # pure
    touched = program.touches(scene)
    changed = changed_slots(scene, after)
    assert all(any(under(s, t) for t in touched) for s in changed)  # nothing outside touches changes
    assert all(any(under(s, t) for s in changed) for t in touched)  # every touched slot changes
    preserved = program.preserve(scene)
    assert set(preserved).isdisjoint(changed) and set(preserved) | {s for s in flatten(scene) if any(
        under(s, t) for t in touched)} == set(flatten(scene))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), op=st.sampled_from(sorted(OPERATORS)),
       junk=st.sampled_from(["mauve", 999.0, "o9", None, "sideways"]))
def test_an_ill_typed_argument_or_missing_target_always_raises(seed, op, junk):
    scene = sample_scene(random.Random(seed))
    spec = OPERATORS[op]
    args = {name: junk for name in spec.args}
    target = "o9" if spec.target == "object" else None
    if not args and target is None:
        args = {"unexpected": junk}
    with pytest.raises(ProgramError):
        Program.parse({"ops": [{"op": op, "target": target, "args": args}]}).apply(scene)


def _scene():
    return validate_scene({"global": {"environment": "meadow", "time_of_day": "day", "weather": "clear",
                                      "camera": {"x": 44.0, "y": 32.0, "zoom": 1.0}},
                           "local": [{"id": "o1", "category": "box", "color": "blue", "size": "small",
                                      "texture": "plain", "pos": [30, 30], "vel": [0, 0]},
                                     {"id": "o2", "category": "ball", "color": "red", "size": "large",
                                      "texture": "plain", "pos": [40, 40], "vel": [0, 0]}]})


@pytest.mark.parametrize("ops, message", [
    ([{"op": "recolour", "target": "o1", "args": {"color": "red"}}], "op 0: unknown operator 'recolour'; nearest: recolor"),
    ([{"op": "recolor", "target": "o1", "args": {"color": 3}}], "op 0 (recolor): args.color: '3' is not a color"),
    ([{"op": "recolor", "target": "o7", "args": {"color": "red"}}], "op 0 (recolor): local.o7: no such object"),
    ([{"op": "recolor", "target": "o1", "args": {"color": "red"}},
      {"op": "remove", "target": "o1"}], "op 1 (remove): local.o1: already changed by op 0"),
    ([{"op": "add", "args": {"category": "rock", "color": "green", "size": "small", "x": 20, "y": 20}},
      {"op": "add", "args": {"category": "tree", "color": "green", "size": "small", "x": 40, "y": 20}}],
     "op 1 (add): local: the scene would hold 4 objects, cap is 3"),
    ([{"op": "pan", "args": {"side": "right"}}], "op 0 (pan): global.camera.x: the camera would leave the world"),
    ([{"op": "set_weather", "args": {"weather": "hail"}}], "op 0 (set_weather): args.weather: 'hail' is not a weather"),
    ([{"op": "move_to", "target": "o1", "args": {"x": 90, "y": 20}}], "op 0 (move_to): args.x: 90 is outside"),
    ([{"op": "recolor", "target": "o1", "args": {"color": "blue"}}], "op 0 (recolor): local.o1.color: is already blue"),
])
def test_bad_programs_raise_one_line_errors_with_op_index_and_slot(ops, message):
    with pytest.raises(ProgramError) as err:
        Program.parse({"ops": ops}).apply(_scene())
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_preserve_is_the_complement_of_the_touched_slots():
    program = Program.parse({"ops": [{"op": "recolor", "target": "o1", "args": {"color": "red"}},
                                     {"op": "set_weather", "args": {"weather": "snow"}}]})
    preserved = program.preserve(_scene())
    assert "local.o1.color" not in preserved and "global.weather" not in preserved
    assert "local.o1.category" in preserved and "local.o2.color" in preserved and "global.environment" in preserved
    assert len(preserved) == len(flatten(_scene())) - 2


def test_a_scene_with_a_colour_outside_the_vocabulary_lists_the_allowed_values():
    scene = _scene()
    scene["local"][0]["color"] = "teal"
    with pytest.raises(ProgramError, match="local.o1.color: 'teal' is not one of red, green"):
        validate_scene(scene)


def test_an_op_on_an_object_removed_earlier_in_the_program_is_refused():
    program = Program.parse([{"op": "remove", "target": "o2"}, {"op": "stack", "target": "o1", "args": {"other": "o2"}}])
    with pytest.raises(ProgramError, match=r"op 1 \(stack\): args.other: local.o2 is removed by op 0"):
        program.apply(_scene())


def test_remove_then_add_is_a_vanished_object_and_a_new_one_with_a_fresh_id():
    scene = _scene()
    program = Program.parse([{"op": "remove", "target": "o1"},
                             {"op": "add", "args": {"category": "car", "color": "orange", "size": "large", "x": 29, "y": 40}}])
    after = program.apply(scene)
    assert [o["id"] for o in after["local"]] == ["o2", "o3"]
    assert program.touches(scene) == {"local.o1", "local.o3"}
    assert {s.split(".")[1] for s in changed_slots(scene, after)} == {"o1", "o3"}


def test_two_adds_in_one_program_get_two_ids():
    scene = _scene()
    scene["local"].pop()
    program = Program.parse([{"op": "add", "args": {"category": "rock", "color": "green", "size": "small", "x": 20, "y": 20}},
                             {"op": "add", "args": {"category": "tree", "color": "green", "size": "small", "x": 44, "y": 20}}])
    assert program.touches(scene) == {"local.o2", "local.o3"}
    assert [o["id"] for o in program.apply(scene)["local"]] == ["o1", "o2", "o3"]


@pytest.mark.parametrize("ops, message", [
    ([{"op": "push", "target": "o1", "args": {"other": "o2"}}, {"op": "push", "target": "o2", "args": {"other": "o1"}}],
     "op 1 (push): local.o2.pos: is already against local.o1"),
    ([{"op": "stack", "target": "o1", "args": {"other": "o2"}}, {"op": "push", "target": "o2", "args": {"other": "o1"}}],
     "op 1 (push): local.o2.pos: is already against local.o1"),
])
def test_a_push_that_cannot_move_its_object_is_refused_not_dropped(ops, message):
    with pytest.raises(ProgramError) as err:
        Program.parse(ops).apply(_scene())
    assert str(err.value).startswith(message)
