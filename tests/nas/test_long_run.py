"""The long run's record path: it stops at its time budget with one line, keeps finished streams,
and is judged by the long verdict (horizon gate and ratio). A micro CONFIGS["long"] on the tiny model."""

import json
from dataclasses import replace

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.nas import experiment


@pytest.mark.slow
def test_the_long_record_resumes_across_budgeted_calls_and_carries_the_horizon_checks(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))
    micro = replace(experiment.CONFIGS["tiny"], n_edits=4, eval_every=2, v_num_grad_steps=3, nas_n_ref=4,
                    stats_tokens=500, ppl_tokens=64, stop_at_collapse=True)
    monkeypatch.setitem(experiment.CONFIGS, "long", micro)
    monkeypatch.setenv(experiment.MAX_MINUTES_ENV, "1e-6")  # spent before the first stream starts
    with pytest.raises(ProceedingsError, match="memit, memit\\+nas stopped at the .* budget; run `proceedings "
                                               "reproduce nas --scale long` again"):
        experiment.reproduce("long")
    monkeypatch.delenv(experiment.MAX_MINUTES_ENV)
    result = experiment.reproduce("long")
    runs = tmp_path / "results" / "nas" / "long" / "runs"
    assert (runs / "memit" / "summary.json").exists() and (runs / "memit+nas" / "summary.json").exists()
    (runs / "memit" / "kept").write_text("")  # a fresh start would clear the folder
    monkeypatch.setenv(experiment.MAX_MINUTES_ENV, "1e-6")  # finished streams need no budget
    again = experiment.reproduce("long")
    assert (runs / "memit" / "kept").exists() and again.checks == result.checks
    assert result.metrics["stream_to_collapse"] is True
    assert any("editing horizon exceeds" in rule for rule in result.checks)
    assert any("gate: the base editor reaches its editing horizon" in rule for rule in result.checks)
    assert result.checks == experiment.verdict(json.loads(json.dumps(result.metrics)), result.baseline)


def test_the_long_preset_edits_fewer_facts_than_the_relation_tables_hold():
    """1,000 edits were once asked of 280 table facts (248 known to SmolLM2 at top-10): the run could not start."""
    from proceedings.nas.facts import all_facts

    long = experiment.CONFIGS["long"]
    assert long.n_edits % long.eval_every == 0 and long.n_edits <= len(all_facts()) // 2


@pytest.mark.slow  # about 8 CPU-s: the fast suite was already at 23.5 of its 25 s
def test_arms_advance_one_evaluation_period_each_in_turn(tiny_editing, invented, tiny_hparams, tmp_path, monkeypatch):
    """A long run stopped by its budget leaves every arm at the same edit count (like with like)."""
    from proceedings.nas.stream import StreamConfig

    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))
    model, tok = tiny_editing
    calls, real_run_stream = [], experiment.run_stream

    def recorded(*args, **kwargs):
        summary = real_run_stream(*args, **kwargs, progress=False)
        calls.append((args[4].name, summary.get("batches_done", summary.get("edits"))))
        return summary

    monkeypatch.setattr(experiment, "run_stream", recorded)
    arms = {tmp_path / label: tiny_hparams(model, nas=nas, v_num_grad_steps=2, nas_rho=2.0)
            for label, nas in (("memit", False), ("memit+nas", True))}
    cfg = StreamConfig(batch_size=1, eval_every=1, ppl_tokens=16, fluency_prompts=1)
    experiment.run_streams_in_rounds(model, tok, invented[0][:2], None, arms, cfg)
    assert calls[:4] == [("memit", 1), ("memit+nas", 1), ("memit", 2), ("memit+nas", 2)]
    assert all((run_dir / "summary.json").exists() for run_dir in arms)


def test_a_kept_stream_without_its_end_state_runs_again(tiny_editing, invented, tiny_hparams, tmp_path):
    """A fresh clone has the committed run folders but not their git-ignored resume/state.pt, which the loop
    gain at the end reads: such a folder is cleared and run again (`make demo` crashed on it)."""
    import shutil
    from dataclasses import asdict

    from proceedings.core.runtime import save_checkpoint
    from proceedings.nas.datasets import counterfact_records
    from proceedings.nas.stream import StreamConfig

    model, _ = tiny_editing
    hp, cfg, requests = tiny_hparams(model), StreamConfig(batch_size=1, eval_every=1), invented[0][:2]
    run = tmp_path / "memit"

    def kept(with_state: bool) -> str:
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir()
        (run / "params.json").write_text(json.dumps({"hparams": asdict(hp), "stream": asdict(cfg)}))
        (run / "requests.json").write_text(json.dumps(counterfact_records(requests)))
        (run / "summary.json").write_text("{}")
        if with_state:
            save_checkpoint(run / "resume" / "state.pt", {"editor": {}})
        return experiment._run_state(run, hp, cfg, requests)

    assert kept(with_state=True) == "finished"
    assert kept(with_state=False) == "fresh" and not run.exists()
