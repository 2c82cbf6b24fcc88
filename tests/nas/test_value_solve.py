"""Converged value solves: each request stops on its own NLL target, the cap and the clamp are reported.

The random tiny model passes little from the subject to later positions, so these requests end on the
subject ('{}') and their targets are one token: then the tiny model gets p(target) above 0.9.
"""

import pytest
import torch

from proceedings.nas.editing import Editor
from proceedings.nas.requests import EditRequest
from proceedings.nas.value_solve import solve_values

REACHABLE_NLL = 0.1  # p(target) > 0.9; one of these requests levels off at 0.09, above the stream's 0.05


@pytest.fixture(scope="module")
def bare():
    return [EditRequest("{}", subject, target, case_id=subject)
            for subject, target in (("Zorbland", " Kel"), ("Mavaria", " Mir"), ("Pelloria", " Dun"))]


def test_converged_solve_reaches_the_nll_target_and_reports_no_cap_hit(tiny_copy, invented, bare, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    hp = tiny_hparams(model, nas=False, v_num_grad_steps=60, early_stop_nll=REACHABLE_NLL)
    editor = Editor(model, tok, hp, cache_dir=nas_cache).prepare(invented[1])
    solution = solve_values(model, tok, editor.layout, hp, bare, editor.templates)
    assert not solution.capped.any()
    assert (solution.nll < REACHABLE_NLL).all()
    assert (solution.steps <= 60).all() and (solution.steps > 0).all()
    record = editor.edit(bare)
    assert record.cap_hit == 0.0 and 0 < record.solve_steps <= 60


def test_each_request_stops_on_its_own_and_keeps_its_delta(tiny_copy, invented, bare, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    hp = tiny_hparams(model, nas=False, v_num_grad_steps=60, early_stop_nll=REACHABLE_NLL)
    editor = Editor(model, tok, hp, cache_dir=nas_cache).prepare(invented[1])
    together = solve_values(model, tok, editor.layout, hp, bare, editor.templates)
    assert len(set(together.steps.tolist())) > 1  # the requests converged after different numbers of steps
    for i, request in list(enumerate(bare))[:2]:  # a request solved alone ends where it ended in the batch
        alone = solve_values(model, tok, editor.layout, hp, [request], editor.templates)
        assert int(alone.steps[0]) == int(together.steps[i])
        assert torch.allclose(alone.delta[0], together.delta[i], rtol=1e-3, atol=1e-4)


def test_a_step_cap_too_small_is_reported_as_cap_hit_and_the_clamp_as_clamp_hit(tiny_copy, invented, bare, tiny_hparams,
                                                                              nas_cache):
    model, tok = tiny_copy
    hp = tiny_hparams(model, nas=False, v_num_grad_steps=2, early_stop_nll=1e-6, clamp_norm_factor=1e-3)
    editor = Editor(model, tok, hp, cache_dir=nas_cache).prepare(invented[1])
    solution = solve_values(model, tok, editor.layout, hp, bare[:2], editor.templates)
    assert solution.capped.all() and solution.clamped.all() and (solution.steps == 2).all()
    record = editor.edit(bare[:2])
    assert record.cap_hit == 1.0 and record.clamp_hit == 1.0
