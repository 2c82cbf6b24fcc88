"""The experiment's pipeline on a micro preset: traces -> predictor -> three arms in two worker
processes -> numbers the verdict reads; and the tiny preset's shape (issue 23)."""

from proceedings.neurosyntheos import experiment
from proceedings.neurosyntheos.experiment import OUT_OF_FAMILY, CONFIGS, Config, build, held_out_run, measure, verdict


def test_a_micro_run_in_two_workers_gives_every_number_the_verdict_reads(tmp_path):
    cfg = Config(train=[("visits", {"targets": (1, 3), "low": 0, "high": 4})],
                 test=[("visits", {"targets": (5, 8), "low": 4, "high": 9}),
                       ("thermostat", {"zones": 2, "base": 0, "gap": 3, "overlap": 1})],
                 budget_s=10.0, train_budget_s=10.0, gnn_steps=5, lm_steps=10, workers=2)
    predictors, info = experiment.prepare(cfg, 0, tmp_path / "stage")
    assert info["train_solved"] == 1 and predictors["all"].library[0].clauses and predictors["all"].lm is not None
    # the split by family: the visits predictor saw no training spec (all were visits), the thermostat one all of them
    assert set(predictors) == {"all", "visits", "thermostat"} and info["without_family"]["visits"]["train_specs"] == 0
    assert not predictors["visits"].library and predictors["visits"].scorer is None and predictors["visits"].lm is None
    assert predictors["thermostat"].library and experiment.prepare(cfg, 0, tmp_path / "stage")[1] == info  # cached
    tasks = [(entry, arm) for entry in cfg.test for arm in cfg.arms]
    journal = tmp_path / "runs.jsonl"
    done = experiment._run_all(tasks, cfg, predictors, journal)
    assert len(journal.read_text().splitlines()) == 8
    assert experiment._run_all(tasks, cfg, {}, journal) == done  # a rerun resumes: nothing runs again
    runs = {arm: [r for (_, a), r in zip(tasks, done) if a == arm] for arm in cfg.arms}
    assert [r["verdict"] for r in runs["neuro"]] == ["REALIZABLE", "UNREALIZABLE"]
    assert runs["neuro"][0]["injected"] >= 1 and runs["neuro"][0]["calls"] < runs["cegres"][0]["calls"]
    assert runs[OUT_OF_FAMILY][0]["injected"] == 0  # a predictor that never saw the family proposes nothing here
    metrics, baseline = measure(runs)
    assert set(metrics["by_source"]) == {"template", "lm", "gnn"} and metrics["by_source"]["template"]["injected"] >= 1
    assert metrics["unsound"] == baseline["unsound"] == 0 and metrics["invalid_tautologies"] == 0
    assert metrics["first_batch_specs"] == 2 and metrics["first_batch_implies"] == 1.0
    family = metrics["out_of_family"]
    assert family["solved"] == 2 and family["per_family"]["visits"] == {"specs": 1, "solved": 1, "cegres_solved": 1}
    assert set(verdict(metrics, baseline)) and held_out_run  # the verdict runs on measured numbers
    assert experiment.plot_arms(runs, tmp_path / "arms.png").stat().st_size > 1000


def test_the_tiny_preset_is_five_specs_of_two_families_with_at_most_four_environment_literals():
    cfg = CONFIGS["tiny"]
    specs = build(cfg.test)
    assert len(specs) == 5 and len({s.family.split("-")[0] for s in specs}) == 2
    assert all(len(s.inputs) <= 4 for s in specs)
    assert len(build(CONFIGS["small"].test)) >= 24
    assert len(build(CONFIGS["paper"].test)) == 72 and CONFIGS["paper"].budget_s == 300
