"""Bad input gives a one-line error naming the request or listing valid names; never a silent edit."""

import subprocess
import sys

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.nas.editing import Editor
from proceedings.nas.hparams import EditHparams
from proceedings.nas.prompts import build_batch
from proceedings.nas.requests import EditRequest, subject_last_index


def test_subject_missing_from_prompt_names_the_request():
    with pytest.raises(ProceedingsError, match="request 'r7': subject 'France' not found"):
        EditRequest("The capital of Spain is", "France", " Lyon", case_id="r7")


def test_filled_prompt_is_turned_into_a_template():
    assert EditRequest("The capital of France is", "France", " Lyon").prompt == "The capital of {} is"


@pytest.mark.parametrize("target", ["", "   "])
def test_empty_target_is_refused(target):
    with pytest.raises(ProceedingsError, match="request 'r1': empty target_new"):
        EditRequest("The capital of {} is", "France", target, case_id="r1")


def test_subject_merged_into_other_tokens_is_refused(tiny_editing):
    _, tok = tiny_editing
    # "Franc" + "es" tokenises as one piece with the following letters: there is no subject boundary
    with pytest.raises(ProceedingsError, match="request 'q': subject 'Franc' not found as whole tokens"):
        subject_last_index(tok, "The capital of {}es is", "Franc", "q")


def test_subject_position_is_its_last_token(tiny_editing):
    _, tok = tiny_editing
    ids, last = subject_last_index(tok, "The capital of {} is", "New Zealand", "q")
    assert tok.decode(ids[: last + 1]).endswith("New Zealand")
    batch = build_batch(tok, [(0, "The capital of {} is", "New Zealand", [])])
    assert int(batch.subject_pos[0]) == last


def test_unknown_module_template_lists_valid_names(tiny_copy):
    model, tok = tiny_copy
    hp = EditHparams.for_model(model, rewrite_module_tmp="model.layers.{}.mlp.out_proj")
    with pytest.raises(ProceedingsError, match=r"no module 'model.layers.0.mlp.out_proj'.*model.layers.0.mlp.down_proj"):
        Editor(model, tok, hp)


def test_layer_out_of_range_names_the_valid_range(tiny_copy):
    model, tok = tiny_copy
    with pytest.raises(ProceedingsError, match=r"edit layer\(s\) \[9\] out of range: the model has layers 0..3"):
        Editor(model, tok, EditHparams.for_model(model, layers=(2, 9)))


def test_unknown_architecture_asks_for_a_template(tiny_copy):
    model, tok = tiny_copy
    model.config.model_type = "mystery"
    with pytest.raises(ProceedingsError, match="no module template for model type 'mystery'.*--rewrite-module-tmp"):
        Editor(model, tok, EditHparams.for_model(model))


def test_cli_reports_bad_input_in_one_line_with_exit_code_2():
    done = subprocess.run([sys.executable, "-m", "proceedings", "nas", "edit", "--model", "tiny",
                           "--prompt", "The capital of Spain is", "--subject", "France", "--target-new", " Lyon"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "subject 'France' not found in prompt" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("raw", ["soon", "0", "-5"])
def test_a_bad_long_run_budget_is_one_line_naming_the_variable(monkeypatch, raw):
    from proceedings.nas.experiment import MAX_MINUTES_ENV, _deadline

    monkeypatch.setenv(MAX_MINUTES_ENV, raw)
    with pytest.raises(ProceedingsError, match=r"\$PROCEEDINGS_NAS_MAX_MINUTES"):
        _deadline()


def test_an_unknown_arm_in_the_arm_filter_is_one_line_naming_the_arms(monkeypatch):
    from proceedings.nas.experiment import ARMS_ENV, _chosen_arms

    monkeypatch.setenv(ARMS_ENV, "memit, rome")
    with pytest.raises(ProceedingsError, match=r"\$PROCEEDINGS_NAS_ARMS: unknown arm\(s\) rome; this scale's arms are memit, memit\+nas"):
        _chosen_arms(["memit", "memit+nas"])
    monkeypatch.setenv(ARMS_ENV, "memit+nas")
    assert _chosen_arms(["memit", "memit+nas"]) == ["memit+nas"]
    monkeypatch.delenv(ARMS_ENV)
    assert _chosen_arms(["memit", "memit+nas"]) == ["memit", "memit+nas"]
