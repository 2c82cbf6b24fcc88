"""The spec's RWOPD ablations (§2.4, §9): the `rwopd` arm of a `reproduce` run trained again with one of
its three choices switched off, and compared task by task with RWOPD and OPD.

At small scale RWOPD loses to SFT and OPD and makes the student broader (README, round 9 diagnosis).
Three candidate causes, one switch each (`distill.Switches`):
  - `no-filter`:   every rollout, weight 1 (the few kept rows per step: 2-12 of 32);
  - `reverse-kl`:  OPD's mode-seeking reverse KL on RWOPD's kept rows (forward KL's mass covering);
  - `no-fallback`: no teacher rollouts for prompts without a passing one (their off-policy rows).
Each variant starts from the run's warm start with the run's seed, prompts, steps, lr and student
generations (so its first rollouts are RWOPD's), is scored on the same held-out tasks with the same
sampling seed, and stored as a stage of the run (resumable, like `reproduce`'s). The comparison is a
paired bootstrap over tasks of the per-task pass@1 and syntax@1 differences against the run's RWOPD
and OPD samples: the arms answer the same tasks, so pairing removes the tasks' difficulty from the interval.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.distill import Switches, TrainLog, train_arm

ABLATIONS = {
    "no-filter": Switches(reward_filter=False),
    "reverse-kl": Switches(forward_kl=False),
    "no-fallback": Switches(teacher_fallback=False),
}
COMPARED_WITH = ("rwopd", "opd")  # the run's arms each ablation is paired with
PAIRED_METRICS = ("pass@1", "syntax@1")


def per_task(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Recorded samples ({task, verdict} lines) -> per task: pass@1 (unbiased: passes / n, only a proved
    EQUIVALENT passes) and syntax@1 (share of samples that elaborate)."""
    verdicts: dict[str, list[str]] = {}
    for row in rows:
        verdicts.setdefault(row["task"], []).append(row["verdict"])
    return {task: {"pass@1": sum(v == "EQUIVALENT" for v in vs) / len(vs),
                   "syntax@1": sum(v != "SYNTAX_ERROR" for v in vs) / len(vs)} for task, vs in verdicts.items()}


def paired_difference(variant: dict[str, dict[str, float]], other: dict[str, dict[str, float]], metric: str,
                      rounds: int = 2000, seed: int = 0) -> dict:
    """Mean over tasks of variant - other on `metric`, with a 95 % percentile bootstrap interval over
    tasks resampled with replacement (both arms answered the same tasks)."""
    if set(variant) != set(other):
        raise ProceedingsError(f"the arms answered different tasks ({len(set(variant) ^ set(other))} differ); "
                               "pair only evaluations of one run")
    tasks = sorted(variant)
    diffs = np.array([variant[t][metric] - other[t][metric] for t in tasks])
    means = diffs[np.random.default_rng(seed).integers(0, len(diffs), (rounds, len(diffs)))].mean(axis=1)
    return {"mean": float(diffs.mean()), "ci95": [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))],
            "tasks": len(tasks)}


def comparisons(variant_rows: list[dict], compared: dict[str, list[dict]]) -> dict:
    """`paired_difference` of one variant against each compared arm, for every `PAIRED_METRICS`."""
    mine = per_task(variant_rows)
    return {arm: {metric: paired_difference(mine, per_task(rows), metric) for metric in PAIRED_METRICS}
            for arm, rows in compared.items()}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def run_ablations(scale: str, seed: int = 0, names: tuple[str, ...] = tuple(ABLATIONS), progress: bool = False) -> dict:
    """Train and score the named ablations of the `scale`/`seed` run (resuming finished stages), and
    return the record of every ablation finished so far, paired with the run's RWOPD and OPD."""
    from proceedings.rwopd.diagnose import reference_entropy, samples_summary
    from proceedings.rwopd.experiment import CONFIGS, Stages, arm_pool, evaluate_arm, heldout_tasks, run_folder
    from proceedings.rwopd.harness import VerdictCache
    from proceedings.rwopd.teacher import prepared_models

    unknown = [n for n in names if n not in ABLATIONS]
    if unknown:
        raise ProceedingsError(f"unknown ablation(s) {', '.join(unknown)}; choose from: {', '.join(ABLATIONS)}")
    cfg, folder = CONFIGS[scale], run_folder(scale, seed)
    missing = [arm for arm in COMPARED_WITH if not (folder / f"{arm}_samples.jsonl").exists()]
    if missing:
        raise ProceedingsError(f"the {scale} run with seed {seed} has no {', '.join(missing)} samples in {folder}; "
                               f"run `proceedings reproduce rwopd --scale {scale} --seed {seed}` first")
    stages = Stages(folder / "ablations")
    pending = [n for n in names if stages.finished(n) is None]
    if pending:
        teacher, base_student, tokenizer, _ = prepared_models(cfg, seed, progress=progress)
        pool, heldout, cache = arm_pool(cfg, seed), heldout_tasks(cfg, seed), VerdictCache()
        for name in pending:
            def one(name=name) -> dict:
                student = copy.deepcopy(base_student)
                log = train_arm("rwopd", student, teacher, tokenizer, pool, cfg.arm, cache, seed,
                                out_dir=stages.folder / name, progress=progress, switches=ABLATIONS[name])
                return {"log": asdict(log), "entropy": reference_entropy(student, tokenizer, heldout),
                        "eval": evaluate_arm(student, tokenizer, heldout, cfg, cache, seed,
                                             record=stages.samples(name))}

            stages.run(name, one)
    compared = {arm: _rows(folder / f"{arm}_samples.jsonl") for arm in COMPARED_WITH}
    record = {"scale": scale, "seed": seed, "run": folder.name, "arm_config": asdict(cfg.arm),
              "compared_with": {arm: Stages(folder).finished(arm)["eval"] for arm in COMPARED_WITH},
              "rwopd_vs_opd": comparisons(compared["rwopd"], {"opd": compared["opd"]})["opd"],
              "ablations": {}, "stage_seconds": stages.timings()}
    for name, switches in ABLATIONS.items():
        done = stages.finished(name)
        if done is None:
            continue
        rows, log = _rows(stages.samples(name)), TrainLog(**done["log"])
        record["ablations"][name] = {
            "switches": asdict(switches), "eval": done["eval"], "samples": samples_summary(rows),
            "heldout_reference_entropy": done["entropy"],
            "training": {"generations": log.generations, "kept": log.kept, "trained_tokens": log.trained_tokens,
                         "teacher_fallbacks": log.teacher_fallbacks, "teacher_samples": log.teacher_samples,
                         "loss": log.losses, "cpu_seconds": round(log.cpu_seconds, 1)},
            "paired": comparisons(rows, compared)}
    return record
