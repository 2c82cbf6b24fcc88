"""reproduce(scale): CEGRES, CEGRES-all-edges and NeuroSyntheos on held-out LTLt specs.

The paper's headline (abstract): on 83 benchmarks NeuroSyntheos solves 60 vs 19 for the previous
best within 5 minutes, with the median iteration count 5.2x lower and < 3 s neural overhead, every
prediction SMT-verified. Here (issue 23): parametric families re-authored from public descriptions,
split by constants (train small, test larger); CEGRES traces of the training split train the
predictor (template library + GNN + tautology model) inside the run; the three arms then run on the held-out specs
with the same backend, CPU budget per spec (inference and verification inside it), z3 limits and
≤ 16 injected formulas per iteration for the batching arms. The split by family (out-of-family
generalisation) is a fourth arm: NeuroSyntheos on each held-out spec with a predictor trained on the
same traces minus every training spec of that spec's family (recorded beside the verdict).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from pathlib import Path
from dataclasses import asdict, dataclass, field, replace

from proceedings.core.progress import progress_bar
from proceedings.core.results import Result, artifact_dir
from proceedings.core.runtime import check_scale, seed_everything
from proceedings.neurosyntheos.certificate import check_certificate
from proceedings.neurosyntheos.cegres import cegres, recheck
from proceedings.neurosyntheos.families import FAMILIES
from proceedings.neurosyntheos.predictor import NeuroPredictor
from proceedings.neurosyntheos.training import batch_implies, collect_traces, fit_predictor

CLAIM = ("Predicting batches of z3-verified theory tautologies lets CEGRES solve more LTLt specs within the "
         "budget, with far fewer synthesis calls and under 3 s of neural overhead per spec.")
PAPER = {"solved": 60, "benchmarks": 83, "previous_best_solved": 19, "median_iteration_reduction": 5.2,
         "neural_overhead_s": 3.0}
GATE_SOLVED = (0.25, 0.75)  # issue 23: CEGRES solves 25-75 % of the held-out specs
GATE_FIRST_BATCH = 0.5  # issue 23: first verified batch implies >= 50 % of CEGRES's final set
EXTRA_SOLVED = (3, 0.15)  # issue 23: NeuroSyntheos solves >= CEGRES + max(3, 15 % of held-out)
MIN_BOTH = 5  # issue 23: ... on >= 5 specs solved by both
CALL_RATIO = 0.5  # ... its median synthesis calls <= 0.5 x CEGRES's
MAX_OVERHEAD_S = 3.0  # median neural overhead (inference + verification) <= 3 s per spec
STAGE_FORMAT = 4  # bump when a staged run record changes: journals of older code are not resumed
SOUND = ("no unsound answer in any arm (verdict = ground truth, every certificate checks, "
         "every tautology re-verifies)")
OUT_OF_FAMILY = "neuro-out-of-family"  # NeuroSyntheos, predictor trained without the held-out spec's family
MATCHED = ("All arms: same bounded-synthesis backend and max controller/counter-strategy size, the same CPU "
           "budget per spec (CPU seconds of the run's own fresh process, z3 included; prediction and z3 verification "
           "count inside it for NeuroSyntheos), the same z3 rlimit/timeouts; all-edges and NeuroSyntheos inject <= "
           "batch formulas per iteration. The out-of-family arm is NeuroSyntheos with a predictor fitted, with the "
           "same steps, on the same training traces minus the held-out spec's family.")


@dataclass
class Config:
    train: list[tuple[str, dict]]  # (family, params): traces for the predictor
    test: list[tuple[str, dict]]  # held-out specs
    budget_s: float  # budget per spec and arm, CPU seconds of its process (README: "Budgets are CPU seconds")
    train_budget_s: float  # CEGRES budget per training spec
    batch: int = 16  # issue 23: <= 16 formulas per iteration
    max_size: int = 6  # largest controller / counter-strategy tried
    gnn_steps: int = 300
    lm_steps: int = 200  # the autoregressive tautology model's training steps (0: none)
    workers: int = 1  # processes for the held-out runs (issue 23 small: 2)
    arms: tuple[str, ...] = ("cegres", "all-edges", "neuro", OUT_OF_FAMILY)
    families: tuple[str, ...] = field(default_factory=lambda: tuple(FAMILIES))


def _thermo(zones, base, gap, overlap):
    return ("thermostat", {"zones": zones, "base": base, "gap": gap, "overlap": overlap})


def _robot(dist, reach):
    return ("robot-target", {"dist": dist, "reach": reach})


def _visits(targets, low, high):
    return ("visits", {"targets": targets, "low": low, "high": high})


def _elevator(floors, lock_low, lock_high):
    return ("elevator", {"floors": floors, "lock_low": lock_low, "lock_high": lock_high})


CONFIGS = {
    # issue 23 tiny: 5 held-out specs of two families, <= 4 env literals, 5 s budget, trained in the run.
    # The 4-target patrols have no same-template training spec: only the GNN can carry k=3 over to them.
    # Round 11 at 5 s: CEGRES solved 5/5 (gate failed; round 5 at load ~10: 3/5), so the budget is scaled like
    # small's by the measured CPU ratio: 5 x 0.362 = 1.8 s.
    "tiny": Config(train=[_visits((1, 3, 5), 0, 6), _visits((2, 4, 6), 0, 5), _thermo(3, 2, 3, 0)],
                   test=[_visits((10, 13, 17), 8, 20), _visits((5, 9, 30), 0, 25), _visits((11, 14, 17, 20), 10, 22),
                         _visits((21, 24, 27, 30), 20, 32), _thermo(3, 10, 6, 0)],
                   budget_s=1.8, train_budget_s=15.0, gnn_steps=60, arms=("cegres", "all-edges", "neuro")),
    # small: at the 15 s CEGRES solved all 24 held-out specs (measured: thermostats 1-2 calls, 4-target
    # patrols 7 calls in 9.0-11.5 CPU s, robots 8-14 calls in 5.6-14.9 s), saturating the gate; round 5 took 7 s
    # (CEGRES solved 18-21 of 28). Those CPU seconds were measured with 2 workers at load 10-19 on 2 vCPUs; one
    # worker under the lane-A lock (round 11) ran the same CEGRES runs in 0.362x the CPU (median over the 14 runs
    # solved with equal calls in both), and at 7 s CEGRES solved 27/28 (gate failed). So the budget is 7 x 0.362
    # = 2.5 s, with one worker: the same work per spec as round 5, chosen from CEGRES's CPU alone.
    # Thermostats with 4 zones (5 CEGRES calls when unrealizable) replace the 2-zone ones.
    # Elevators (CEGRES: 5-9 calls, 2.3-3.7 CPU s at 3-8 floors) are trained at 3-4 floors, tested at 6-10.
    "small": Config(train=[_thermo(z, b, g, o) for z in (2, 3, 4) for b, g, o in ((1, 3, 0), (2, 4, 1))]
                    + [_elevator(3, 2, 2), _elevator(4, 1, 3)]
                    + [_robot(d, r) for d, r in ((3, 3), (4, 2))]
                    + [_visits(t, lo, hi) for t, lo, hi in (((1, 3, 5), 0, 6), ((2, 4, 6), 0, 5), ((1, 3, 5, 7), 0, 8))],
                    test=[_thermo(z, b, g, o) for z in (3, 4) for b, g, o in ((8, 5, 0), (12, 6, 1), (20, 9, 0), (30, 11, 2))]
                    + [_robot(d, r) for d, r in ((8, 9), (10, 4), (12, 12), (15, 7))]
                    + [_visits(t, lo, hi) for t, lo, hi in (((10, 13, 17), 8, 20), ((5, 9, 30), 0, 25),
                                                            ((11, 14, 16), 10, 20), ((3, 7, 12), 0, 11),
                                                            ((20, 24, 28, 32), 18, 40), ((6, 8, 10, 12), 5, 11),
                                                            ((15, 25, 35, 45), 10, 50), ((2, 5, 8, 11), 0, 12),
                                                            ((30, 33, 36, 39), 29, 40), ((4, 9, 14, 19), 0, 15),
                                                            ((50, 52, 54, 56), 50, 60), ((7, 10, 13, 16), 6, 17))]
                    + [_elevator(6, 2, 5), _elevator(9, 2, 8), _elevator(7, 1, 4), _elevator(10, 5, 10)],
                    budget_s=2.5, train_budget_s=60.0, workers=1),
    "paper": Config(train=[_thermo(z, b, g, o) for z in (2, 3, 4) for b, g, o in ((1, 3, 0), (2, 4, 1), (3, 5, 2))]
                    + [_robot(d, r) for d in range(3, 9) for r in (d - 2, d + 1)]
                    + [_elevator(n, lo, n - hi) for n in (3, 4, 5) for lo, hi in ((2, 1), (1, 2), (3, 0))]
                    + [_visits(tuple(1 + 2 * j for j in range(n)), 0, 2 * n + lo) for n in (3, 4, 5) for lo in (0, -3)],
                    test=[_thermo(z, 10 * k, 5 + k, k % 3 - 1) for z in (2, 3, 4) for k in range(1, 9)]
                    + [_robot(10 * k, r) for k in range(1, 9) for r in (5 * k, 12 * k)]
                    + [_elevator(6 * k, lo, 6 * k - hi) for k in range(2, 6) for lo, hi in ((2, 1), (1, 3))]
                    + [_visits(tuple(10 * k + 3 * j for j in range(n)), 10 * k - 1, 10 * k + 3 * n + (k % 2) * -4)
                       for k in range(1, 9) for n in (3, 4, 5)],
                    budget_s=300.0, train_budget_s=600.0, max_size=10, workers=2),
}


def build(entries):
    return [FAMILIES[family](**params) for family, params in entries]


def reproduce(scale: str, seed: int = 0) -> Result:
    """Traces -> predictors -> the arms on held-out specs -> gates and the claim's checks."""
    cfg = CONFIGS[check_scale(scale)]
    seed_everything(seed)
    stage = _stage_dir(cfg, scale, seed)
    predictors, training = prepare(cfg, seed, stage)
    tasks = [(entry, arm) for entry in cfg.test for arm in cfg.arms]
    done = _run_all(tasks, cfg, predictors, stage / "runs.jsonl")
    runs = {arm: [r for (_, a), r in zip(tasks, done) if a == arm] for arm in cfg.arms}
    metrics, baseline = measure(runs)
    metrics["training"] = training
    out = artifact_dir("neurosyntheos", scale)
    out.mkdir(parents=True, exist_ok=True)
    (out / "runs.json").write_text(json.dumps(runs, indent=1))
    plot_arms(runs, out / "arms.png")
    return Result(system="neurosyntheos", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
                  checks=verdict(metrics, baseline), paper=PAPER, paper_source="abstract",
                  config=asdict(cfg) | {"matched": MATCHED}, seed=seed, notes=notes(metrics, baseline),
                  artifacts=[f"neurosyntheos/{scale}/runs.json", f"neurosyntheos/{scale}/arms.png"])


def _stage_dir(cfg: Config, scale: str, seed: int) -> Path:
    """$PROCEEDINGS_CACHE/neurosyntheos/<scale>-<config hash>-seed<seed>: the staged artefacts of a run. The
    number of worker processes is not in the hash: it decides how many runs share the machine, not what a run
    is asked (the CPU seconds it is charged do depend on that sharing: README, "CPU seconds are not load-free")."""
    settings = asdict(cfg) | {"workers": None}
    key = hashlib.sha256(json.dumps([STAGE_FORMAT, settings], sort_keys=True, default=str).encode()).hexdigest()[:12]
    root = Path(os.environ.get("PROCEEDINGS_CACHE", Path.home() / ".cache" / "proceedings"))
    return root / "neurosyntheos" / f"{scale}-{key}-seed{seed}"


def out_of_family(cfg: Config) -> list[str]:
    """The held-out families the split by family needs a predictor for (none without that arm)."""
    return sorted({family for family, _ in cfg.test}) if OUT_OF_FAMILY in cfg.arms else []


def prepare(cfg: Config, seed: int, stage: Path | None = None) -> tuple[dict[str, NeuroPredictor], dict]:
    """Traces of the training split -> the predictor (key "all") and, for the split by family, one predictor
    per held-out family fitted on the same traces minus that family's specs (key: the family). Cached in
    `stage`; the CPU time is reported once, when it is built, under training.prepare_cpu_s."""
    from proceedings.neurosyntheos.model_io import load_predictor, save_predictor
    keys = ["all", *out_of_family(cfg)]
    paths = {key: stage / f"predictor-{key}.pt" for key in keys} if stage is not None else {}
    if paths and all(path.exists() for path in paths.values()) and (stage / "training.json").exists():
        return {key: load_predictor(path) for key, path in paths.items()}, json.loads((stage / "training.json").read_text())
    start = time.process_time()
    train_specs = build(cfg.train)
    traces = collect_traces(train_specs, cfg.train_budget_s, cfg.max_size)
    predictors, training = {}, {}
    for key in keys:
        kept = [(entry, spec, run) for entry, spec, run in zip(cfg.train, train_specs, traces) if entry[0] != key]
        predictors[key], info = fit_predictor([spec for _, spec, _ in kept], [run for _, _, run in kept],
                                              steps=cfg.gnn_steps, seed=seed, lm_steps=cfg.lm_steps)
        if key == "all":
            training = info
        else:
            training.setdefault("without_family", {})[key] = {k: info[k] for k in ("train_specs", "train_solved")}
    training["prepare_cpu_s"] = round(time.process_time() - start, 2)
    if stage is not None:
        stage.mkdir(parents=True, exist_ok=True)
        for key, predictor in predictors.items():
            save_predictor(predictor, paths[key])
        (stage / "training.json").write_text(json.dumps(training))
    return predictors, training


def _run_all(tasks, cfg: Config, predictors: dict[str, NeuroPredictor], journal: Path | None = None) -> list[dict]:
    """Every (spec, arm) run, each in a fresh process (issue 23: one process per spec), `workers` at a time.
    Finished runs are appended to `journal`, and a rerun resumes after them."""
    import multiprocessing
    finished = {}
    if journal is not None and journal.exists():
        for line in journal.read_text().splitlines():
            record = json.loads(line)
            finished[record["spec"], record["arm"]] = record
    names = [FAMILIES[entry[0]](**entry[1]).name for entry, _ in tasks]
    todo = [(k, task) for k, (task, name) in enumerate(zip(tasks, names)) if (name, task[1]) not in finished]
    results = {k: finished[name, arm] for k, (name, (_, arm)) in enumerate(zip(names, tasks)) if (name, arm) in finished}
    with multiprocessing.get_context("fork").Pool(max(cfg.workers, 1), maxtasksperchild=1) as pool:
        pending = [(k, pool.apply_async(held_out_run, (entry, arm, cfg, predictors))) for k, (entry, arm) in todo]
        for k, job in progress_bar(pending, desc="neurosyntheos held-out runs", unit="run"):
            results[k] = job.get()
            if journal is not None:
                journal.parent.mkdir(parents=True, exist_ok=True)
                with journal.open("a") as f:
                    f.write(json.dumps(results[k]) + "\n")
    return [results[k] for k in range(len(tasks))]


def held_out_run(entry: tuple[str, dict], arm: str, cfg: Config, predictors: dict[str, NeuroPredictor]) -> dict:
    """One arm on one held-out spec: its summary, the re-verification of every tautology it used,
    and (CEGRES arm, when solved) the gate's measure of the predictors' first batches. The out-of-family
    arm is the NeuroSyntheos loop with the predictor that never saw the spec's family."""
    spec = FAMILIES[entry[0]](**entry[1])
    predictor = {"neuro": predictors.get("all"), OUT_OF_FAMILY: predictors.get(entry[0])}.get(arm)
    run = cegres(spec, cfg.budget_s, "neuro" if arm == OUT_OF_FAMILY else arm, predictor, cfg.batch, cfg.max_size)
    # a verdict found after the CPU budget ran out (one z3 call may overrun it) is not "solved within the budget"
    out = run.summary() | {"arm": arm, "family": entry[0], "solved": run.solved and run.cpu_s <= cfg.budget_s,
                           "invalid_tautologies": len(recheck(spec, run)),
                           "certificate_problems": check_certificate(spec, run.certificate) if run.solved else []}
    if arm == "cegres" and run.solved:
        out["first_batch_implies"] = batch_implies(spec, fresh_predictor(predictors["all"]), run, cfg.batch)
        if entry[0] in predictors:
            out["first_batch_implies_out_of_family"] = batch_implies(spec, fresh_predictor(predictors[entry[0]]), run,
                                                                     cfg.batch)
    return out


def plot_arms(runs: dict[str, list[dict]], path: Path) -> Path:
    """Per held-out spec: synthesis calls of each arm (hatched = unsolved within the budget)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [r["spec"] for r in runs["cegres"]]
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(names) + 2), 3.5))
    width = 0.8 / len(runs)
    for k, (arm, rs) in enumerate(runs.items()):
        xs = [i + k * width for i in range(len(rs))]
        ax.bar(xs, [r["calls"] for r in rs], width, label=f"{arm} ({sum(r['solved'] for r in rs)} solved)",
               color=f"C{k}", edgecolor="black")
        for x, r in zip(xs, rs):
            if not r["solved"]:
                ax.bar(x, r["calls"], width, fill=False, hatch="//", edgecolor="black")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(names))], names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("synthesis calls")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def fresh_predictor(p: NeuroPredictor) -> NeuroPredictor:
    """The same predictor with an empty log and queue: every setting carried over, none to forget."""
    return replace(p, log=[], malformed=0, _queue={})


def _arm_numbers(runs: list[dict]) -> dict:
    solved = [r for r in runs if r["solved"]]
    return {"solved": len(solved), "solved_fraction": len(solved) / max(len(runs), 1),
            "unsound": sum(r["verdict"] != r["expected"] for r in solved),
            "invalid_tautologies": sum(r["invalid_tautologies"] for r in runs),
            "bad_certificates": sum(bool(r["certificate_problems"]) for r in runs),
            "per_spec_calls": {r["spec"]: r["calls"] for r in solved}}


def _by_source(runs: list[dict]) -> dict:
    """Injected / rejected proposals per predictor source, summed over the NeuroSyntheos runs (recorded,
    not judged); `specs_solved_with` counts solved specs where that source injected at least one clause."""
    out: dict = {}
    for r in runs:
        for source, counts in r.get("by_source", {}).items():
            mine = out.setdefault(source, {"specs_solved_with": 0})
            for key, n in counts.items():
                mine[key] = mine.get(key, 0) + n
            mine["specs_solved_with"] += bool(r["solved"] and counts.get("injected"))
    return out


def _out_of_family(runs: list[dict], cegres_runs: list[dict]) -> dict:
    """The split by family (recorded beside the verdict; its soundness is judged with every arm's): the
    out-of-family arm's numbers against CEGRES on the same held-out specs, overall and per family."""
    numbers = _arm_numbers(runs)
    both = [(a, b) for a, b in zip(runs, cegres_runs) if a["solved"] and b["solved"]]
    first_batch = [r["first_batch_implies_out_of_family"] for r in cegres_runs if "first_batch_implies_out_of_family" in r]
    per_family: dict = {}
    for a, b in zip(runs, cegres_runs):
        mine = per_family.setdefault(a["family"], {"specs": 0, "solved": 0, "cegres_solved": 0})
        mine["specs"] += 1
        mine["solved"] += a["solved"]
        mine["cegres_solved"] += b["solved"]
    return {key: numbers[key] for key in ("solved", "unsound", "invalid_tautologies", "bad_certificates")} | {
        "both_solved": len(both),
        "median_calls_both": _median([a["calls"] for a, _ in both]),
        "cegres_median_calls_both": _median([b["calls"] for _, b in both]),
        "median_neural_s": _median([r["neural_s"] for r in runs]),
        "injected": sum(r["injected"] for r in runs),
        "by_source": _by_source(runs),
        "first_batch_implies": _median(first_batch) if first_batch else 0.0,
        "per_family": per_family,
        "per_spec_calls": numbers["per_spec_calls"],
    }


def _median(xs) -> float | None:
    return float(statistics.median(xs)) if xs else None


def measure(runs: dict[str, list[dict]]) -> tuple[dict, dict]:
    """The method's and the baseline's numbers (everything the verdict reads)."""
    ours, base = _arm_numbers(runs["neuro"]), _arm_numbers(runs["cegres"])
    both = [(a, b) for a, b in zip(runs["neuro"], runs["cegres"]) if a["solved"] and b["solved"]]
    edges = _arm_numbers(runs["all-edges"]) if "all-edges" in runs else {}
    both_edges = [(a, b) for a, b in zip(runs["neuro"], runs.get("all-edges", [])) if a["solved"] and b["solved"]]
    first_batch = [r["first_batch_implies"] for r in runs["cegres"] if "first_batch_implies" in r]
    metrics = {
        "held_out": len(runs["neuro"]),
        "solved": ours["solved"], "solved_fraction": ours["solved_fraction"], "unsound": ours["unsound"],
        "invalid_tautologies": ours["invalid_tautologies"], "bad_certificates": ours["bad_certificates"],
        "both_solved": len(both),
        "median_calls_both": _median([a["calls"] for a, _ in both]),
        "median_neural_s": _median([r["neural_s"] for r in runs["neuro"]]),
        "median_cpu_s_both": _median([a["cpu_s"] for a, _ in both]),
        "injected": sum(r["injected"] for r in runs["neuro"]),
        "rejected_proposals": sum(r["rejected"] for r in runs["neuro"]),
        "by_source": _by_source(runs["neuro"]),
        "first_batch_implies": _median(first_batch) if first_batch else 0.0,
        "first_batch_specs": len(first_batch),
        "all_edges": {"solved": edges.get("solved", 0), "unsound": edges.get("unsound", 0),
                      "invalid_tautologies": edges.get("invalid_tautologies", 0),
                      "bad_certificates": edges.get("bad_certificates", 0),
                      "median_calls_both_with_neuro": _median([b["calls"] for _, b in both_edges]),
                      "neuro_median_calls_both_with_all_edges": _median([a["calls"] for a, _ in both_edges])},
        "per_spec_calls": ours["per_spec_calls"],
    }
    if OUT_OF_FAMILY in runs:
        metrics["out_of_family"] = _out_of_family(runs[OUT_OF_FAMILY], runs["cegres"])
    baseline = {"name": "CEGRES (one tautology per synthesis call)", "solved": base["solved"],
                "solved_fraction": base["solved_fraction"], "unsound": base["unsound"],
                "invalid_tautologies": base["invalid_tautologies"], "bad_certificates": base["bad_certificates"],
                "median_calls_both": _median([b["calls"] for _, b in both]),
                "median_cpu_s_both": _median([b["cpu_s"] for _, b in both]),
                "per_spec_calls": base["per_spec_calls"]}
    return metrics, baseline


def _end(intervals: dict | None, path: str, value, side: int):
    """With several seeds, the low (side 0) or high (side 1) end of the 95 % interval of `path`; else the
    value itself; None when no number was measured."""
    if not isinstance(value, (int, float)):
        return None
    return intervals[path][side] if intervals and path in intervals else value


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates (CEGRES neither saturated nor empty; the predictor's first batch covers its final set),
    then the issue's four conditions; with seeds, each margin must hold between the intervals' far ends."""
    n = metrics["held_out"]
    low, high = GATE_SOLVED
    extra = max(EXTRA_SOLVED[0], EXTRA_SOLVED[1] * n)
    solved = _end(intervals, "metrics.solved", metrics["solved"], 0)
    their_solved = _end(intervals, "baseline.solved", baseline["solved"], 1)
    ours = _end(intervals, "metrics.median_calls_both", metrics["median_calls_both"], 1)
    theirs = _end(intervals, "baseline.median_calls_both", baseline["median_calls_both"], 0)
    overhead = _end(intervals, "metrics.median_neural_s", metrics["median_neural_s"], 1)
    edges = metrics["all_edges"]
    return {
        f"gate: CEGRES solves {low:.0%}-{high:.0%} of the held-out specs": low <= baseline["solved_fraction"] <= high,
        f"gate: the verified first batch implies >= {GATE_FIRST_BATCH:.0%} of CEGRES's final tautologies (median)":
            metrics["first_batch_specs"] > 0 and metrics["first_batch_implies"] >= GATE_FIRST_BATCH,
        SOUND: all(arm[key] == 0 for arm in (metrics, baseline, edges, *_recorded_arms(metrics))
                   for key in ("unsound", "invalid_tautologies", "bad_certificates")),
        "NeuroSyntheos solves >= CEGRES + max(3, 15 % of the held-out specs)": solved >= their_solved + extra,
        f"on >= {MIN_BOTH} specs solved by both, median synthesis calls <= {CALL_RATIO} x CEGRES's":
            metrics["both_solved"] >= MIN_BOTH and ours is not None and theirs is not None and ours <= CALL_RATIO * theirs,
        f"median neural overhead <= {MAX_OVERHEAD_S:g} s per spec": overhead is not None and overhead <= MAX_OVERHEAD_S,
    }


def _recorded_arms(metrics: dict) -> list[dict]:
    """Arms measured beside the verdict whose soundness it still judges (the split by family, when run)."""
    return [metrics["out_of_family"]] if "out_of_family" in metrics else []


def notes(metrics: dict, baseline: dict) -> str:
    edges = metrics["all_edges"]
    same = edges["solved"] >= metrics["solved"]
    return (f"NeuroSyntheos solved {metrics['solved']}/{metrics['held_out']}, CEGRES {baseline['solved']}, all-edges "
            f"{edges['solved']} (recorded, not judged). "
            + ("All-edges solves as many as NeuroSyntheos: batching, not learning, explains the gain. " if same else "")
            + f"Median calls on specs both solved: {metrics['median_calls_both']} vs {baseline['median_calls_both']}."
            + _out_of_family_note(metrics.get("out_of_family")))


def _out_of_family_note(numbers: dict | None) -> str:
    if numbers is None:
        return ""
    return (f" Split by family (predictor trained without the spec's family; recorded, not judged): solved "
            f"{numbers['solved']}, median calls {numbers['median_calls_both']} vs CEGRES's "
            f"{numbers['cegres_median_calls_both']} on the {numbers['both_solved']} specs both solved.")
