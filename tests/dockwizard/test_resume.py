"""A small run is cut into lane-A pieces: training resumes from its checkpoint to the same weights, and the
evaluation keeps each judged chunk of conditions, so the next piece judges only the chunks it had not."""

import dataclasses

import pytest
import torch

from proceedings.dockwizard import evaluation
from proceedings.dockwizard.data import FIXTURE, load_samples
from proceedings.dockwizard.evaluation import EVAL_CHUNK, evaluate
from proceedings.dockwizard.judge import Pack
from proceedings.dockwizard.model import DockWizard, ModelConfig
from proceedings.dockwizard.training import TrainConfig, train


class _Killed(Exception):
    pass


def test_training_cut_after_a_checkpoint_resumes_to_the_weights_of_an_uncut_run(tmp_path, monkeypatch):
    samples = load_samples()
    model_config, train_config = ModelConfig(d=16, layers=1, heads=2), TrainConfig(steps=6, batch=4, checkpoint_every=3)
    whole = train(samples, model_config, train_config)
    loss, calls = DockWizard.loss, []

    def loss_killed_at_step_5(self, batch):
        calls.append(1)
        if len(calls) == 5:
            raise _Killed
        return loss(self, batch)
    monkeypatch.setattr(DockWizard, "loss", loss_killed_at_step_5)
    with pytest.raises(_Killed):
        train(samples, model_config, train_config, checkpoint=tmp_path / "arm.pt")
    monkeypatch.setattr(DockWizard, "loss", loss)
    resumed = train(samples, model_config, train_config, checkpoint=tmp_path / "arm.pt")
    assert resumed.losses == whole.losses and resumed.cpu_s > 0
    for name, value in whole.model.state_dict().items():
        assert torch.equal(value, resumed.model.state_dict()[name]), name


class _CountingJudge:
    """Packs nothing real: every design 'packs' to no residues; fails on pack call `fail_at`."""

    def __init__(self, fail_at=None):
        self.calls, self.fail_at = [], fail_at

    def pack(self, jobs, root, work=None):
        self.calls.append(sorted({sample.id for sample, _ in jobs}))
        if len(self.calls) == self.fail_at:
            raise _Killed
        return [Pack([], -1.0, seq) for _, seq in jobs]


def test_evaluation_cut_after_a_chunk_judges_only_the_chunks_it_had_not(tmp_path, monkeypatch):
    def fake_score(row, condition, root, packed, redock=False):  # Vina and the profiler stand-in: a number per sequence
        row.vina, row.satisfied, row.clashes = -float(len(set(row.sequence))), 0.5, 0
    monkeypatch.setattr(evaluation, "score_complex", fake_score)
    conditions = [dataclasses.replace(s, id=f"{s.id}-{k}") for k in range(2) for s in load_samples()][: EVAL_CHUNK + 2]
    designs = {"arm": {c.id: [c.target, c.native] for c in conditions}}
    uncut = evaluate(designs, conditions, FIXTURE, _CountingJudge())
    with pytest.raises(_Killed):
        evaluate(designs, conditions, FIXTURE, _CountingJudge(fail_at=2), checkpoint=tmp_path)
    judge, spent = _CountingJudge(), {}
    resumed = evaluate(designs, conditions, FIXTURE, judge, checkpoint=tmp_path, spent=spent)
    assert judge.calls == [sorted(c.id for c in conditions[EVAL_CHUNK:])]
    assert sorted(map(dataclasses.asdict, resumed), key=str) == sorted(map(dataclasses.asdict, uncut), key=str)
    assert len(resumed) == 2 * len(conditions) and spent["wall_s"] > 0


def test_judged_rows_kept_by_other_code_are_judged_again(tmp_path, monkeypatch):
    def fake_score(row, condition, root, packed, redock=False):
        row.vina, row.satisfied, row.clashes = -1.0, 0.5, 0
    monkeypatch.setattr(evaluation, "score_complex", fake_score)
    conditions = load_samples()[:EVAL_CHUNK]
    designs = {"arm": {c.id: [c.target] for c in conditions}}
    evaluate(designs, conditions, FIXTURE, _CountingJudge(), checkpoint=tmp_path)
    same_code, other_code = _CountingJudge(), _CountingJudge()
    evaluate(designs, conditions, FIXTURE, same_code, checkpoint=tmp_path)
    monkeypatch.setattr(evaluation, "source_digest", lambda: "edited-judging-code")
    evaluate(designs, conditions, FIXTURE, other_code, checkpoint=tmp_path)
    assert same_code.calls == [] and other_code.calls == [sorted(c.id for c in conditions)]


def test_the_source_digest_changes_with_any_module_of_the_package(tmp_path):
    from proceedings.dockwizard.provenance import source_digest

    (tmp_path / "judge.py").write_text("RADIUS = 5.0\n")
    before = source_digest(tmp_path)
    (tmp_path / "judge.py").write_text("RADIUS = 4.0\n")
    assert source_digest(tmp_path) != before


def test_only_the_designs_asked_for_are_redocked_and_their_success_is_summarised(monkeypatch):
    from proceedings.dockwizard.docking import VinaScores
    from proceedings.dockwizard.evaluation import summarise

    asked = []

    def fake_vina(residues, mol, redock=False, exhaustiveness=8):
        asked.append((redock, exhaustiveness))
        return VinaScores(-6.0, -6.5, 0.3, -7.0 if redock else None, 1.5 if redock else None, mol.GetConformer().GetPositions())
    monkeypatch.setattr(evaluation, "vina_scores", fake_vina)
    monkeypatch.setattr(evaluation, "profile", lambda complex_, mol, pocket: [])  # the profiler: tested elsewhere
    conditions = load_samples()[:2]
    designs = {"a": {c.id: [c.target] for c in conditions}, "b": {c.id: [c.target] for c in conditions}}
    rows = evaluate(designs, conditions, FIXTURE, _CountingJudge(), redock=frozenset({(conditions[0].id, "a")}))
    redocked = [(r.condition, r.arm) for r in rows if r.redock is not None]
    assert redocked == [(conditions[0].id, "a")] and sorted(asked) == [(False, 8)] * 3 + [(True, 8)]
    a = summarise([r for r in rows if r.arm == "a"])
    assert (a["redocked"], a["redock"], a["redock_success"]) == (1, -7.0, 1.0)
    assert summarise([r for r in rows if r.arm == "b"])["redock_success"] is None


def test_a_run_with_one_more_arm_judges_only_that_arms_designs(tmp_path, monkeypatch):
    def fake_score(row, condition, root, packed, redock=False):
        row.vina, row.satisfied, row.clashes = -float(len(set(row.sequence))), 0.5, 0
    monkeypatch.setattr(evaluation, "score_complex", fake_score)
    conditions = load_samples()[:EVAL_CHUNK]
    small = {"a": {c.id: [c.target] for c in conditions}}
    first = evaluate(small, conditions, FIXTURE, _CountingJudge(), checkpoint=tmp_path)
    packed = []

    class Judge(_CountingJudge):
        def pack(self, jobs, root, work=None):
            packed.extend(seq for _, seq in jobs)
            return super().pack(jobs, root, work)
    longer = evaluate({**small, "b": {c.id: [c.native] for c in conditions}}, conditions, FIXTURE, Judge(),
                      checkpoint=tmp_path)
    assert packed == [c.native for c in conditions]
    assert [r for r in longer if r.arm == "a"] == first


def test_the_long_run_shares_the_small_runs_folder_and_adds_the_ablation_arms(tmp_path, monkeypatch):
    from proceedings.dockwizard.experiment import ARMS, CONFIGS, run_folder

    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    small, long = CONFIGS["small"], CONFIGS["long"]
    assert set(long.arms) == set(ARMS) > set(small.arms)
    assert run_folder(small, FIXTURE) == run_folder(long, FIXTURE) != run_folder(CONFIGS["tiny"], FIXTURE)
