"""The loop-gain probe: scaling the edited weights moves the base editor's v*, never NAS's."""

import pytest
import torch

from proceedings.nas.editing import Editor
from proceedings.nas.loop_gain import probe_loop_gain
from proceedings.nas.model_layout import edit_weight
from proceedings.nas.requests import EditRequest

BARE = [EditRequest("{}", "Zorbland", " Kel", case_id="z"), EditRequest("{}", "Mavaria", " Mir", case_id="m")]


def test_scaling_w_by_1_3_changes_the_base_v_star_and_not_the_nas_one(tiny_copy, invented, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    probes = {}
    for nas in (False, True):
        hp = tiny_hparams(model, nas=nas, nas_rho=20.0, nas_skip_factor=None, v_num_grad_steps=8)
        editor = Editor(model, tok, hp, cache_dir=nas_cache).prepare(invented[1])
        before = {layer: edit_weight(model, editor.layout, layer).detach().clone() for layer in hp.layers}
        probes[nas] = probe_loop_gain(editor, BARE, (1.0, 1.3))
        for layer, weight in before.items():  # the probe leaves the weights as it found them
            assert torch.equal(edit_weight(model, editor.layout, layer), weight)
    base, nas = probes[False], probes[True]
    assert base.weight_norm[1] == pytest.approx(1.3 * base.weight_norm[0], rel=1e-5)
    change = base.v_star_norm[1] / base.v_star_norm[0] - 1
    assert 1e-3 < abs(change) < 0.3  # v* = v0 + delta moves with W, by less than W itself
    assert base.gains()["v_star"] == pytest.approx(base.gains()["v_star_raw"])
    assert nas.v_star_norm == pytest.approx([20.0, 20.0], rel=1e-4)  # anchored to rho at every scale
    assert nas.gains()["v_star"] == pytest.approx(0.0, abs=1e-3)
    assert nas.v_star_raw_norm == pytest.approx(base.v_star_raw_norm, rel=1e-5)  # same solve, then anchored
