"""MoCAR's ablations (spec §2.4; issue 25: β = 0, no latent alignment, frozen tokenizer, "in a longer run").

Each is MoCAR trained again with one switch changed, on the same windows, steps, batch, optimiser and seed,
as one more arm of the staged `reproduce` run: the cached scenarios, the trained MoCAR and its evaluation are
reused, every ablation is its own resumable stage, and each is paired scene by scene with that MoCAR (90 %
paired bootstrap interval of its minFDE6 minus MoCAR's; above 0: the ablated part helps). The fourth ablation
of the issue, the re-tokenising rollout, needs no retraining and is in every `reproduce` record.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.results import artifact_dir
from proceedings.core.runtime import atomic_write_text, seed_everything
from proceedings.mocar.experiment import (CI_LEVEL, ExperimentConfig, Splits, av1_horizon, checkpoint, evaluate_arm,
                                          evaluation_file, experiment_config, headline, predictor, prepare_data,
                                          tokenizer_ade, train_arm)
from proceedings.mocar.metrics import paired_bootstrap
from proceedings.mocar.model import MoCAR

ABLATIONS = {"beta0": {"beta": 0.0}, "no_alignment": {"alignment": 0.0}, "frozen_tokenizer": {"frozen_tokenizer": True}}


def ablated(cfg: ExperimentConfig, name: str, seed: int) -> MoCAR:
    """MoCAR with the ablation's switch, initialised as `reproduce` initialises MoCAR."""
    torch.manual_seed(seed)
    return MoCAR(replace(cfg.mocar, **ABLATIONS[name]))


def paired_rows(cfg: ExperimentConfig, models: dict, tables: dict, splits: Splits, seed: int) -> dict:
    """For each ablated model (every key of `models` but "mocar"): its headline numbers, its tokenizer's rebuild
    error, and the paired interval of its minFDE6 minus MoCAR's on A test and A turn-heavy."""
    summary = {name: {split: table for split, (table, _) in arm.items()} for name, arm in tables.items()}
    per = {name: {split: scores for split, (_, scores) in arm.items()} for name, arm in tables.items()}
    rows = {}
    for name in (n for n in models if n != "mocar"):
        cost = {split: paired_bootstrap(per["mocar"][split].min_fde6, per[name][split].min_fde6, cfg.bootstrap,
                                        CI_LEVEL, seed) for split in ("a_test", "a_turn")}
        rows[name] = {**headline(summary[name]), "tokenizer_ade": tokenizer_ade(models[name], splits.test),
                      "fde6_cost_ci": cost["a_test"], "turn_fde6_cost_ci": cost["a_turn"]}
    return rows


def run_ablations(scale: str, seed: int = 0, names: tuple[str, ...] | None = None) -> dict:
    """Train and score the named ablations (default: the preset's) in the `scale`/`seed` run folder, then write
    results/mocar/<scale>/ablations.json with every ablation evaluated so far; returns that record."""
    cfg = experiment_config(scale, seed)
    names = cfg.ablations if names is None else names
    unknown = [n for n in names if n not in ABLATIONS]
    if unknown:
        raise ProceedingsError(f"unknown ablation(s) {', '.join(unknown)}; choose from: {', '.join(ABLATIONS)}")
    if not cfg.checkpoints:
        raise ProceedingsError(f"the {scale} preset keeps no run folder to add ablations to; use small or paper")
    t0, c0 = time.perf_counter(), time.process_time()
    seed_everything(seed)
    splits = prepare_data(cfg, seed)
    horizon_b = av1_horizon(splits)
    torch.manual_seed(seed)
    models = {"mocar": MoCAR(cfg.mocar)}  # as build_arms makes it; its finished checkpoint restores it
    train_arm("mocar", models["mocar"], splits.train, cfg.train, cfg, checkpoint(cfg, "mocar"))
    training = {}
    for name in ABLATIONS:  # the requested ones are trained; earlier finished ones are reloaded
        arm = f"mocar_{name}"
        if name not in names and not evaluation_file(cfg, arm).exists():
            continue
        models[arm] = ablated(cfg, name, seed)
        log = train_arm(arm, models[arm], splits.train, cfg.train, cfg, checkpoint(cfg, arm))
        training[arm] = {"steps": log.steps, "wall_s": round(log.wall_s, 1), "cpu_s": round(log.cpu_s, 1),
                         "cpu_s_per_step": round(log.cpu_s / max(log.steps, 1), 3)}
    tables = {name: evaluate_arm(predictor(model, seed), splits, horizon_b, evaluation_file(cfg, name))
              for name, model in models.items()}
    record = {"system": "mocar", "scale": scale, "seed": seed, "run": evaluation_file(cfg, "mocar").parent.name,
              "switches": {f"mocar_{n}": s for n, s in ABLATIONS.items()},
              "mocar": {**headline({split: table for split, (table, _) in tables["mocar"].items()}),
                        "tokenizer_ade": tokenizer_ade(models["mocar"], splits.test)},
              "ablations": paired_rows(cfg, models, tables, splits, seed), "training": training,
              "matched": "each ablation: MoCAR's windows, steps, batch, AdamW, schedule, seed, closed-loop phase and "
                         "tokenizer pre-training, one switch changed",
              "config": cfg.to_dict(), "duration_s": round(time.perf_counter() - t0, 1),
              "cpu_s": round(time.process_time() - c0, 1), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    atomic_write_text(artifact_dir("mocar", scale) / ("ablations.json" if seed == 0 else f"ablations-seed{seed}.json"),
                      json.dumps(record, indent=1))
    return record
