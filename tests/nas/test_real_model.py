"""On the real SmolLM2-135M: one edit flips a fact it knows and leaves its neighbour alone; the
CounterFact-lite builder finds facts it knows."""

import copy

import pytest

from proceedings.nas.editing import Editor
from proceedings.nas.experiment import CONFIGS
from proceedings.nas.facts import known_facts, requests_from_facts, table_requests
from proceedings.nas.hparams import EditHparams
from proceedings.nas.requests import EditRequest


def _greedy(model, tok, prompt, n=2):
    import torch

    ids = tok(prompt, return_tensors="pt").input_ids
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, do_sample=False,
                             pad_token_id=tok.pad_token_id)
    return tok.decode(out[0, ids.shape[1]:])


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_single_memit_nas_edit_flips_france_and_keeps_germany(smollm2, tmp_path):
    model, tok = copy.deepcopy(smollm2[0]), smollm2[1]
    assert _greedy(model, tok, "The capital of France is").startswith(" Paris")
    # the small scale's value solve on a C_0 and a rho just big enough to be cheap
    overrides = {**CONFIGS["small"].edit_overrides, "layers": (5,)}  # one of its layers: a third of the cost
    hp = EditHparams.for_model(model, method="memit", nas=True, stats_tokens=2_000, nas_n_ref=2, v_num_grad_steps=10,
                               **overrides)
    editor = Editor(model, tok, hp, cache_dir=tmp_path).prepare(table_requests(2, seed=1))
    record = editor.edit([EditRequest("The capital of {} is", "France", " Lyon", " Paris")])
    assert record.status == "ok" and record.skipped == 0
    assert record.v_star_norms[0] == pytest.approx(editor.rho, rel=1e-4)
    assert _greedy(model, tok, "The capital of France is").startswith(" Lyon")
    assert _greedy(model, tok, "The capital of Germany is").startswith(" Berlin")


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_known_fact_requests_are_deterministic_counterfactuals(smollm2):
    model, tok = smollm2
    facts = known_facts(model, tok, ["capital"], top_k=1)
    assert ("capital", "France", "Paris") in facts and ("capital", "Australia", "Canberra") not in facts
    assert len(facts) >= 40
    first = requests_from_facts(facts, 12, seed=3)
    assert first == requests_from_facts(facts, 12, seed=3) != requests_from_facts(facts, 12, seed=4)
    for request in first:
        assert request.target_new != request.target_true
        assert len(request.paraphrases) >= 2 and len(request.neighborhood) >= 2
        assert request.subject not in " ".join(request.neighborhood)
