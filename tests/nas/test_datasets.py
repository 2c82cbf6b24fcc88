"""CounterFact / ZsRE loaders on small files we write, and the metrics they feed."""

import json
import math

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.nas.datasets import load_counterfact, load_requests, load_zsre, save_counterfact
from proceedings.nas.metrics import RATE_KEYS, original_answers, perplexity, request_metrics, summarize

COUNTERFACT = [{
    "case_id": 0, "pararel_idx": 2796,
    "requested_rewrite": {"prompt": "The mother tongue of {} is", "relation_id": "P103",
                          "target_new": {"str": "English", "id": "Q1860"}, "target_true": {"str": "French", "id": "Q150"},
                          "subject": "Danielle Darrieux"},
    "paraphrase_prompts": ["Shayna does this and Yossel goes still and dies. Danielle Darrieux, a native",
                           "An album was recorded for Capitol Nashville but never released. Danielle Darrieux spoke the language"],
    "neighborhood_prompts": ["The mother tongue of Léon Blum is", "The native language of Montesquieu is"],
    "attribute_prompts": ["J.\u00a0R.\u00a0R. Tolkien is a native speaker of"], "generation_prompts": ["Danielle Darrieux's mother tongue is"],
}]
ZSRE = [{
    "subject": "Watts Humphrey", "src": "What university did Watts Humphrey attend?",
    "pred": "Trinity College", "rephrase": "What university did Watts Humphrey take part in?",
    "alt": "University of Michigan", "answers": ["Illinois Institute of Technology"],
    "loc": "nq question: who played desmond doss father in hacksaw ridge", "loc_ans": "Hugo Weaving",
    "cond": "Trinity College >> University of Michigan || What university did Watts Humphrey attend?",
}]


def _write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def test_counterfact_loader_reads_the_real_schema(tmp_path):
    [request] = load_requests(_write(tmp_path, "cf.json", COUNTERFACT))
    assert (request.prompt, request.subject) == ("The mother tongue of {} is", "Danielle Darrieux")
    assert (request.target_new, request.target_true) == (" English", " French")
    assert len(request.paraphrases) == 2 and request.neighborhood_answer == " French"
    again = load_counterfact(save_counterfact([request], tmp_path / "out.json"))
    assert again[0].text == request.text and again[0].target_new == request.target_new


def test_zsre_loader_reads_the_real_schema(tmp_path):
    [request] = load_requests(_write(tmp_path, "zsre.json", ZSRE))
    assert request.prompt == "What university did {} attend?"
    assert (request.target_new, request.target_true) == (" University of Michigan", " Illinois Institute of Technology")
    assert request.neighborhood == (ZSRE[0]["loc"],) and request.neighborhood_answer == " Hugo Weaving"


def test_malformed_record_is_named(tmp_path):
    broken = json.loads(json.dumps(COUNTERFACT))
    del broken[0]["requested_rewrite"]["subject"]
    with pytest.raises(ProceedingsError, match=r"cf.json record 0 \(case_id 0\): missing field 'subject'"):
        load_counterfact(_write(tmp_path, "cf.json", broken))
    with pytest.raises(ProceedingsError, match="missing field 'alt'"):
        load_zsre(_write(tmp_path, "z.json", [{k: v for k, v in ZSRE[0].items() if k != "alt"}]))


def test_metrics_on_both_fixtures_are_rates_and_ppl_above_one(tmp_path, tiny_editing):
    model, tok = tiny_editing
    requests = load_requests(_write(tmp_path, "cf.json", COUNTERFACT)) + load_requests(_write(tmp_path, "z.json", ZSRE))
    answers = original_answers(model, tok, requests)
    per_request = request_metrics(model, tok, requests, answers)
    for metrics in per_request:
        assert set(RATE_KEYS) <= set(metrics)
        assert all(0.0 <= metrics[k] <= 1.0 for k in RATE_KEYS)
    summary = summarize(per_request)
    assert summary["neighborhood_acc"] == 1.0  # the unedited model reproduces its own greedy answers
    assert perplexity(model, tok, "The capital of France is Paris. " * 20) > 1.0
    assert not math.isnan(summary["score"])
