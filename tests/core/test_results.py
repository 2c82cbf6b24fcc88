import json
import os

import pytest

from proceedings.core import results
from proceedings.core.errors import ProceedingsError
from proceedings.core.results import Result


def make_result(**overrides):
    fields = dict(
        system="pro", scale="tiny", claim="PRO beats KGW distillation",
        metrics={"auc": 0.97, "ppl": 11.2}, baseline={"name": "KGW distillation", "auc": 0.91},
        checks={"PRO AUC >= baseline AUC": 0.97 >= 0.91, "PPL within 5%": True},
        paper={"auc": 0.99}, seed=0,
    )
    fields.update(overrides)
    return Result(**fields)


def test_reproduced_is_the_conjunction_of_the_measured_checks():
    assert make_result().reproduced
    failing = make_result(checks={"PRO AUC >= baseline AUC": 0.80 >= 0.91, "PPL within 5%": True})
    assert not failing.reproduced
    assert failing.rule == "PRO AUC >= baseline AUC and PPL within 5%"


def test_a_result_without_checks_is_refused():
    with pytest.raises(ProceedingsError, match="no checks"):
        make_result(checks={})


def test_round_trip_through_json_keeps_every_field(tmp_path):
    original = make_result(metrics={"auc": 0.97, "bad": float("nan")})
    path = results.save(original, root=tmp_path)
    assert path == tmp_path / "pro" / "tiny.json"
    record = json.loads(path.read_text())
    assert record["reproduced"] is True and record["rule"] == original.rule
    assert record["metrics"]["bad"] == "nan"
    loaded = results.load("pro", "tiny", root=tmp_path)
    assert loaded.checks == original.checks and loaded.paper == original.paper
    assert loaded.created == original.created


def test_hand_edited_verdict_is_rejected(tmp_path):
    path = results.save(make_result(checks={"x > y": False}), root=tmp_path)
    record = json.loads(path.read_text())
    record["reproduced"] = True
    path.write_text(json.dumps(record))
    with pytest.raises(ProceedingsError, match="edited by hand"):
        results.load("pro", "tiny", root=tmp_path)


def test_other_schema_versions_are_refused(tmp_path):
    path = results.save(make_result(), root=tmp_path)
    record = json.loads(path.read_text())
    record["schema_version"] = 0
    path.write_text(json.dumps(record))
    with pytest.raises(ProceedingsError, match="schema version 0"):
        results.load("pro", "tiny", root=tmp_path)


def test_interrupted_write_leaves_the_previous_record_whole(tmp_path, monkeypatch):
    results.save(make_result(metrics={"auc": 0.5}), root=tmp_path)

    def crash(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        results.save(make_result(metrics={"auc": 0.9}), root=tmp_path)
    monkeypatch.undo()
    assert results.load("pro", "tiny", root=tmp_path).metrics["auc"] == 0.5
    assert [p.name for p in (tmp_path / "pro").iterdir()] == ["tiny.json"]


def test_latest_prefers_the_largest_scale(tmp_path):
    assert results.latest("pro", root=tmp_path) is None
    results.save(make_result(scale="tiny"), root=tmp_path)
    results.save(make_result(scale="small"), root=tmp_path)
    assert results.latest("pro", root=tmp_path).scale == "small"


def test_unknown_scale_is_refused():
    with pytest.raises(ProceedingsError, match="unknown scale 'huge'"):
        make_result(scale="huge")
