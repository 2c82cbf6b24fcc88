"""GPT-2 naming through the module-template table, and the CLI verbs end to end on the tiny model."""

import json

import pytest
import torch

from proceedings.nas.editing import Editor
from proceedings.nas.hparams import EditHparams
from proceedings.nas.model_layout import LAYOUTS, edit_weight, layout_for
from proceedings.nas.value_solve import solve_values


def _tiny_gpt2(tok):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tok), n_positions=256, n_embd=64, n_layer=4, n_head=4,
                        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    model = GPT2LMHeadModel(config).eval()
    with torch.no_grad():
        model.get_input_embeddings().weight.mul_(4.0)
    return model


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_gpt2_edit_goes_through_the_transposed_conv1d(tiny_editing, invented, tmp_path):
    _, tok = tiny_editing
    model = _tiny_gpt2(tok)
    assert layout_for(model) == LAYOUTS["gpt2"] and edit_weight(model, LAYOUTS["gpt2"], 1).shape == (64, 256)
    hp = EditHparams.for_model(model, method="rome", nas=True, nas_n_ref=8, stats_tokens=1_000, v_num_grad_steps=8,
                               clamp_norm_factor=4.0, v_lr=0.5, v_weight_decay=1e-3)
    editor = Editor(model, tok, hp, cache_dir=tmp_path).prepare(invented[1])
    request = invented[0][0]
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    nll_before = solve_values(model, tok, editor.layout, hp.with_(v_num_grad_steps=0), [request], editor.templates).nll
    assert editor.edit([request]).status == "ok"
    changed = [n for n, p in model.named_parameters() if not torch.equal(p, before[n])]
    assert changed == [f"transformer.h.{hp.layers[0]}.mlp.c_proj.weight"]
    nll_after = solve_values(model, tok, editor.layout, hp.with_(v_num_grad_steps=0), [request], editor.templates).nll
    assert float(nll_after) < float(nll_before)  # the new target became more likely


def _cli(*args):
    """Run `proceedings nas ...` in this process (the subprocess path is covered in test_bad_input)."""
    from typer.testing import CliRunner

    from proceedings.nas.cli import app

    return CliRunner().invoke(app, list(args))


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_cli_stream_resume_plot_and_eval(tmp_path):
    run = tmp_path / "run"
    common = ["--model", "tiny", "--n", "4", "--lambda", "150", "--layers", "1,2", "--no-nas"]
    first = _cli("stream", str(run), *common, "--max-minutes", "0")  # stops after the first batch
    assert first.exit_code == 0, first.output
    assert "continue with --resume" in first.output
    assert len((run / "edits.jsonl").read_text().splitlines()) == 1
    second = _cli("stream", str(run), *common, "--resume")
    assert second.exit_code == 0, second.output
    assert len((run / "edits.jsonl").read_text().splitlines()) == 4
    assert json.loads((run / "summary.json").read_text())["edits"] == 4
    assert _cli("plot", str(run), "--out", str(tmp_path / "p.png")).exit_code == 0
    assert (tmp_path / "p.png").stat().st_size > 10_000
    shown = _cli("eval", str(run))
    assert shown.exit_code == 0 and "specificity" in shown.output


def test_cli_lists_the_verbs():
    shown = _cli("--help")
    for verb in ("prepare-stats", "reference-norm", "edit", "stream", "eval", "plot", "make-dataset", "bench", "loop-gain"):
        assert verb in shown.output


def test_experiment_preset_layers_reach_the_cli_hparams_and_flags_win(tiny_editing):
    from proceedings.nas.cli import _hparams, _preset

    model, _ = tiny_editing
    preset = {**_preset("small").edit_fields(), "layers": (2,)}  # the small preset names one layer
    assert _hparams(model, "memit", True, None, 1500.0, None, preset=preset).layers == (2,)
    assert _hparams(model, "memit", True, "1,3", 1500.0, None, preset=preset).layers == (1, 3)
