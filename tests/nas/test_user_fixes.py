"""What a user needs around a stream: resume refuses another model or corpus, a stream saves its
model, `eval --original` takes neighbourhood answers from the original model, `edit` takes a file."""

import copy
import json

import pytest
import torch
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.nas.cli import app
from proceedings.nas.datasets import save_counterfact
from proceedings.nas.stream import StreamConfig, run_stream

FAST = StreamConfig(batch_size=1, ppl_tokens=64, fluency_prompts=1, stop_after_batches=1)


def _cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_resume_with_another_model_or_corpus_is_refused_naming_both(tiny_editing, invented, tiny_hparams, nas_cache,
                                                                    tmp_path):
    model, tok = tiny_editing
    hp = tiny_hparams(model, nas=False)
    run = tmp_path / "run"
    run_stream(copy.deepcopy(model), tok, invented[0][:3], hp, run, FAST, cache_dir=nas_cache, progress=False)
    params = json.loads((run / "params.json").read_text())
    assert params["corpus"]["path"] == "built-in" and len(params["corpus"]["hash"]) == 16
    other = copy.deepcopy(model)
    with torch.no_grad():
        other.lm_head.weight[0, 0] += 1.0
    from proceedings.nas.editing import model_hash

    with pytest.raises(ProceedingsError, match=f"made with model {params['model_hash']}, this model is "
                                               f"{model_hash(other)}"):
        run_stream(other, tok, invented[0][:3], hp, run, FAST, resume=True, cache_dir=nas_cache, progress=False)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Some other text.\n\nAnd another document.\n")
    with pytest.raises(ProceedingsError, match=r"its C_0 corpus was built-in \(hash \w+\), this one is .*corpus.txt"):
        run_stream(copy.deepcopy(model), tok, invented[0][:3], hp, run, FAST, resume=True, corpus=corpus,
                   cache_dir=nas_cache, progress=False)


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_eval_with_original_differs_from_self_reference_on_an_edited_model(tiny_editing, invented, tmp_path):
    model, tok = tiny_editing
    edited = copy.deepcopy(model)
    with torch.no_grad():  # a heavy-handed "edit" (the random model's answers barely depend on its MLPs)
        edited.model.norm.weight.mul_(-1.0)
    edited.save_pretrained(tmp_path / "edited")
    tok.save_pretrained(tmp_path / "edited")
    data = save_counterfact(invented[0][:3], tmp_path / "cf.json")
    found = {}
    for name, extra in (("self", []), ("original", ["--original", "tiny"])):
        shown = _cli("eval", data, "--model", tmp_path / "edited", *extra)
        assert shown.exit_code == 0, shown.output
        found[name] = json.loads(shown.output[shown.output.index("{"):])
    assert found["self"]["neighborhood_acc"] == 1.0  # its own greedy answers, by construction
    assert found["original"]["neighborhood_acc"] < 1.0


def test_edit_takes_a_counterfact_file_and_a_given_rho(invented, tmp_path):
    data = save_counterfact(invented[0][:2], tmp_path / "cf.json")
    shown = _cli("edit", "--requests", data, "--model", "tiny", "--rho", "2.5", "--layers", "1,2", "--nas",
                 "--save", tmp_path / "out")
    assert shown.exit_code == 0, shown.output
    assert "rho 2.5" in shown.output and (tmp_path / "out" / "config.json").exists()


@pytest.mark.parametrize("args, message", [
    (["stream", "x", "--model", "tiny", "--preset", "huge"], "unknown preset 'huge'; choose one of: tiny, small, long"),
    (["stream", "x", "--model", "tiny", "--rho", "-1"], "--rho -1: the reference norm must be > 0"),
    (["edit", "--model", "tiny", "--prompt", "{} is", "--subject", "A", "--target-new", " B", "--rho", "0"],
     "--rho 0: the reference norm must be > 0"),
    (["loop-gain", "--model", "tiny", "--rho", "many"], "--rho 'many' is neither a number nor 'auto'"),
])
def test_bad_flags_are_refused_in_one_line_before_any_model_loads(args, message, monkeypatch):
    import proceedings.nas.cli as cli

    monkeypatch.setattr(cli, "_model", lambda *a, **k: pytest.fail("a model was loaded before the flags were checked"))
    shown = _cli(*args)
    assert shown.exit_code != 0
    assert message in str(shown.exception) or message in shown.output
