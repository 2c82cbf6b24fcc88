"""The user's verbs: the taxonomy listing, program validation, and an interactive rollout from text and
programs that streams frames, logs each segment's operation and resumes after a stop."""

import json

import pytest
import torch
from typer.testing import CliRunner

from proceedings.oopsworld.cli import app
from proceedings.oopsworld.generator import ChunkGenerator, GeneratorConfig
from proceedings.oopsworld.rollout import parse_operation, save_model
from proceedings.oopsworld.taxonomy import ProgramError

runner = CliRunner()
SCENE = {"global": {"environment": "street", "time_of_day": "day", "weather": "clear",
                    "camera": {"x": 32.0, "y": 32.0, "zoom": 1.0}},
         "local": [{"id": "o1", "category": "box", "color": "blue", "size": "medium", "texture": "plain",
                    "pos": [26, 30], "vel": [0, 0]},
                   {"id": "o2", "category": "ball", "color": "red", "size": "small", "texture": "dotted",
                    "pos": [40, 36], "vel": [0, 0]}]}


def test_taxonomy_list_prints_eight_families_and_twenty_three_operators():
    result = runner.invoke(app, ["taxonomy", "list"], terminal_width=300)
    assert result.exit_code == 0 and "8 families, 23 operators" in result.output
    assert "recolor(color: color)" in result.output


def test_validate_names_the_op_and_slot_of_a_bad_program(tmp_path):
    (tmp_path / "scene.json").write_text(json.dumps(SCENE))
    (tmp_path / "p.json").write_text(json.dumps({"ops": [{"op": "recolor", "target": "o3", "args": {"color": "red"}}]}))
    result = runner.invoke(app, ["taxonomy", "validate", str(tmp_path / "p.json"), "--scene", str(tmp_path / "scene.json")])
    assert isinstance(result.exception, ProgramError) and "op 0 (recolor): local.o3: no such object" in str(result.exception)


def test_text_operations_parse_to_programs_and_unknown_text_lists_the_nearest_operators():
    program = parse_operation("Turn the blue box red and pan the camera left", json.loads(json.dumps(SCENE)))
    assert [(op.op, op.target, op.args) for op in program.ops] == [
        ("recolor", "o1", {"color": "red"}), ("pan", None, {"side": "left"})]
    try:
        parse_operation("make the blue box sing", SCENE)
    except ProgramError as err:
        assert "nearest operators" in str(err)
    else:
        raise AssertionError("unparseable text was accepted")


def test_rollout_streams_segments_logs_each_operation_and_resumes(tmp_path):
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=(8, 16, 16), token_dim=16))
    save_model(model, tmp_path / "m.pt", "oopsworld")
    (tmp_path / "scene.json").write_text(json.dumps(SCENE))
    ops = ["turn the blue box red", json.dumps({"ops": [{"op": "set_weather", "args": {"weather": "snow"}}]})]
    (tmp_path / "ops.jsonl").write_text(ops[0] + "\n")
    args = ["rollout", "--model", str(tmp_path / "m.pt"), "--init", str(tmp_path / "scene.json"),
            "--ops", str(tmp_path / "ops.jsonl"), "--out", str(tmp_path / "r")]
    assert runner.invoke(app, args).exit_code == 0
    (tmp_path / "ops.jsonl").write_text("\n".join(ops) + "\n")
    result = runner.invoke(app, args + ["--resume"])
    assert result.exit_code == 0, result.output
    log = [json.loads(line) for line in (tmp_path / "r" / "segments.jsonl").read_text().splitlines()]
    assert [entry["segment"] for entry in log] == [0, 1] and log[1]["program"]["ops"][0]["op"] == "set_weather"
    assert len(list((tmp_path / "r" / "frames").glob("*.png"))) == 2 + 2 * 8
    assert (tmp_path / "r" / "video.gif").stat().st_size > 0 and "segment 1: make the weather snow" in result.output


def test_the_paper_scale_without_local_wan_weights_stops_at_once_with_the_expected_layout(tmp_path, monkeypatch):
    import time

    from proceedings.core.errors import ProceedingsError
    from proceedings.oopsworld.experiment import reproduce

    monkeypatch.setenv("OOPSWORLD_WAN", str(tmp_path / "no-such-wan"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    start = time.perf_counter()
    with pytest.raises(ProceedingsError, match="no local Wan weights .*model_index.json, transformer/"):
        reproduce("paper")
    assert time.perf_counter() - start < 5


@pytest.mark.slow
def test_train_then_eval_a_micro_preset_writes_every_arm_and_a_report(tmp_path, monkeypatch):
    from dataclasses import replace

    from proceedings.oopsworld import experiment

    micro = replace(experiment.CONFIGS["tiny"], train_episodes=3, train_segments=2, bench_episodes=1,
                    bench_segments=2, easy_episodes=1, channels=(8, 16, 16), steps=2, batch=2)
    monkeypatch.setitem(experiment.CONFIGS, "tiny", micro)
    result = runner.invoke(app, ["train", "--out", str(tmp_path / "arms")])
    assert result.exit_code == 0, result.output
    assert {p.name for p in (tmp_path / "arms").glob("*.model.pt")} == {"teacher.model.pt", "b2.model.pt",
                                                                      "oopsworld.model.pt"}
    result = runner.invoke(app, ["eval", "--models", str(tmp_path / "arms"), "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report["arms"]) == {"oopsworld", "b2", "b1_implicit", "b1_explicit"}
    assert report["gates"]["gt_change_acc"] >= 0.95


def test_gated_heads_on_a_text_preset_are_refused_with_what_to_use(tmp_path):
    from proceedings.core.errors import ProceedingsError

    result = runner.invoke(app, ["train", "--scale", "small", "--gated", "--out", str(tmp_path)])
    assert isinstance(result.exception, ProceedingsError) and "--scale tiny" in str(result.exception)
    assert not any(tmp_path.iterdir())


def test_a_paint_gate_without_the_paint_attention_is_refused(tmp_path):
    from proceedings.core.errors import ProceedingsError

    result = runner.invoke(app, ["train", "--scale", "tiny", "--paint-gate", "--out", str(tmp_path)])
    assert isinstance(result.exception, ProceedingsError) and "--paint-attn" in str(result.exception)
    assert not any(tmp_path.iterdir())


def test_a_layer_weight_without_object_layers_is_refused(tmp_path):
    from proceedings.core.errors import ProceedingsError

    result = runner.invoke(app, ["train", "--scale", "tiny", "--layer-weight", "0.25", "--out", str(tmp_path)])
    assert isinstance(result.exception, ProceedingsError) and "--layers" in str(result.exception)
    assert not any(tmp_path.iterdir())
