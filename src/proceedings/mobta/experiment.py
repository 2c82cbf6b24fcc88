"""reproduce(scale): MobTA against bus-only and source-only, with the oracle as the bound (issue 22).

Paper (abstract): with no mobility data from the target city, adding the source city's "bus timetable ->
mobility" task vector to a model fine-tuned on the target's bus timetable generates target trajectories
that beat existing methods and come close to a model fine-tuned on target mobility. Here: one base model,
one fine-tuning recipe for the four task vectors τ_bus^S, τ_mob^S, τ_bus^T, τ_mob^T (the last for the
oracle only); arms θ_0 + τ_bus^T + μ(τ_mob^S - τ_bus^S) (μ = 1 judged; 0.5 and 1.5 reported), bus-only
θ_0 + τ_bus^T (its trips read as person-days), source-only θ_0 + τ_mob^S (in the target grid) and the
oracle θ_0 + τ_mob^T, all sampled alike and scored by JSD against held-out simulated target person-days.
Control: the target's behaviour shifted (`--behaviour-shift`), only the oracle retrained.
"""

from __future__ import annotations

import hashlib
import json
import random
import resource
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from proceedings.core.models import cache_root
from proceedings.core.results import Result, artifact_dir, results_root
from proceedings.core.runtime import atomic_write_text, check_scale, seed_everything
from proceedings.mobta.backbone import Backbone, backbone
from proceedings.mobta.baselines import epr_baseline
from proceedings.mobta.city import City
from proceedings.mobta.diagnostics import cosine, norms, token_nll
from proceedings.mobta.feeds import load_city
from proceedings.mobta.fields import city_fields
from proceedings.mobta.finetuning import Recipe, TrainLog, finetune
from proceedings.mobta.generation import Samples, sample
from proceedings.mobta.metrics import MIN_VALID, REPORTED, Bins, bootstrap_gap, evaluate, real_floor
from proceedings.mobta.simulator import DEFAULT, SHIFTED, person_days
from proceedings.mobta.task_vector import TaskVector
from proceedings.mobta.token_ids import visit_length
from proceedings.mobta.tokenization import TrajTokenizer
from proceedings.mobta.trajectories import Trajectory, as_person_day

CLAIM = ("Adding the source city's bus-to-mobility task vector to a model fine-tuned on the target city's bus "
         "timetable generates target-city person-days that beat bus-only and source-only generation and come "
         "close to a model fine-tuned on target mobility, without any target mobility data.")
PAPER = {"distance_jsd_shanghai": 0.0749, "distance_jsd_wuxi": 0.0847, "distance_jsd_singapore": 0.0855}
PAPER_SOURCE = ("spec §1 quoting a public leaderboard snippet of arXiv 2602.13071 (MobTA 'Distance error', "
                "a JSD, on Shanghai, Wuxi, Singapore); the abstract states no number")
VALIDITY_GATE, ORACLE_GAP, CLOSURE, VALIDITY = 0.90, 0.5, 0.5, 0.90
MU = 1.0  # fixed for the verdict; the other μ are reported, never used to choose (issue 22)
CONTROL_TASK = "mob_T_shifted"  # the behaviour-shift control's fine-tune (target person-days, shifted)


@dataclass
class ExperimentConfig:
    model: str  # "tiny" (random Llama over the format's tokens) or a causal LM spec
    source: str  # "synthetic:<layout>:<seed>", "cairns", "nyc_subway" or a GTFS zip
    target: str
    recipe: Recipe
    grid: int = 16
    cell_format: str = "tokens"  # or "digits": '08:00 r12 c05' in the base's own tokens, no added rows (spec §2.1)
    bus_sequences: int = 2000  # training sequences per bus task (trips drawn with replacement)
    mob_days: int = 2000  # training person-days per mobility task
    eval_days: int = 400  # held-out "real" target person-days
    samples: int = 300  # generated per arm (issue: >= 200)
    mus: tuple[float, ...] = (0.5, 1.0, 1.5)
    length_margin: int = 8  # a sample may run 8 tokens-format tokens (4 visits) past the longest training
    # sequence of its tag; a format whose visit takes more ids gets the same 4 visits' worth (`sampling_limits`)
    sample_batch: int = 100
    bootstrap: int = 200
    control: bool = True  # also run the --behaviour-shift control
    micro_batch: int | None = None  # sequences per forward pass (gradient accumulation; same gradient up to float
    # rounding, so not part of the run-folder key); None: the whole batch at once
    resume: bool = False  # keep checkpoints and finished task vectors in a run folder (staged runs)


CONFIGS = {
    # spec §5 tiny: a 2-layer Llama over the format's vocabulary, full fine-tunes, a synthetic pair. The target
    # is polycentric and twice the source's size, so the source's person-days read in the target grid leave a
    # gap to the oracle (tests/mobta/test_setting.py); 4,000 held-out days keep the real histograms' own noise
    # (5-10 days per simulated person) below the gaps being measured. 200 steps: gate 1 failed with 100 (bus_S
    # 85.5 %, mob_S 87.5 % valid) and with 150 (mob_S 88 %); 200 x 32 at lr 4e-3 gave 92-97.5 % for all four
    # (probed on own-task validity only; lr 2e-3 at 150 steps: bus_S 81 %). One sampling batch of 200 (a bus
    # arm that does not end runs every step once, not twice). The behaviour-shift control (a fifth fine-tune)
    # runs in small only.
    "tiny": ExperimentConfig(
        model="tiny", source="synthetic:monocentric:0", target="synthetic:polycentric:4:40",
        recipe=Recipe(steps=200, batch=32, lr=4e-3, lora_r=None, warmup_steps=10, checkpoint_every=50),
        eval_days=4000, samples=200, sample_batch=200, control=False),
    # SmolLM2-135M + LoRA r=8, Cairns -> NYC subway. The spec's lrs (LoRA 2e-4, rows 1e-3) leave the added rows
    # at the old embeddings' mean (norm 2.2 of a row norm 3.2): measured, 30 steps at 1e-3 / 5e-3 still gave
    # loss 6.3 and 0 % valid person-days, 40 steps at 1e-3 / 2e-2 loss 3.8 (README). Batch 8 to fit 2 cores;
    # the control is a fifth fine-tune (the run folder keeps the others, so it joins a staged run). 600 steps for
    # every fine-tune, chosen on own-task validity only: the 200-step record failed gate 1 (mob_T 57 %, bus_T
    # 71.5 %, mob_S 74.5 %, bus_S 95 %); mob_T, the worst, alone reached 86.5 % at 400 steps and 91 % at 600
    # (probes); the 600-step record gave 100, 92.5, 90 and 84.5 % (bus_S, bus_T, mob_S, mob_T). Rows at 2e-2 re-learn
    # every added row (deltas larger than the rows), which is why MobTA never ends a day; 5e-3 stalls bus_S and 1e-3
    # mob_T (round 12, README "Round 12"), so the rows stay at 2e-2.
    "small": ExperimentConfig(
        model="smollm2-135m", source="cairns", target="nyc_subway",
        recipe=Recipe(steps=600, batch=8, lr=1e-3, new_row_lr=2e-2, lora_r=8, warmup_steps=8, checkpoint_every=10),
        bus_sequences=1280, mob_days=1280, eval_days=4000, samples=200, sample_batch=100, control=True, resume=True),
    # Full scale: any HF causal LM (--model), GPUs via Accelerate; longer fine-tunes, more samples.
    "paper": ExperimentConfig(
        model="smollm2-135m", source="cairns", target="nyc_subway",
        recipe=Recipe(steps=3000, batch=64, lr=2e-4, new_row_lr=1e-3, lora_r=8, checkpoint_every=200),
        bus_sequences=20000, mob_days=20000, eval_days=5000, samples=5000, sample_batch=256,
        mus=(0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5), bootstrap=1000, resume=True),
}


def experiment_config(scale: str, seed: int = 0, cell_format: str | None = None) -> ExperimentConfig:
    """The preset, with the seed and (when given) another cell format."""
    cfg = CONFIGS[check_scale(scale)]
    return replace(cfg, recipe=replace(cfg.recipe, seed=seed), cell_format=cell_format or cfg.cell_format)


@dataclass
class Workload:
    """Both cities, their simulated person-days and every training set, as token ids."""

    source: City
    target: City
    bins: Bins
    mob_source: list[Trajectory]
    real: dict[str, list[Trajectory]]  # "train"/"eval" target person-days, per behaviour ("", "shifted")
    sequences: dict[str, list[list[int]]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


def load_workload(cfg: ExperimentConfig, seed: int) -> Workload:
    """Ingest both timetables, simulate person-days (shared behaviour; target also shifted)."""
    t0 = time.perf_counter()
    source, target = load_city(cfg.source, cfg.grid), load_city(cfg.target, cfg.grid)
    t1 = time.perf_counter()
    fields_s, fields_t = city_fields(source, seed), city_fields(target, seed + 1)
    mob_source = person_days(fields_s, cfg.mob_days, seed + 10, DEFAULT)
    real = {"train": person_days(fields_t, cfg.mob_days, seed + 11, DEFAULT),
            "eval": person_days(fields_t, cfg.eval_days, seed + 12, DEFAULT)}
    if cfg.control:
        real["shifted train"] = person_days(fields_t, cfg.mob_days, seed + 13, SHIFTED)
        real["shifted eval"] = person_days(fields_t, cfg.eval_days, seed + 14, SHIFTED)
    t2 = time.perf_counter()
    simulated = cfg.mob_days * (2 + 2 * cfg.control) + cfg.eval_days * (1 + cfg.control)
    return Workload(source, target, Bins.for_city(target.cell_centres_km()), mob_source, real,
                    timings={"ingest_s": t1 - t0, "simulate_person_days_per_s": simulated / (t2 - t1)})


def encode_tasks(cfg: ExperimentConfig, base: Backbone, work: Workload, seed: int) -> None:
    """Every fine-tune's training set as token ids (bus trips drawn with replacement to the common size)."""
    pick = random.Random(seed)
    encode = lambda days, tag: [base.ids.ids(base.tokenizer.encode(d, tag)) for d in days]  # noqa: E731
    work.sequences = {"bus_S": encode(pick.choices(work.source.bus_trips, k=cfg.bus_sequences), "bus"),
                      "bus_T": encode(pick.choices(work.target.bus_trips, k=cfg.bus_sequences), "bus"),
                      "mob_S": encode(work.mob_source, "mob"), "mob_T": encode(work.real["train"], "mob")}
    if cfg.control:
        work.sequences[CONTROL_TASK] = encode(work.real["shifted train"], "mob")


def sampling_limits(cfg: ExperimentConfig, base: Backbone, work: Workload) -> dict[str, int]:
    """`length_limits` with the margin in the format's ids: `cfg.length_margin` / 2 visits of the longest ids."""
    return length_limits(work, cfg.length_margin * visit_length(base.ids, base.tokenizer) // 2)


def length_limits(work: Workload, margin: int) -> dict[str, int]:
    """Per tag, the most new tokens a sample may take: the longest training sequence of that tag (either city)
    plus a margin, so every arm of a tag is sampled alike and a model that never ends is cut, not waited for.
    The control's task does not count: adding the control to a staged run leaves the kept samples' limits as
    they were."""
    longest = {tag: max(len(s) - 1 for task, seqs in work.sequences.items()
                        if task.startswith(tag) and task != CONTROL_TASK for s in seqs)
               for tag in ("bus", "mob")}
    return {tag: n + margin for tag, n in longest.items()}


def ideal_learners(work: Workload, cfg: ExperimentConfig, seed: int) -> dict[str, float]:
    """The mean JSD a perfect learner of each arm's training data would reach on the held-out target days
    (`cfg.samples` days drawn from that data): whether there is a gap for MobTA to close at all, before any
    model is trained (the oracle's gate, on data)."""
    pick = random.Random(seed + 30)
    data = {"oracle": work.real["train"], "source_only": work.mob_source,
            "bus_only": [as_person_day(t) for t in work.target.bus_trips]}
    return {arm: evaluate(pick.sample(days, min(cfg.samples, len(days))), work.real["eval"], work.bins)["mean"]
            for arm, days in data.items()}


def train_vectors(cfg: ExperimentConfig, base: Backbone, work: Workload) -> tuple[dict[str, TaskVector], dict[str, TrainLog], float]:
    """One recipe for every task; each fine-tune becomes a dense task vector (mean build seconds returned).

    With `cfg.resume` the run folder keeps each fine-tune's checkpoint and finished vector, so an
    interrupted run continues where it stopped.
    """
    vectors, logs, build_s = {}, {}, []
    new_ids = None if cfg.recipe.lora_r is None else base.ids.new_ids or None  # digits: no added rows to train
    folder = run_folder(cfg, base) if cfg.resume else None
    for task, sequences in work.sequences.items():
        if folder and (folder / f"{task}.safetensors").exists():
            vectors[task] = TaskVector.load(folder / f"{task}.safetensors")
            logs[task] = TrainLog(**json.loads((folder / f"{task}.log.json").read_text()))
            continue
        model, logs[task] = finetune(base.model, sequences, cfg.recipe, base.pad_id, new_ids,
                                     checkpoint=folder / f"{task}.pt" if folder else None, desc=f"fine-tune {task}",
                                     micro_batch=cfg.micro_batch)
        meta, t0 = base.meta(task), time.perf_counter()
        vectors[task] = (TaskVector.between(base.model, model, meta) if cfg.recipe.lora_r is None
                         else TaskVector.from_lora(model, meta))
        build_s.append(time.perf_counter() - t0)
        if folder:
            vectors[task].save(folder / f"{task}.safetensors")
            atomic_write_text(folder / f"{task}.log.json", json.dumps(asdict(logs[task])))
        del model
    return vectors, logs, float(np.mean(build_s)) if build_s else float("nan")


TRAINING = ("model", "source", "target", "recipe", "grid", "cell_format", "bus_sequences", "mob_days")
SAMPLING = ("samples", "mus", "length_margin", "sample_batch")


def run_folder(cfg: ExperimentConfig, base: Backbone, fields: tuple[str, ...] = TRAINING) -> Path:
    """$PROCEEDINGS_CACHE/mobta/runs/<hash of what the fine-tunes depend on>: checkpoints and finished vectors;
    with `fields=TRAINING + SAMPLING` a subfolder for each arm's samples (so a change of the evaluation alone,
    or of the sampling alone, keeps the fine-tunes)."""
    config = asdict(cfg)

    def key(names: tuple[str, ...]) -> str:
        # the tokens format was the only one until round 16: leaving it out of its keys keeps recorded run folders
        chosen = {k: config[k] for k in names if not (k == "cell_format" and config[k] == "tokens")}
        return hashlib.sha256(json.dumps([chosen, base.base_hash], default=str).encode()).hexdigest()[:12]

    folder = cache_root() / "mobta" / "runs" / key(TRAINING)
    return folder if fields == TRAINING else folder / f"samples-{key(fields)}"


def arm_vectors(vectors: dict[str, TaskVector], mus: tuple[float, ...]) -> dict[str, tuple[TaskVector, str]]:
    """Each arm's task vector and the tag it is sampled with, in the order a staged run samples them: the gate's
    arms (each fine-tune on its own task) first, then MobTA at the judged μ, then the reported μ."""
    arms = {"bus_S": (vectors["bus_S"], "bus"), "source_only": (vectors["mob_S"], "mob"),
            "bus_only": (vectors["bus_T"], "bus"), "oracle": (vectors["mob_T"], "mob")}
    arms.update({f"mobta_mu{mu:g}": (vectors["bus_T"] + mu * (vectors["mob_S"] - vectors["bus_S"]), "mob")
                 for mu in sorted(mus, key=lambda mu: mu != MU)})
    if CONTROL_TASK in vectors:
        arms["oracle_shifted"] = (vectors[CONTROL_TASK], "mob")
    return arms


def sample_arms(cfg: ExperimentConfig, base: Backbone, arms: dict, limits: dict[str, int],
                seed: int) -> tuple[dict[str, Samples], dict]:
    """Every arm merged densely and sampled with the same settings and seed, at most `limits[tag]` new tokens
    (with `cfg.resume`, each arm's samples are kept in the run folder, so a staged run does not sample an arm
    twice)."""
    out, speed = {}, {"apply_s": [], "sample_tokens_per_s": []}
    folder = run_folder(cfg, base, TRAINING + SAMPLING) if cfg.resume else None
    for name, (vector, tag) in arms.items():
        kept = folder / f"samples-{name}.json" if folder else None
        if kept and kept.exists():
            out[name] = Samples.from_dict(json.loads(kept.read_text()))
        else:
            t0 = time.perf_counter()
            model = vector.apply_to(base.model)
            speed["apply_s"].append(time.perf_counter() - t0)
            out[name] = sample(model, base.tokenizer, base.ids, tag, cfg.samples, seed, limits[tag],
                               cfg.sample_batch, desc=f"sample {name}")
            del model
            if kept:
                atomic_write_text(kept, json.dumps(out[name].to_dict()))
        speed["sample_tokens_per_s"].append(out[name].tokens / out[name].wall_s)
    return out, {k: float(np.mean(v)) if v else float("nan") for k, v in speed.items()}


DIAGNOSED = (f"mobta_mu{MU:g}", "bus_only", "source_only", "oracle")


def arm_diagnostics(cfg: ExperimentConfig, base: Backbone, arms: dict, work: Workload, days: int = 200) -> dict:
    """Why an arm fails: each arm's next-token NLL and right-kind mass on held-out target person-days (all
    prompted with `<mob>`, bus-only too), per token kind; and the norms of the arithmetic's parts."""
    folder = run_folder(cfg, base, TRAINING + SAMPLING) if cfg.resume else None
    kept = folder / f"token-nll-{days}.json" if folder else None
    if kept and kept.exists():
        nll = json.loads(kept.read_text())
    else:
        held_out = [base.tokenizer.encode(d, "mob") for d in work.real["eval"][:days]]
        nll = {name: token_nll(arms[name][0].apply_to(base.model), base.tokenizer, base.ids, held_out)
               for name in DIAGNOSED}
        if kept:
            atomic_write_text(kept, json.dumps(nll))
    bus_t, bus_s, mob_s, mob_t = (arms[name][0] for name in ("bus_only", "bus_S", "source_only", "oracle"))
    parts = {"tau_bus_T": bus_t, "tau_bus_S": bus_s, "tau_mob_S": mob_s, "shift_S (tau_mob_S - tau_bus_S)": mob_s - bus_s}
    return {"held_out_token_nll": nll, "norms": {name: norms(v) for name, v in parts.items()},
            "cosines": {"tau_bus_T vs tau_bus_S": cosine(bus_t, bus_s), "tau_mob_S vs tau_mob_T": cosine(mob_s, mob_t),
                        "shift_S vs shift_T": cosine(mob_s - bus_s, mob_t - bus_t)}}


def person_days_of(samples: Samples) -> list[Trajectory]:
    """Bus-only's trips are read as person-days (issue 22); every other arm samples person-days."""
    return [as_person_day(t) for t in samples.valid] if samples.tag == "bus" else samples.valid


def scores(samples: dict[str, Samples], real: list[Trajectory], bins: Bins, arms: tuple[str, ...]) -> dict[str, dict]:
    """JSD table and validity per arm against one real set; an arm with too few valid samples gets no JSD (None)."""
    table = {}
    for name in arms:
        days = person_days_of(samples[name])
        row = evaluate(days, real, bins) if len(days) >= MIN_VALID else dict.fromkeys((*REPORTED, "mean"))
        table[name] = {**row, "validity": samples[name].validity}
    return table


def gap_interval(ours: list[Trajectory], other: list[Trajectory], real: list[Trajectory], bins: Bins,
                 reps: int, seed: int) -> list[float | None]:
    """The bootstrap interval of the other arm's mean JSD minus ours; None when either lacks valid samples."""
    if min(len(ours), len(other)) < MIN_VALID:
        return [None, None]
    return list(bootstrap_gap(ours, other, real, bins, reps, seed))


def closure(best: float, method: float, oracle: float) -> float | None:
    """(better baseline - method) / (better baseline - oracle): the share of the gap the method closes."""
    return (best - method) / (best - oracle) if oracle < best < float("inf") and method < float("inf") else None


def reproduce(scale: str, seed: int = 0, cell_format: str | None = None) -> Result:
    """Data -> four matched fine-tunes -> task arithmetic -> sampling -> JSD against held-out target days."""
    cfg = experiment_config(scale, seed, cell_format)
    seed_everything(seed)
    tokenizer = TrajTokenizer(cfg.grid, cell_format=cfg.cell_format)
    base = backbone(cfg.model, tokenizer, seed)
    work = load_workload(cfg, seed)
    encode_tasks(cfg, base, work, seed)
    vectors, logs, build_s = train_vectors(cfg, base, work)
    arms = arm_vectors(vectors, cfg.mus)
    limits = sampling_limits(cfg, base, work)
    samples, speed = sample_arms(cfg, base, arms, limits, seed)

    judged = tuple(a for a in arms if a not in ("bus_S", "oracle_shifted"))
    table = scores(samples, work.real["eval"], work.bins, judged)
    mobta = f"mobta_mu{MU:g}"
    own_task = {"bus_S": samples["bus_S"].validity, "mob_S": samples["source_only"].validity,
                "bus_T": samples["bus_only"].validity, "mob_T": samples["oracle"].validity}
    days = {name: person_days_of(samples[name]) for name in judged}
    gaps = {other: gap_interval(days[mobta], days[other], work.real["eval"], work.bins, cfg.bootstrap, seed)
            for other in ("bus_only", "source_only")}
    epr_days, fitted = epr_baseline(work.mob_source, work.source.cell_centres_km(),
                                    city_fields(work.target, seed + 1), cfg.samples, seed + 20)
    epr = evaluate(epr_days, work.real["eval"], work.bins)

    better = min(("bus_only", "source_only"), key=lambda a: _jsd(table[a]["mean"]))
    metrics = {
        "mean_jsd": table[mobta]["mean"], "validity": table[mobta]["validity"],
        "jsd": {m: v for m, v in table[mobta].items() if m not in ("mean", "validity")},
        "gap_vs_bus_only_ci": gaps["bus_only"], "gap_vs_source_only_ci": gaps["source_only"],
        "oracle_mean_jsd": table["oracle"]["mean"], "own_task_validity": own_task,
        "own_task_validity_min": min(own_task.values()),
        "closure": closure(_jsd(table[better]["mean"]), _jsd(table[mobta]["mean"]), _jsd(table["oracle"]["mean"])),
        "mu_curve": {f"{mu:g}": {"mean_jsd": table[f"mobta_mu{mu:g}"]["mean"],
                                 "validity": table[f"mobta_mu{mu:g}"]["validity"]} for mu in cfg.mus},
        "arms": table, "epr_reported_not_judged": {**epr, "fitted": fitted.to_dict()},
        "real_vs_real_floor": real_floor(work.real["eval"], work.bins, seed),
        "ideal_learner_mean_jsd": ideal_learners(work, cfg, seed),
        "invalid_reasons": {name: dict(s.invalid.most_common(3)) for name, s in samples.items()},
        "diagnostics": arm_diagnostics(cfg, base, arms, work),
        "sample_length_limits": limits,
        "speed": speed_numbers(work, logs, vectors, speed, build_s),
    }
    if cfg.control:
        metrics["control_behaviour_shift"] = control(samples, work, cfg)
    baseline = {"name": f"the better of bus-only and source-only ({better.replace('_', '-')})",
                "mean_jsd": table[better]["mean"], "validity": table[better]["validity"],
                "bus_only_mean_jsd": table["bus_only"]["mean"], "source_only_mean_jsd": table["source_only"]["mean"],
                "jsd": {m: v for m, v in table[better].items() if m not in ("mean", "validity")}}
    out = artifact_dir("mobta", scale)
    artifacts = [plot_arms(table, cfg.mus, out / "jsd.png")]
    return Result(
        system="mobta", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline), paper=PAPER, paper_source=PAPER_SOURCE,
        config={**asdict(cfg), "source_city": work.source.feed_stats, "target_city": work.target.feed_stats,
                "behaviour": DEFAULT.to_dict(), "behaviour_shifted": SHIFTED.to_dict(),
                "matched": "one base, one recipe (steps, batch, lr, schedule, seed) and equal data size for every "
                           "fine-tune; every arm merged densely and sampled with the same settings, seed and count"},
        seed=seed, notes=notes(metrics, baseline, cfg),
        artifacts=[str(p.relative_to(results_root())) for p in artifacts], device="cpu",
    )


def _jsd(value: float | None) -> float:
    """A JSD, or +inf for an arm with too few valid samples to have one (it can then win nothing)."""
    return float("inf") if value is None else value


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates (every fine-tune learns its format; the oracle leaves a gap to close), then issue 22's claim."""
    bus, src = _jsd(baseline["bus_only_mean_jsd"]), _jsd(baseline["source_only_mean_jsd"])
    best, oracle, ours = min(bus, src), _jsd(metrics["oracle_mean_jsd"]), _jsd(metrics["mean_jsd"])
    above_zero = lambda interval: interval[0] is not None and interval[0] > 0  # noqa: E731
    return {
        f"gate: every fine-tune gives >= {VALIDITY_GATE:.0%} valid samples on its own task":
            metrics["own_task_validity_min"] >= VALIDITY_GATE,
        f"gate: the oracle's mean JSD <= {ORACLE_GAP} x the better of bus-only and source-only":
            oracle <= ORACLE_GAP * best,
        "MobTA (mu = 1) mean JSD < bus-only's, the gap's 95 % bootstrap interval above 0":
            ours < bus and above_zero(metrics["gap_vs_bus_only_ci"]),
        "MobTA (mu = 1) mean JSD < source-only's, the gap's 95 % bootstrap interval above 0":
            ours < src and above_zero(metrics["gap_vs_source_only_ci"]),
        f"MobTA closes >= {CLOSURE:.0%} of the gap from the better baseline to the oracle":
            oracle < best < float("inf") and (best - ours) / (best - oracle) >= CLOSURE,
        f"MobTA validity >= {VALIDITY:.0%}": metrics["validity"] >= VALIDITY,
    }


def control(samples: dict[str, Samples], work: Workload, cfg: ExperimentConfig) -> dict:
    """The same MobTA, bus-only and source-only samples scored against the shifted target; the oracle retrained."""
    renamed = {**samples, "oracle": samples["oracle_shifted"]}
    table = scores(renamed, work.real["shifted eval"], work.bins, (f"mobta_mu{MU:g}", "bus_only", "source_only", "oracle"))
    best = min(_jsd(table["bus_only"]["mean"]), _jsd(table["source_only"]["mean"]))
    return {"mean_jsd": {a: row["mean"] for a, row in table.items()},
            "closure": closure(best, _jsd(table[f"mobta_mu{MU:g}"]["mean"]), _jsd(table["oracle"]["mean"]))}


def speed_numbers(work: Workload, logs: dict[str, TrainLog], vectors: dict[str, TaskVector], speed: dict,
                  build_s: float) -> dict:
    steps = sum(log.steps for log in logs.values())
    return {"finetune_s_per_step": sum(log.wall_s for log in logs.values()) / steps,
            "finetune_cpu_s_per_step": sum(log.cpu_s for log in logs.values()) / steps,
            "finetune_tokens_per_s": sum(log.tokens for log in logs.values()) / sum(log.wall_s for log in logs.values()),
            "sample_tokens_per_s": speed["sample_tokens_per_s"], "task_vector_build_s": build_s,
            "task_vector_apply_s": speed["apply_s"],
            "task_vector_mb": 4 * vectors["bus_S"].numel() / 2 ** 20,
            "simulate_person_days_per_s": work.timings["simulate_person_days_per_s"],
            "ingest_both_feeds_s": work.timings["ingest_s"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "final_losses": {task: log.losses[-1] for task, log in logs.items()}}


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a (under 50 valid samples)" if value is None else f"{value:.{digits}f}"


def notes(metrics: dict, baseline: dict, cfg: ExperimentConfig) -> str:
    lines = [f"MobTA mean JSD {_fmt(metrics['mean_jsd'])} (validity {metrics['validity']:.0%}) vs bus-only "
             f"{_fmt(baseline['bus_only_mean_jsd'])}, source-only {_fmt(baseline['source_only_mean_jsd'])}, oracle "
             f"{_fmt(metrics['oracle_mean_jsd'])}; real-vs-real floor (two halves of the held-out set) "
             f"{_fmt(metrics['real_vs_real_floor'])}; closure {_fmt(metrics['closure'], 2)}.",
             f"EPR (source-fitted, target fields) {_fmt(metrics['epr_reported_not_judged']['mean'])}: reported, not "
             "judged, because the simulator that made the ground truth is itself EPR-style."]
    if "control_behaviour_shift" in metrics:
        shifted, plain = metrics["control_behaviour_shift"]["closure"], metrics["closure"]
        fell = shifted is not None and plain is not None and shifted < plain
        lines.append(f"Control (target behaviour shifted, oracle retrained): closure {_fmt(shifted, 2)} vs "
                     f"{_fmt(plain, 2)} unshifted" + ("." if fell else "; it did not fall, so transfer is not tested by this run."))
    lines.append("Person-days are simulated (no mobility data is offline); the benchmark can only show that the "
                 "arithmetic transfers a shift that exists in the simulator.")
    return " ".join(lines)


def plot_arms(table: dict, mus: tuple[float, ...], path):
    """Per-metric JSD of every arm (lower is better)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = ("distance", "radius", "duration", "location", "dailyloc", "mean")
    arms = [a for a in ("bus_only", "source_only", *[f"mobta_mu{m:g}" for m in mus], "oracle") if a in table]
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / len(arms)
    for i, arm in enumerate(arms):
        values = [np.nan if table[arm][m] is None else table[arm][m] for m in metrics]
        ax.bar(np.arange(len(metrics)) + i * width, values, width, label=arm)
    ax.set_xticks(np.arange(len(metrics)) + 0.4 - width / 2, metrics)
    ax.set_ylabel("JSD vs held-out target (base 2)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
