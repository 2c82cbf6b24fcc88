"""NAS itself: every unskipped v* ends at rho, outliers are skipped, rho is cached with its full key."""

import json

import pytest
import torch

from proceedings.nas.editing import Editor
from proceedings.nas.norm_anchor import anchor, reference_norm, trimmed_mean


def test_anchor_rescales_rows_to_rho_and_skips_outliers():
    v_star = torch.tensor([[3.0, 4.0], [0.3, 0.4], [30.0, 40.0]])  # norms 5, 0.5, 50
    v0 = torch.full((3, 2), 7.0)
    out = anchor(v_star, v0, rho=2.0, skip_factor=2.0)
    assert out.skipped.tolist() == [True, False, True]
    assert torch.allclose(out.v_star[1].norm(), torch.tensor(2.0))
    assert torch.equal(out.v_star[0], v0[0]) and torch.equal(out.v_star[2], v0[2])
    assert not anchor(v_star, v0, rho=2.0, skip_factor=None).skipped.any()


def test_trimmed_mean_drops_the_upper_tail():
    values = list(range(1, 20)) + [1000.0]
    assert trimmed_mean(values, 0.95) == pytest.approx(10.0)


def test_rho_cache_is_reused_only_for_the_same_key(tmp_path):
    calls = []

    def solve():
        calls.append(1)
        return [1.0, 2.0, 3.0]

    key = {"model": "abc", "layer": 5, "hparams": "h1"}
    assert reference_norm(solve, tmp_path / "rho.json", key, 1.0) == pytest.approx(2.0)
    reference_norm(solve, tmp_path / "rho.json", key, 1.0)
    assert len(calls) == 1
    reference_norm(solve, tmp_path / "rho.json", {**key, "hparams": "h2"}, 1.0)
    assert len(calls) == 2
    assert json.loads((tmp_path / "rho.json").read_text())["key"]["hparams"] == "h2"


@pytest.mark.parametrize("method", ["memit", "alphaedit", "rome"])
def test_nas_rescales_every_unskipped_value_to_rho(method, tiny_copy, invented, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    requests, reference = invented
    editor = Editor(model, tok, tiny_hparams(model, method=method, nas=True, nas_skip_factor=None),
                    cache_dir=nas_cache).prepare(reference)
    for request in requests[:2]:
        record = editor.edit([request])
        assert record.status == "ok"
        assert record.v_star_raw_norm != pytest.approx(editor.rho, rel=1e-3)  # NAS did change it
        for norm in record.v_star_norms:
            assert norm == pytest.approx(editor.rho, rel=1e-4)


def test_without_nas_the_raw_norms_are_logged(tiny_copy, invented, tiny_hparams, nas_cache):
    model, tok = tiny_copy
    requests, reference = invented
    editor = Editor(model, tok, tiny_hparams(model, nas=False), cache_dir=nas_cache).prepare(reference)
    record = editor.edit(requests[:2])
    assert record.rho is None
    assert record.v_star_norm == pytest.approx(record.v_star_raw_norm, rel=1e-6)
