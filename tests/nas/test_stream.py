"""Long streams: exact resume, per-batch telemetry, NaN aborts, AlphaEdit's running cache."""

import copy
import json

import pytest
import torch

from proceedings.nas.editing import Editor
from proceedings.nas.model_layout import edit_weight
from proceedings.nas.stream import StreamConfig, run_stream

NORM_FIELDS = ("weight_norm", "update_norm", "v0_norm", "delta_norm", "v_star_raw_norm", "v_star_norm", "key_norm")


def _edit_weights(model, layers):
    from proceedings.nas.model_layout import layout_for

    layout = layout_for(model)
    return {layer: edit_weight(model, layout, layer).detach().clone() for layer in layers}


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_tiny_stream_resume_is_bit_identical(tiny_editing, invented, tiny_hparams, nas_cache, tmp_path):
    model, tok = tiny_editing
    requests = invented[0][:6]
    hp = tiny_hparams(model, nas=True)
    cfg = StreamConfig(batch_size=1, ppl_tokens=128, fluency_prompts=2)

    whole = copy.deepcopy(model)
    run_stream(whole, tok, requests, hp, tmp_path / "whole", cfg, reference_requests=invented[1],
               cache_dir=nas_cache, progress=False)

    first = copy.deepcopy(model)
    partial = run_stream(first, tok, requests, hp, tmp_path / "cut", StreamConfig(**{**cfg.__dict__, "stop_after_batches": 3}),
                         reference_requests=invented[1], cache_dir=nas_cache, progress=False)
    assert not partial["complete"] and partial["batches_done"] == 3
    with (tmp_path / "cut" / "edits.jsonl").open("a") as log:  # a line written after the last checkpoint
        log.write('{"stale": true}\n')
    resumed = copy.deepcopy(model)  # a fresh process would reload the original model
    run_stream(resumed, tok, requests, hp, tmp_path / "cut", cfg, resume=True, reference_requests=invented[1],
               cache_dir=nas_cache, progress=False)

    for layer, weight in _edit_weights(whole, hp.layers).items():
        assert torch.equal(weight, _edit_weights(resumed, hp.layers)[layer])
    assert not torch.equal(_edit_weights(whole, hp.layers)[hp.layers[0]], _edit_weights(model, hp.layers)[hp.layers[0]])
    lines = [json.loads(line) for line in (tmp_path / "cut" / "edits.jsonl").read_text().splitlines()]
    assert len(lines) == 6 and all(all(field in line for field in NORM_FIELDS) for line in lines)
    assert lines == [json.loads(line) | {"seconds": lines[i]["seconds"]}
                     for i, line in enumerate((tmp_path / "whole" / "edits.jsonl").read_text().splitlines())]


def test_non_finite_solve_aborts_the_batch_and_keeps_the_weights(tiny_copy, invented, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    editor = Editor(model, tok, tiny_hparams(model, nas=False), cache_dir=nas_cache).prepare(invented[1])
    before = _edit_weights(model, editor.hp.layers)
    editor.C[editor.hp.layers[-1]] = editor.C[editor.hp.layers[-1]] * float("nan")  # an ill-posed last solve
    record = editor.edit(invented[0][:2])
    assert record.status == "failed_numerics"
    for layer, weight in _edit_weights(model, editor.hp.layers).items():
        assert torch.equal(weight, before[layer])  # the first layer's applied update was rolled back


def test_alphaedit_accumulates_preserved_keys_per_stream(tiny_copy, invented, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    editor = Editor(model, tok, tiny_hparams(model, method="alphaedit", nas=False), cache_dir=nas_cache)
    editor.prepare(invented[1])
    assert all(float(c.abs().sum()) == 0 for c in editor.cache_c.values())  # a new stream starts empty
    editor.edit(invented[0][:2])
    first = {layer: c.clone() for layer, c in editor.cache_c.items()}
    editor.edit(invented[0][2:4])
    for layer, cache in editor.cache_c.items():
        assert float(first[layer].trace()) > 0
        assert float(cache.trace()) > float(first[layer].trace())
        assert torch.allclose(cache, cache.T)


def test_a_stream_with_stop_at_collapse_ends_at_the_first_evaluation_past_the_horizon(
        tiny_editing, invented, tiny_hparams, nas_cache, tmp_path, monkeypatch):
    import proceedings.nas.stream as stream

    model, tok = tiny_editing
    collapse_at = 2  # edits; a stand-in for S falling below half its first value
    monkeypatch.setattr(stream, "editing_horizon", lambda evals: {"edits": evals[-1]["edits"],
                                                                  "reached": evals[-1]["edits"] >= collapse_at})
    cfg = StreamConfig(batch_size=1, eval_every=1, ppl_tokens=64, fluency_prompts=1, stop_at_collapse=True)
    summary = run_stream(copy.deepcopy(model), tok, invented[0][:5], tiny_hparams(model, nas=False), tmp_path / "run",
                         cfg, cache_dir=nas_cache, progress=False)
    assert summary["complete"] and summary["edits"] == collapse_at and summary["horizon"]["reached"]
    assert len((tmp_path / "run" / "edits.jsonl").read_text().splitlines()) == collapse_at
