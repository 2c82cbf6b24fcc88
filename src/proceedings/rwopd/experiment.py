"""reproduce(scale): the PEC's verdict table, then RWOPD against SFT, OPD and rejection fine-tuning.

The story of the paper's experiment at laptop scale: (1) the open PEC decides a fixture table of
documented equivalences and pays nothing to degenerate rollouts; (2) generated NL/SVA pairs train a
teacher (one epoch) and warm-start a full-depth student (cached, timed apart), gated on the warm
start already passing sometimes and the teacher knowing clearly more; (3) four arms continue the same student with the same number of
student generations; (4) each arm is scored with the PEC on the held-out generated split:
pass@1 with bootstrap intervals over tasks (over seeds when several are combined), per temporal category.
`reproduced` is computed from these numbers.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from proceedings.core.models import cache_root
from proceedings.core.results import Result, artifact_dir
from proceedings.core.runtime import atomic_write_text, check_scale, seed_everything
from proceedings.rwopd.distill import METHODS, ArmConfig, TrainLog, train_arm
from proceedings.rwopd.grammar import CATEGORIES, generate_pairs
from proceedings.rwopd.harness import VerdictCache, evaluate_samples, reference_of
from proceedings.rwopd.pec import check_equivalence
from proceedings.rwopd.policy import require_same_tokenizer, sample
from proceedings.rwopd.prompting import format_prompt

CLAIM = ("Reward-weighted on-policy distillation scored by an open property-equivalence checker beats SFT and "
         "plain on-policy distillation on NL->SVA, with the gain in the temporal categories.")

# (A, B, expected verdict): the FVEval pec.md examples and textbook identities (spec §8).
FIXTURES = (
    ("a |-> ##1 b", "a |=> b", "EQUIVALENT"),
    ("a |-> ##2 b", "a |=> b", "DIFFERENT"),
    ("a ##1 b ##1 c |=> d", "a ##1 b |=> c ##1 d", "B_IMPLIES_A"),
    ("a[*4]", "a ##1 a ##1 a ##1 a", "EQUIVALENT"),
    ("(a) throughout (b ##1 c ##1 d)", "(a)[*0:$] intersect (b ##1 c ##1 d)", "EQUIVALENT"),
    ("a |-> ##[0:$] b", "a |-> s_eventually(b)", "EQUIVALENT"),  # liveness, proved (jasper: ##[0:$] is strong)
    ("a |-> s_eventually b", "a |-> s_eventually (b ##1 1)", "EQUIVALENT_BOUNDED"),  # no proof: bounded, K stated
    ("a", "!a", "DIFFERENT"),
    ("a |-> s_eventually b", "a |-> s_eventually (b || c)", "A_IMPLIES_B"),
    ("$rose(a) |-> b", "(a && !$past(a)) |-> b", "EQUIVALENT"),
    ("a |-> ##[1:3] b", "a |-> ##1 b or ##2 b or ##3 b", "EQUIVALENT"),
    ("a |-> ##[2:1] b", "a |-> b", "SYNTAX_ERROR"),
    ("a |-> b", "a |-> b #-# c", "UNSUPPORTED"),
)


@dataclass
class Config:
    model: str = "smollm2-135m"
    train_pairs: int = 2000
    teacher_steps: int = 32
    teacher_batch: int = 8
    teacher_lr: float = 1e-4
    student_layers: int | None = None  # None: the full depth (issue 15: a layer cut cannot be repaired by a warm-up)
    student_init: str = "base"  # the student starts from the base model ("base") or a cut of the teacher ("teacher")
    student_warm_steps: int = 30
    student_lr: float = 3e-4
    heldout: int = 96  # held-out generated tasks, balanced categories (issue 15: >= 96)
    eval_samples: int = 4  # n per task (pass@1 unbiased from n)
    eval_temperature: float = 0.8  # spec §2.5
    transfer_tasks: int = 40  # first valid NL2SVA-Machine tasks scored per arm (0: skip)
    pool_weights: tuple[int, int, int] = (1, 2, 2)  # arms' prompt pool: combinational, bounded, unbounded
    arm: ArmConfig = field(default_factory=ArmConfig)

    @property
    def teacher_epochs(self) -> float:
        return self.teacher_steps * self.teacher_batch / self.train_pairs


CONFIGS = {
    "tiny": Config(model="tiny:64x2", train_pairs=96, teacher_steps=12, teacher_lr=3e-3, student_layers=1,
                   student_init="teacher", student_warm_steps=6, student_lr=3e-3, heldout=4, eval_samples=2,
                   transfer_tasks=0, arm=ArmConfig(steps=2, batch_prompts=2, rollouts=2, max_new_tokens=16, lr=1e-3,
                                                   checkpoint_every=1)),
    # Teacher: SmolLM2-135M-Instruct, one epoch of 320 pairs; student: the same base model at full
    # depth after a 12-step warm-up, so it writes some correct SVA before the arms start (the gate).
    "small": Config(train_pairs=320, teacher_steps=40, student_warm_steps=12, student_lr=2e-4, eval_samples=2,
                    transfer_tasks=12, arm=ArmConfig(steps=8, batch_prompts=4, rollouts=8, max_new_tokens=40,
                                                     lr=5e-5, checkpoint_every=2)),
    # The paper distils CodeV-SVA-14B into Qwen2.5-Coder-7B-Instruct; neither is available offline. This preset
    # runs the same pipeline on a GPU (bf16) from a 7B base: teacher = the model fine-tuned on 6k pairs,
    # student = its first 8 layers. It needs the weights in the Hugging Face cache.
    "paper": Config(model="Qwen/Qwen2.5-Coder-7B-Instruct", train_pairs=6000, teacher_steps=750,
                    teacher_batch=8, student_layers=8, student_init="teacher", student_warm_steps=60, heldout=300,
                    eval_samples=10, arm=ArmConfig(steps=40, batch_prompts=16, rollouts=4, max_new_tokens=128, lr=1e-5)),
}


def reproduce(scale: str, seed: int = 0) -> Result:
    """PEC fixture table + the four distillation arms on the held-out generated split."""
    from proceedings.rwopd.teacher import prepared_models

    cfg = CONFIGS[check_scale(scale)]
    seed_everything(seed)
    fixture_table = pec_fixture_table()

    teacher, base_student, tokenizer, build = prepared_models(cfg, seed, progress=True)
    require_same_tokenizer(tokenizer, tokenizer)
    pool = arm_pool(cfg, seed)
    heldout = heldout_tasks(cfg, seed)
    cache = VerdictCache()

    machine = machine_subset(cfg.transfer_tasks)
    stages = Stages(run_folder(scale, seed))

    start = stages.run("warm_start", lambda: evaluate_arm(base_student, tokenizer, heldout, cfg, cache, seed,
                                                          record=stages.samples("warm_start")))
    arms, logs, transfer = {}, {}, {}
    for method in METHODS:
        def one_arm(method=method) -> dict:
            student = copy.deepcopy(base_student)
            log = train_arm(method, student, teacher, tokenizer, pool, cfg.arm, cache, seed,
                            out_dir=stages.folder / method, progress=True)
            return {"log": asdict(log), "eval": evaluate_arm(student, tokenizer, heldout, cfg, cache, seed,
                                                             record=stages.samples(method)),
                    "transfer": evaluate_arm(student, tokenizer, machine, cfg, cache, seed, with_testbench=True)
                    if machine else None}

        done = stages.run(method, one_arm)
        logs[method], arms[method] = TrainLog(**done["log"]), done["eval"]
        if done["transfer"] is not None:
            transfer[method] = done["transfer"]
    teacher_eval = stages.run("teacher", lambda: evaluate_arm(teacher, tokenizer, heldout, cfg, cache, seed,
                                                              record=stages.samples("teacher")))

    plots = plot_arms({"start": start, **arms, "teacher": teacher_eval}, logs, artifact_dir("rwopd", scale))
    rw, sft, opd = arms["rwopd"], arms["sft"], arms["opd"]
    temporal_gain = gains(rw, sft, opd)
    metrics = {**rw, "arms": arms, "warm_start": start, "teacher": teacher_eval,
               "gain_over_best_baseline": temporal_gain, "pec_fixtures": fixture_table,
               "degenerate_reward": degenerate_reward(cache, cfg.arm.rho),
               "transfer_nl2sva_machine": transfer,
               "training": {m: {"generations": l.generations, "tokens_per_s": round(l.tokens_per_second(), 1),
                                "rollouts_per_s": round(l.generations / l.seconds, 2) if l.seconds else None,
                                "teacher_fallbacks": l.teacher_fallbacks, "teacher_samples": l.teacher_samples,
                                "seconds": round(l.seconds, 1),
                                "cpu_seconds": round(l.cpu_seconds, 1),
                                "mean_reward": l.rewards, "equivalent_rollouts": l.equivalent,
                                "implied_rollouts": l.implied, "loss": l.losses, "kept": l.kept,
                                "trained_tokens": l.trained_tokens}
                            for m, l in logs.items()},
               "teacher_build": build, "stage_seconds": stages.timings()}
    baseline = {"name": "SFT and OPD (reverse KL) students", "sft": sft, "opd": opd, "rft": arms["rft"]}
    return Result(
        system="rwopd", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline),
        paper={"prior_best_human_func@1": 0.76},
        paper_source="abstract: the strongest specialised model reaches ~76 % on NL2SVA-Human; the abstract "
                     "gives no numbers for CodeV-SVA-14B -> Qwen2.5-Coder-7B",
        config=asdict(cfg), seed=seed, artifacts=plots,
        notes=_notes(arms, start, build, cfg),
    )


class Stages:
    """A run's finished stages as JSON files: a run stopped between stages resumes after the last one
    (and an arm stopped mid-training from its own checkpoint), so `small` fits in short slots."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def finished(self, name: str) -> dict | None:
        """Stage `name`'s result when it has run, else None."""
        path = self._record(name)
        return json.loads(path.read_text())["result"] if path.exists() else None

    def run(self, name: str, compute) -> dict:
        done = self.finished(name)
        if done is not None:
            return done
        began, cpu0 = time.perf_counter(), time.process_time()
        result = compute()
        timing = {"wall_s": round(time.perf_counter() - began, 1), "cpu_s": round(time.process_time() - cpu0, 1)}
        atomic_write_text(self._record(name), json.dumps({"result": result, **timing}, indent=1))
        return result

    def _record(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def samples(self, name: str) -> Path:
        """Where stage `name` writes its held-out samples and verdicts (JSONL)."""
        return self.folder / f"{name}_samples.jsonl"

    def timings(self) -> dict:
        return {p.stem: {k: v for k, v in json.loads(p.read_text()).items() if k != "result"}
                for p in sorted(self.folder.glob("*.json"))}


def run_key(cfg: Config, scale: str, seed: int) -> str:
    """The stage folder of a run: every setting its numbers depend on (a digest of the config)."""
    digest = hashlib.sha256(json.dumps(asdict(cfg), sort_keys=True, default=str).encode()).hexdigest()[:12]
    return f"{scale}-seed{seed}-{digest}"


def run_folder(scale: str, seed: int) -> Path:
    """Where `reproduce` keeps the stages of the `scale` run with `seed` (and the ablations, diagnosis read them)."""
    return cache_root() / "rwopd" / "runs" / run_key(CONFIGS[scale], scale, seed)


def arm_pool(cfg: Config, seed: int) -> list:
    """The arms' prompts: generated pairs weighted toward the temporal categories (`pool_weights`)."""
    weighted = tuple(c for c, w in zip(CATEGORIES, cfg.pool_weights) for _ in range(w))
    return generate_pairs(cfg.train_pairs, seed=seed + 1000, categories=weighted, prefix="train")


def heldout_tasks(cfg: Config, seed: int) -> list:
    """`cfg.heldout` generated tasks, balanced by category, none of whose SVA is in the training pairs."""
    seen = {p.sva for p in generate_pairs(cfg.train_pairs, seed=seed + 1000, prefix="train")} | \
        {p.sva for p in arm_pool(cfg, seed)}
    heldout = [p for p in generate_pairs(cfg.heldout * 3, seed=seed + 2000, prefix="heldout") if p.sva not in seen]
    return heldout[:cfg.heldout]


def measure_gate(cfg: Config, seed: int = 0) -> dict:
    """The gate, recorded before any arm runs: warm start and teacher pass@1 on the held-out tasks."""
    from proceedings.rwopd.teacher import prepared_models

    teacher, student, tokenizer, build = prepared_models(cfg, seed, progress=True)
    heldout, cache = heldout_tasks(cfg, seed), VerdictCache()
    warm = evaluate_arm(student, tokenizer, heldout, cfg, cache, seed)
    taught = evaluate_arm(teacher, tokenizer, heldout, cfg, cache, seed)
    checks = gate_checks(warm["pass@1"], taught["pass@1"])
    return {"warm_start": warm, "teacher": taught, "checks": checks, "holds": all(checks.values()),
            "heldout": len(heldout), "eval_samples": cfg.eval_samples, "teacher_epochs": cfg.teacher_epochs,
            "build": build}


def gains(rw: dict, sft: dict, opd: dict) -> dict[str, float]:
    """RWOPD's pass@1 gain over the better of SFT and OPD, per temporal category."""
    return {c: rw[f"pass@1_{c}"] - max(sft[f"pass@1_{c}"], opd[f"pass@1_{c}"]) for c in CATEGORIES}


GATE_WARM_START = 0.05  # issue 15: the shared warm start must already pass sometimes (RFT/RWOPD learn from passes)
GATE_TEACHER_RATIO = 2.0  # ... and the teacher must know clearly more than the student it distils into


def gate_checks(warm: float, teacher: float) -> dict[str, bool]:
    """The learning gate on held-out pass@1, recorded before the arms and restated by the verdict; a
    teacher and warm start both at 0 fail it."""
    return {f"warm-start pass@1 >= {GATE_WARM_START}": warm >= GATE_WARM_START,
            f"teacher pass@1 > 0 and >= {GATE_TEACHER_RATIO:g}x the warm start's":
                teacher > 0 and teacher >= GATE_TEACHER_RATIO * warm}


def seed_values(value) -> list:
    """Each seed's value: a combined record keeps a value the seeds disagree on as {"per_seed": [...]}."""
    return value["per_seed"] if isinstance(value, dict) and "per_seed" in value else [value]


def pass_interval(metrics: dict, path: str, intervals: dict | None) -> tuple[float, float]:
    """pass@1's 95 % interval: over seeds (Student-t of the mean, `intervals`) when the record has several,
    else the bootstrap over tasks of the one run."""
    if intervals and f"{path}.pass@1" in intervals:
        return tuple(intervals[f"{path}.pass@1"])
    return tuple(metrics["pass@1_ci"])


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gate first (a sound, unexploitable checker; a student that can learn; a teacher worth
    distilling), then RWOPD beating both baselines, most on temporal properties. With several seeds
    the numbers are means and the margins use the intervals over seeds."""
    sft, opd = baseline["sft"], baseline["opd"]
    warm, teacher = metrics["warm_start"]["pass@1"], metrics["teacher"]["pass@1"]
    gain = gains(metrics, sft, opd)
    rwopd_low = pass_interval(metrics, "metrics", intervals)[0]
    return {
        "gate: every PEC fixture verdict matches its documented answer":
            all(r["ok"] for rows in seed_values(metrics["pec_fixtures"]) for r in rows),
        "gate: no degenerate rollout earned reward": metrics["degenerate_reward"] == 0,
        **{f"gate: {name}": holds for name, holds in gate_checks(warm, teacher).items()},
        "RWOPD pass@1 > SFT with non-overlapping 95% intervals": rwopd_low > pass_interval(sft, "baseline.sft", intervals)[1],
        "RWOPD pass@1 > OPD with non-overlapping 95% intervals": rwopd_low > pass_interval(opd, "baseline.opd", intervals)[1],
        "RWOPD's gain is largest in a temporal category (bounded or unbounded)":
            max(gain["bounded"], gain["unbounded"]) > max(gain["combinational"], 0.0),
    }


# Rollouts an unsound checker paid for (issue 15) and vacuous answers: (candidate, reference). The
# run scores them with its own verdict cache; any reward here is an exploitable checker.
DEGENERATE_ROLLOUTS = (
    ("strong(##1 sig_A)", "sig_C |-> s_eventually sig_D"),
    ("strong(##1 sig_B)", "strong(##1 sig_C)"),
    ("s_eventually(sig_A ##1 sig_B)", "s_eventually(sig_A ##1 sig_C)"),
    ("1'b0", "sig_A |-> sig_B"),
    ("sig_A && !sig_A", "sig_A |=> sig_B"),
    ("sig_A |-> (sig_B || !sig_B)", "sig_A |-> (sig_C || !sig_C)"),
    ("sig_A |-> ##50 sig_B", "##51 sig_B"),
)


def degenerate_reward(cache: VerdictCache, rho: float) -> float:
    """Total reward the run's checker pays to `DEGENERATE_ROLLOUTS` (must be 0)."""
    return sum(cache.reward(" " + candidate, reference, rho) for candidate, reference in DEGENERATE_ROLLOUTS)


def pec_fixture_table() -> list[dict]:
    """Each fixture pair's verdict beside the documented one."""
    rows = []
    for a, b, expected in FIXTURES:
        result = check_equivalence(a, b, timeout_s=60)  # a correctness gate, not a speed test
        rows.append({"a": a, "b": b, "expected": expected, "verdict": result.verdict.value,
                     "proved": result.proved, "ok": result.verdict.value == expected,
                     "seconds": round(result.seconds, 3)})
    return rows


def machine_subset(count: int) -> list:
    """The first `count` valid NL2SVA-Machine tasks (transfer from template English), or [] without data."""
    if count <= 0:
        return []
    from proceedings.core.errors import ProceedingsError
    from proceedings.rwopd.nl2sva import load_nl2sva

    try:
        return [t for t in load_nl2sva("machine") if not t.ref_invalid][:count]
    except ProceedingsError:
        return []


def evaluate_arm(model, tokenizer, tasks, cfg: Config, cache: VerdictCache, seed: int,
                 with_testbench: bool = False, record: Path | None = None) -> dict:
    """pass@1 (unbiased over n samples), CI, relaxed, syntax, per category on `tasks`; with `record`,
    every sample and its verdict is also written there as JSONL (what an arm writes, not only how often it passes)."""
    seed_everything(seed + 7)
    samples = []
    for start in range(0, len(tasks), 8):
        chunk = tasks[start:start + 8]
        samples += sample(model, tokenizer, [format_prompt(t.prompt) for t in chunk], cfg.eval_samples,
                          cfg.arm.max_new_tokens, cfg.eval_temperature)
    testbench_of = (lambda t: t.testbench) if with_testbench else None
    evaluation = evaluate_samples(tasks, samples, cache, testbench_of)
    if record is not None:
        rows = [{"task": task.id, "category": task.category, "reference": reference_of(task), "sample": text,
                 "verdict": result.verdict.value, "message": result.message}
                for task, texts, results in zip(tasks, samples, evaluation.results)
                for text, result in zip(texts, results)]
        atomic_write_text(record, "".join(json.dumps(row) + "\n" for row in rows))
    return evaluation.summary(CATEGORIES)


def plot_arms(arms: dict, logs: dict, folder) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    names = list(arms)
    for i, category in enumerate(CATEGORIES):
        left.bar([j + 0.25 * i for j in range(len(names))], [arms[n][f"pass@1_{category}"] for n in names],
                 width=0.25, label=category)
    overall = [arms[n]["pass@1"] for n in names]
    spread = [[p - arms[n]["pass@1_ci"][0] for n, p in zip(names, overall)],
              [arms[n]["pass@1_ci"][1] - p for n, p in zip(names, overall)]]
    left.errorbar([j + 0.25 for j in range(len(names))], overall, yerr=spread, fmt="o", color="black",
                  label="all (95% CI)")
    left.set_xticks([j + 0.25 for j in range(len(names))], names)
    left.set_ylabel("pass@1 (held-out generated)")
    left.legend(fontsize=7)
    for name, run in logs.items():
        right.plot(run.rewards, label=name)
    right.set_xlabel("step")
    right.set_ylabel("mean PEC reward of rollouts")
    right.legend(fontsize=7)
    fig.tight_layout()
    path = folder / "arms.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [f"rwopd/{folder.name}/arms.png"]


def _notes(arms: dict, start: dict, build: dict, cfg: Config) -> str:
    ranking = sorted(arms, key=lambda m: -arms[m]["pass@1"])
    ranked = ", ".join(f"{m}={arms[m]['pass@1']:.3f}" for m in ranking)
    return (f"Arms ranked by held-out pass@1: {ranked} (shared warm start {start['pass@1']:.3f}). "
            f"Teacher build {build.get('teacher_build_s')} s + student warm-up {build.get('student_warmup_s')} s "
            f"(cached, not in this run's time). Each arm: {cfg.arm.steps} steps x {cfg.arm.batch_prompts} prompts x "
            f"{cfg.arm.rollouts} rollouts. See the README for what the numbers mean at this scale.")
