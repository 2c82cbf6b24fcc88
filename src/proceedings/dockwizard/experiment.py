"""DockWizard's headline comparison (paper: docking-language conditions beat function-only conditions
on docking confidence and complex stability, +13 % / +19 %), as fixed-backbone pocket design.

Held out by ligand cluster. Arms matched on architecture, parameter count, data, steps, batch, seed,
sampling and designs per condition, paired by condition: DockWizard reads the *masked* docking text
(no residue types) and the ligand's 3-D pose; the function-only baseline is the same model trained
and tested without both. Gates first: (a) the evaluator discriminates (targets beat
composition-matched random pockets by >= 1 kcal/mol Vina and satisfy >= 2x the stated
interactions); (b) both arms beat random pockets on recovery and Vina. Then the claim.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from proceedings.core.results import Result, artifact_dir
from proceedings.core.runtime import atomic_write_text, check_scale, stopwatch
from proceedings.dockwizard.data import FIXTURE, Sample, load_samples, split_by_cluster
from proceedings.dockwizard.evaluation import (DesignRow, evaluate, paired_bootstrap_ci, per_condition,
                                             rows_as_dicts, summarise)
from proceedings.dockwizard.model import FUNCTION_ONLY, ModelConfig, parameter_count
from proceedings.dockwizard.training import TrainConfig, sample_designs, train

CLAIM = ("Docking-language conditions (masked docking text + ligand 3D, routed into role-specific memories) "
         "yield pocket designs with better Vina scores and more satisfied stated interactions than the same "
         "model conditioned on function text alone.")
PAPER = {"docking_confidence_gain_pct": 13.0, "complex_stability_gain_pct": 19.0}
VINA_MARGIN = 0.3  # kcal/mol (issue)
SATISFACTION_MARGIN = 0.10  # +10 pp (issue)
CLASH_TOLERANCE = 0.05  # clash-free rate lower by at most 5 pp (issue)
GATE_VINA = 1.0  # kcal/mol: targets beat random pockets by this much (issue, gate a)
GATE_SATISFACTION_RATIO = 2.0  # targets satisfy >= 2x the stated interactions of random pockets
REDOCK_ARMS = ("target", "dockwizard", "function_only")  # redocking, secondary, costs ~10-70 CPU-s a design
GATE_SCORED = 0.5  # an arm works at all: at least half its designs scored through every stage

# arm -> (model conditions, docking text read, router on); "target" and "random" need no training.
ARMS = {"dockwizard": (None, "masked", True), "function_only": (FUNCTION_ONLY, "masked", True),
        "no_router": (None, "masked", False), "full_text": (None, "full", True)}


@dataclass
class Config:
    d: int = 64
    layers: int = 2
    heads: int = 4
    steps: int = 150
    batch: int = 8
    lr: float = 2e-3
    conditions: int = 2  # held-out conditions evaluated
    designs: int = 1  # designs per condition and arm
    temperature: float = 0.8  # spec §2.3 sampling
    top_p: float = 0.9
    held_out_clusters: int = 3
    arms: tuple[str, ...] = ("dockwizard", "function_only")
    ligandmpnn_arm: bool = False  # LigandMPNN's own designs as a reference (no text)
    redock: tuple[str, ...] = ()  # held-out conditions whose REDOCK_ARMS designs are also redocked (secondary)
    data: str = ""  # build folder; "" = the committed fixture
    resume: bool = False  # keep checkpoints, designs and judged rows in a run folder (lane-A pieces)
    seed: int = 0
    decoder: str = "scratch"  # "plm": a Hugging Face protein LM with LoRA (paper); its folder: plm_path or PLM_ENV
    plm_path: str = ""


PLM_ENV = "PROCEEDINGS_DOCKWIZARD_PLM"  # the protein LM's local folder when the config names none


def plm_path(config: Config) -> str:
    """The folder of the paper preset's protein LM: the config's, else $PROCEEDINGS_DOCKWIZARD_PLM, else the cache's plm/."""
    from proceedings.dockwizard.assets import cache_dir

    return config.plm_path or os.environ.get(PLM_ENV) or str(cache_dir() / "plm")


CONFIGS = {
    "tiny": Config(),
    # small, the model size, sized by measurement on the shared 2-core machine with one torch thread:
    # d=256 x 6 layers at batch 16 costs ~1 CPU-s per step; judging ~2.2 CPU-s per design. The comparison and
    # the LigandMPNN reference (~11 CPU-min); redocking (secondary) only in two held-out 4CUP conditions,
    # chosen for cost before any was run: a redocking into 6WQA costs ~70 CPU-s, into 4CUP's pocket ~3.
    "small": Config(d=256, layers=6, heads=4, steps=200, batch=16, lr=1e-3, conditions=30, designs=2,
                    held_out_clusters=17, ligandmpnn_arm=True, redock=("4CUP-HDT", "4CUP-MOI"),
                    data="small", resume=True),
    "paper": Config(d=512, layers=12, heads=8, steps=20000, batch=64, lr=3e-4, conditions=200, designs=8,
                    held_out_clusters=40, arms=tuple(ARMS), ligandmpnn_arm=True, data="paper", resume=True,
                    decoder="plm"),
}


# long: small plus the no-router and full-text arms (issue: "in a longer run if 20 min is short"); it shares
# small's run folder, so small's trained arms and judged rows are reused (~11 CPU-min more)
CONFIGS["long"] = replace(CONFIGS["small"], arms=tuple(ARMS))
OPTIONAL_SCALES = ("long",)  # core/runtime.py: the scales beyond tiny / small / paper this system offers
# Config fields that only say which arms run: each arm's stage is kept under its own name, so runs that
# differ only in these share a run folder
ARM_CHOICE = ("arms", "ligandmpnn_arm")


def data_root(config: Config) -> Path:
    from proceedings.dockwizard.assets import cache_dir

    return FIXTURE if not config.data else cache_dir() / "builds" / config.data


def reproduce(scale: str, seed: int = 0) -> Result:
    """Train the matched arms, design pockets for held-out conditions, judge every design, verdict."""
    from proceedings.dockwizard.judge import LigandMPNNJudge

    config = replace(CONFIGS[check_scale(scale)], seed=seed)
    root = data_root(config)
    train_set, test_set = split_by_cluster(load_samples(root), config.held_out_clusters, seed=config.seed)
    conditions = test_set[: config.conditions]
    folder = run_folder(config, root) if config.resume else None
    timings, designs, params, losses = {}, {}, {}, {}
    for arm in config.arms:
        done = _stage(folder, f"arm-{arm}", lambda arm=arm: design_arm(arm, train_set, conditions, config, folder))
        designs[arm], params[arm], losses[arm] = done["designs"], done["parameters"], done["loss_first_last"]
        timings.update({f"train_{arm}_{k}": v for k, v in done["timings"].items()})
    designs["target"] = {c.id: [c.target] for c in conditions}
    designs["random"] = {c.id: random_pockets(c, config.designs, config.seed) for c in conditions}
    judge = LigandMPNNJudge(seed=config.seed)
    if config.ligandmpnn_arm:
        designs["ligandmpnn"] = _stage(folder, "arm-ligandmpnn", lambda: dict(zip(
            [c.id for c in conditions], judge.design_sequences(conditions, root, config.designs))))
    spent = {}
    redock = frozenset((c, arm) for c in config.redock for arm in REDOCK_ARMS)
    rows = evaluate(designs, conditions, root, judge, checkpoint=folder, spent=spent, redock=redock)
    timings["evaluate_s"], timings["evaluate_cpu_s"] = round(spent["wall_s"], 2), round(spent["cpu_s"], 2)
    timings["designs_scored_per_min"] = round(60 * sum(r.vina is not None for r in rows) / max(spent["wall_s"], 1e-9), 2)
    metrics, baseline = measure(rows, config)
    metrics.update({"parameters": params, "loss_first_last": losses, "timings": timings})
    out = artifact_dir("dockwizard", scale)
    (out / "designs.json").write_text(json.dumps(rows_as_dicts(rows), indent=1))
    return Result(system="dockwizard", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
                  checks=verdict(metrics, baseline), paper=PAPER, paper_source="abstract",
                  config={**asdict(config), "matched": MATCHED, "train_samples": len(train_set),
                          "test_conditions": [c.id for c in conditions], "data_root": str(root.name)},
                  seed=seed, notes=notes(metrics, baseline, len(conditions), config.designs),
                  artifacts=[f"dockwizard/{scale}/designs.json"])


MATCHED = ("architecture, parameter count (function-only keeps the unused docking/3D encoder weights), training "
           "samples, steps, batch order, learning rate, seed, sampling (T, top-p, generator seed) and designs per "
           "condition; comparisons are paired by held-out condition")


def train_arm(arm: str, samples: list[Sample], config: Config, checkpoint: Path | None = None):
    use, docking, router = ARMS[arm]
    model_config = ModelConfig(d=config.d, layers=config.layers, heads=config.heads, router=router,
                               decoder=config.decoder, plm_path=plm_path(config) if config.decoder == "plm" else "",
                               **({"conditions": use} if use else {}))
    return train(samples, model_config, TrainConfig(config.steps, config.batch, config.lr, config.seed,
                                                    checkpoint_every=CHECKPOINT_EVERY),
                 docking=docking, checkpoint=checkpoint, desc=f"train {arm}")


def design_arm(arm: str, samples: list[Sample], conditions: list[Sample], config: Config, folder: Path | None) -> dict:
    """Train one arm (resuming its checkpoint in `folder`) and sample its designs for the held-out conditions."""
    trained = train_arm(arm, samples, config, folder / f"{arm}.pt" if folder else None)
    with stopwatch() as t:
        designs = sample_designs(trained, conditions, config.designs, config.temperature, config.top_p, seed=config.seed)
    return {"designs": dict(zip([c.id for c in conditions], designs)), "parameters": parameter_count(trained.model),
            "loss_first_last": [round(trained.losses[0], 3), round(trained.losses[-1], 3)],
            "timings": {"s": round(trained.wall_s + t.wall_s, 2), "cpu_s": round(trained.cpu_s + t.cpu_s, 2),
                        "steps_per_s": round(trained.steps_per_s, 2)}}


CHECKPOINT_EVERY = 50  # training steps between checkpoints of a resumable run


def run_folder(config: Config, root: Path) -> Path:
    """$PROCEEDINGS_CACHE/dockwizard/runs/<hash of the config (but which arms run), the samples and the code>:
    one resumable run's stages (each arm's training and designs, judged rows per chunk and arm)."""
    from proceedings.dockwizard.assets import cache_dir
    from proceedings.dockwizard.provenance import source_digest

    setting = {k: v for k, v in asdict(config).items() if k not in ARM_CHOICE}
    key = hashlib.sha256(json.dumps([setting, source_digest()], sort_keys=True).encode()
                         + (root / "samples.jsonl").read_bytes()).hexdigest()[:16]
    folder = cache_dir() / "runs" / key
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _stage(folder: Path | None, name: str, make):
    """`make()`, or its result kept in `folder` by an earlier piece of the run (JSON, atomic)."""
    path = folder / f"{name}.json" if folder else None
    if path is not None and path.exists():
        return json.loads(path.read_text())
    value = make()
    if path is not None:
        atomic_write_text(path, json.dumps(value))
    return value


def random_pockets(condition: Sample, n: int, seed: int) -> list[str]:
    """Composition-matched random pockets: the target's residues in a random order (baseline B0)."""
    rng = random.Random(f"{seed}-{condition.id}")
    return ["".join(rng.sample(condition.target, len(condition.target))) for _ in range(n)]


def measure(rows: list[DesignRow], config: Config) -> tuple[dict, dict]:
    by_arm = {arm: [r for r in rows if r.arm == arm] for arm in dict.fromkeys(r.arm for r in rows)}
    summary = {arm: summarise(arm_rows) for arm, arm_rows in by_arm.items()}
    ours, base = summary["dockwizard"], summary["function_only"]
    ci = paired_bootstrap_ci(per_condition(by_arm["dockwizard"]), per_condition(by_arm["function_only"]),
                             seed=config.seed)
    metrics = {**{k: v for k, v in ours.items()}, "scored_fraction": _fraction(ours),
               "vina_gain_ci90": list(ci) if ci else None,
               "target": summary["target"], "random": summary["random"],
               "arms": {a: s for a, s in summary.items() if a not in ("dockwizard", "function_only")},
               "relative_gain_pct": relative_gains(ours, base)}
    for arm in set(metrics["arms"]) - {"target", "random"}:  # reported beside the claim (issue), not judged
        arm_ci = paired_bootstrap_ci(per_condition(by_arm[arm]), per_condition(by_arm["function_only"]),
                                     seed=config.seed)
        metrics["arms"][arm].update(relative_gain_pct=relative_gains(summary[arm], base),
                                    vina_gain_ci90=list(arm_ci) if arm_ci else None)
    baseline = {"name": "function-only (same model, no docking text, no ligand 3D)", **base,
                "scored_fraction": _fraction(base)}
    return metrics, baseline


def _fraction(summary: dict) -> float:
    return round(summary["scored"] / summary["designs"], 4) if summary["designs"] else 0.0


def relative_gains(ours: dict, base: dict) -> dict:
    """Relative gains in the paper's sense, beside its +13 % / +19 % (sign: positive = DockWizard better)."""
    def gain(a, b, lower_is_better=False):
        if a is None or b is None or b == 0:
            return None
        return round(100 * ((b - a) if lower_is_better else (a - b)) / abs(b), 2)
    return {"docking_confidence_gain_pct": gain(ours["vina"], base["vina"], lower_is_better=True),
            "complex_stability_gain_pct": gain(ours["satisfaction"], base["satisfaction"])}


def _lt(a, b, margin: float = 0.0) -> bool:
    """a + margin <= b, False when either number is missing."""
    return a is not None and b is not None and a + margin <= b


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates, then the claim's three conditions (issue 26), on the numbers the record stores."""
    target, rnd = metrics["target"], metrics["random"]
    ci = metrics.get("vina_gain_ci90")
    return {
        f"gate: both arms score >= {GATE_SCORED:.0%} of their designs through all four stages":
            metrics["scored_fraction"] >= GATE_SCORED and baseline["scored_fraction"] >= GATE_SCORED,
        f"gate (a): targets beat composition-matched random pockets by >= {GATE_VINA} kcal/mol mean Vina":
            _lt(target["vina"], rnd["vina"], GATE_VINA),
        f"gate (a): targets satisfy >= {GATE_SATISFACTION_RATIO:g}x the stated interactions of random pockets":
            target["satisfaction"] is not None and rnd["satisfaction"] is not None and target["satisfaction"] > 0
            and target["satisfaction"] >= GATE_SATISFACTION_RATIO * rnd["satisfaction"],
        "gate (b): DockWizard beats random pockets on recovery and Vina":
            _lt(rnd["recovery"], metrics["recovery"], 1e-9) and _lt(metrics["vina"], rnd["vina"], 1e-9),
        "gate (b): function-only beats random pockets on recovery and Vina":
            _lt(rnd["recovery"], baseline["recovery"], 1e-9) and _lt(baseline["vina"], rnd["vina"], 1e-9),
        f"docking confidence: DockWizard (masked text) mean Vina better than function-only by >= {VINA_MARGIN} "
        "kcal/mol, 90% paired bootstrap CI excluding 0":
            _lt(metrics["vina"], baseline["vina"], VINA_MARGIN) and ci is not None and ci[0] > 0,
        f"complex stability: stated-interaction satisfaction >= +{SATISFACTION_MARGIN * 100:.0f} pp over function-only":
            _lt(baseline["satisfaction"], metrics["satisfaction"], SATISFACTION_MARGIN),
        f"clash-free rate lower than function-only's by at most {CLASH_TOLERANCE * 100:.0f} pp":
            metrics["clash_free"] is not None and baseline["clash_free"] is not None
            and metrics["clash_free"] >= baseline["clash_free"] - CLASH_TOLERANCE,
    }


def notes(metrics: dict, baseline: dict, conditions: int, designs: int) -> str:
    """The record's summary line; `conditions` counts the held-out conditions evaluated (not the preset's cap)."""
    return (f"{conditions} held-out conditions x {designs} designs per arm; Vina after local "
            f"optimisation of the conditioning pose on LigandMPNN-packed pockets (1 pack per design). "
            f"DockWizard {metrics['vina']} vs function-only {baseline['vina']} kcal/mol; satisfaction "
            f"{metrics['satisfaction']} vs {baseline['satisfaction']}; relative gains {metrics['relative_gain_pct']} "
            f"(paper +13 % / +19 %).")
