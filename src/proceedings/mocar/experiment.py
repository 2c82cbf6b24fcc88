"""reproduce(scale): MoCAR against SMART-lite, QCNet-lite and physics on SUMO traffic with a city shift.

Paper (abstract): autoregression over a continuous, coordinate-aware motion-code space, with predicted
codes kept in latent memory, forecasts at the top tier with a single-stage decoder, transfers zero-shot
from AV2 to AV1 and improves on turn-heavy scenarios. Here (issue 25): train on city A (SUMO grid
networks, AV2 protocol); test on held-out A scenes, on A's turn-heavy windows and zero-shot on city B
(spider/random networks, traffic lights, IDM/SL2015) in the AV1 protocol. The learned arms share the
decoder (d, L), have parameters within 10 % (SMART-lite's vocabulary and QCNet-lite's head are sized
to MoCAR's count) and train on the same windows, steps, batch, optimiser and seed with K = 6.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import resource
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from proceedings.core.models import cache_root
from proceedings.core.results import Result, artifact_dir, results_root
from proceedings.core.runtime import atomic_write_bytes, check_scale, seed_everything
from proceedings.mocar.backbone import BackboneConfig
from proceedings.mocar.baselines import constant_velocity, ctrv
from proceedings.mocar.batch import make_batch
from proceedings.mocar.evaluation import code_space_ade, forecast_all, model_device, score, teacher_forced_min_ade6
from proceedings.mocar.metrics import paired_bootstrap
from proceedings.mocar.model import MoCAR, MoCARConfig
from proceedings.mocar.qcnet_lite import QCNetLite
from proceedings.mocar.scenarios import Scenes, load
from proceedings.mocar.sim import SimSpec, generate
from proceedings.mocar.smart_lite import SmartLite, Vocabulary
from proceedings.mocar.tokenizer import PretrainConfig, pretrain
from proceedings.mocar.training import TrainConfig, TrainLog, accelerator, train

CLAIM = ("Rolling out continuous motion codes kept in latent memory (MoCAR) forecasts better than discrete-token "
         "autoregression with re-tokenisation (SMART-lite) and physics, in the training city, on its turn-heavy "
         "scenes and zero-shot in an unseen city with a shorter protocol.")
PAPER_SOURCE = "abstract (no numbers); spec §1: comparison class QCNet / SMART / MTR on minADE6, minFDE6, MR, brier-minFDE"
TURN_SHARE, CV_TURN_MR, CTRV_MARGIN, CODE_ADE_M = 0.12, 0.2, 0.8, 0.3  # gates fixed by issue 25
CI_LEVEL = 0.90


@dataclass(frozen=True)
class ExperimentConfig:
    city_a: SimSpec
    city_b: SimSpec
    test_networks: int  # the last networks of city A are held out; 0 = hold out vehicles instead (tiny)
    mocar: MoCARConfig
    train: TrainConfig
    tokenizer: PretrainConfig = field(default_factory=PretrainConfig)  # MoCAR's code space, before its training
    vocabulary_segments: int = 20000  # training segments the k-disk vocabulary and the tokenizer are fitted on
    max_eval: int = 400  # scenes per evaluation set
    bootstrap: int = 1000
    ablations: tuple[str, ...] = ()  # what `mocar ablate` trains in this run's folder (a longer run, issue 25)
    checkpoints: bool = False
    device: str = "cpu"  # auto, cpu or cuda: where the learned arms train and forecast (Accelerate; paper: auto)

    def to_dict(self) -> dict:
        return asdict(self)


BACKBONE = {"tiny": BackboneConfig(d=32, layers=2, heads=2, fourier=3), "small": BackboneConfig(d=64, layers=2, heads=4),
            "paper": BackboneConfig(d=128, layers=4, heads=8)}
CONFIGS = {
    # issue 25 tiny: 1 grid network x 120 s, tiny models, 100 steps (held-out vehicles of the same network)
    "tiny": ExperimentConfig(
        city_a=SimSpec("A", 1, 120.0, 0, "av2", stride_s=1.0, max_windows=1200),
        city_b=SimSpec("B", 1, 90.0, 100, "av1", stride_s=2.0, max_windows=300),
        test_networks=0, mocar=MoCARConfig(BACKBONE["tiny"], code_dim=8, tokenizer_hidden=64, modes=6),
        train=TrainConfig(steps=100, batch=16, lr=2e-3, warmup=10), tokenizer=PretrainConfig(steps=1000),
        vocabulary_segments=6000, max_eval=64, bootstrap=500),
    # issue 25 small: A = 8 grid networks x 600 s (6 train, 2 held out), B = 4 spider/rand networks
    "small": ExperimentConfig(
        city_a=SimSpec("A", 8, 600.0, 0, "av2", stride_s=2.0, max_windows=1500),
        city_b=SimSpec("B", 4, 300.0, 100, "av1", stride_s=2.0, max_windows=600),
        test_networks=2, mocar=MoCARConfig(BACKBONE["small"], code_dim=16, tokenizer_hidden=128, modes=6, closed_loop=1.0,
                                      closed_loop_start=0.75),  # 300 teacher-forced + 100 closed-loop steps
        train=TrainConfig(steps=400, batch=16, lr=1e-3, warmup=20, checkpoint_every=25),
        max_eval=400, ablations=("beta0", "no_alignment", "frozen_tokenizer"), checkpoints=True),
    # the paper's setting on SUMO: bigger decoder, more data and steps (GPU; AV2 itself via `mocar train --data-dir`)
    "paper": ExperimentConfig(
        city_a=SimSpec("A", 32, 1800.0, 0, "av2", stride_s=1.0, max_windows=10000),
        city_b=SimSpec("B", 8, 900.0, 100, "av1", stride_s=1.0, max_windows=2000),
        test_networks=4, mocar=MoCARConfig(BACKBONE["paper"], code_dim=32, tokenizer_hidden=256, modes=6, closed_loop=1.0),
        train=TrainConfig(steps=60000, batch=64, lr=5e-4, weight_decay=0.1, warmup=1000, checkpoint_every=1000),
        max_eval=20000, ablations=("beta0", "no_alignment", "frozen_tokenizer"), checkpoints=True, device="auto"),
}
ARMS = ("mocar", "smart_lite", "qcnet_lite")


def experiment_config(scale: str, seed: int = 0) -> ExperimentConfig:
    cfg = CONFIGS[check_scale(scale)]
    return replace(cfg, train=replace(cfg.train, seed=seed))


def scenario_dir(spec: SimSpec) -> Path:
    key = hashlib.sha256(json.dumps(asdict(spec), sort_keys=True).encode()).hexdigest()[:12]
    return cache_root() / "mocar" / "scenarios" / f"{spec.city}-{spec.protocol}-{key}"


@dataclass
class Splits:
    train: Scenes
    test: Scenes
    turn: Scenes
    shift: Scenes
    manifests: dict = field(default_factory=dict)
    turn_heavy_share: float = 0.0


def cap(scenes: Scenes, n: int, seed: int) -> Scenes:
    if len(scenes) <= n:
        return scenes
    return scenes.subset(np.sort(np.random.default_rng(seed).choice(len(scenes), n, replace=False)))


def prepare_data(cfg: ExperimentConfig, seed: int) -> Splits:
    """Simulate (cached, resumable) and split: A train / A test (held-out networks or vehicles) / B."""
    dir_a, dir_b = scenario_dir(cfg.city_a), scenario_dir(cfg.city_b)
    manifest_a, manifest_b = generate(dir_a, cfg.city_a), generate(dir_b, cfg.city_b)
    a, _ = load(dir_a)
    b, _ = load(dir_b)
    if cfg.test_networks:
        held = a.network >= cfg.city_a.n_networks - cfg.test_networks
    else:  # one network: hold out a quarter of the vehicles (by id)
        vehicles = np.array([s.split("@")[0] for s in a.scenario_id])
        held = np.array([int(hashlib.md5(v.encode()).hexdigest(), 16) % 4 == 0 for v in vehicles])
    train_set, test_all = a.subset(~held), a.subset(held)
    share = float(test_all.turn_heavy.mean())
    return Splits(train_set, cap(test_all, cfg.max_eval, seed), cap(test_all.subset(test_all.turn_heavy), cfg.max_eval, seed),
                  cap(b, cfg.max_eval, seed), {"A": manifest_a, "B": manifest_b}, share)


def training_segments(scenes: Scenes, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """About n endpoint-normalised segments (points, headings, transitions) of the training windows."""
    idx = np.random.default_rng(seed).choice(len(scenes), min(len(scenes), max(1, n // 20)), replace=False)
    points, headings, transitions = make_batch(scenes, np.sort(idx)).segments()
    return points.reshape(-1, *points.shape[-2:]), headings.reshape(-1, headings.shape[-1]), transitions.reshape(-1, 3)


def param_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def build_arms(cfg: ExperimentConfig, splits: Splits, seed: int) -> dict[str, torch.nn.Module]:
    """MoCAR, and SMART-lite / QCNet-lite sized to MoCAR's parameter count with the same decoder."""
    torch.manual_seed(seed)
    mocar = MoCAR(cfg.mocar)
    target, d = param_count(mocar), cfg.mocar.backbone.d
    smart_backbone = replace(cfg.mocar.backbone, mode_attention=False)  # K samples are independent streams
    points, _, transitions = training_segments(splits.train, cfg.vocabulary_segments, seed)
    fixed = param_count(SmartLite(Vocabulary(points[:1], transitions[:1]), smart_backbone)) - (2 * d + 1)
    size = int(np.clip(round((target - fixed) / (2 * d + 1)), 16, len(points)))
    torch.manual_seed(seed)
    smart = SmartLite(Vocabulary.k_disk(points, transitions, size, seed), smart_backbone)
    future = splits.train.focal.shape[1] - splits.train.observed
    out = future * 2
    fixed = param_count(QCNetLite(cfg.mocar.backbone, cfg.mocar.modes, future // 5, head_hidden=1)) - (d + 1 + out)
    hidden = max(8, round((target - fixed) / (d + 1 + out)))
    torch.manual_seed(seed)
    qcnet = QCNetLite(cfg.mocar.backbone, cfg.mocar.modes, future // 5, head_hidden=hidden)
    return {"mocar": mocar, "smart_lite": smart, "qcnet_lite": qcnet}


def run_folder(cfg: ExperimentConfig) -> Path:
    """The staged run's folder, keyed by data, models and training, not by the ablations (each is one more arm in
    it, so adding one reuses the trained arms) nor the device (the saved state is the same on every device)."""
    given = {k: v for k, v in replace(cfg, ablations=()).to_dict().items() if k != "device"}
    key = hashlib.sha256(json.dumps(given, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return cache_root() / "mocar" / "runs" / key


def evaluation_file(cfg: ExperimentConfig, arm: str) -> Path | None:
    """Where a staged run keeps an arm's evaluation tables (None when the preset does not checkpoint)."""
    return run_folder(cfg) / f"{arm}.eval.pkl" if cfg.checkpoints else None


def av1_horizon(splits: Splits) -> int:
    """Future steps of the city-B (AV1) windows."""
    return splits.shift.focal.shape[1] - splits.shift.observed


def checkpoint(cfg: ExperimentConfig, arm: str) -> Path | None:
    """Where a staged run keeps an arm's training state (None when the preset does not checkpoint)."""
    return run_folder(cfg) / f"{arm}.pt" if cfg.checkpoints else None


def train_arm(name: str, model: torch.nn.Module, scenes: Scenes, train_cfg: TrainConfig, cfg: ExperimentConfig,
              checkpoint: Path | None = None) -> TrainLog:
    """Train one arm on cfg.device; MoCAR's tokenizer is pre-trained on segments first (frozen after it in that
    ablation)."""
    if not isinstance(model, MoCAR):
        return train(model, scenes, train_cfg, checkpoint, desc=f"train {name}", device=cfg.device)
    model.to(accelerator(cfg.device).device)
    segments = training_segments(scenes, cfg.vocabulary_segments, train_cfg.seed)
    pre = pretrain(model.tokenizer, *segments, model.cfg.beta, replace(cfg.tokenizer, seed=train_cfg.seed),
                   checkpoint.with_suffix(".tokenizer.pt") if checkpoint else None)
    model.tokenizer.requires_grad_(not model.cfg.frozen_tokenizer)
    logged = train(model, scenes, train_cfg, checkpoint, desc=f"train {name}", device=cfg.device)
    logged.wall_s += pre["wall_s"]
    logged.cpu_s += pre["cpu_s"]
    return logged


def predictor(model: torch.nn.Module, seed: int, **options):
    """`predict(batch)` on the model's device (SMART-lite samples with a seeded CPU generator)."""
    device = model_device(model)
    if isinstance(model, SmartLite):
        generator = torch.Generator().manual_seed(seed)
        return lambda b: model.predict(b.to(device), generator=generator, **options)
    return lambda b: model.predict(b.to(device), **options)


def evaluate_arm(predict, splits: Splits, horizon_b: int, saved: Path | None = None) -> dict[str, tuple[dict, object]]:
    """Tables on A train (a sample), A test, A turn-heavy and B (AV1 horizon); kept in `saved` (pickle) so a
    staged run evaluates each arm once."""
    if saved is not None and saved.exists():
        return pickle.loads(saved.read_bytes())
    train_sample = cap(splits.train, len(splits.test), 1)
    tables = {"a_train": score(forecast_all(predict, train_sample), train_sample),
              "a_test": score(forecast_all(predict, splits.test), splits.test),
              "a_turn": score(forecast_all(predict, splits.turn), splits.turn),
              "b_av1": score(forecast_all(lambda b: predict(b), splits.shift, horizon_b), splits.shift)}
    if saved is not None:
        atomic_write_bytes(saved, pickle.dumps(tables))
    return tables


def reproduce(scale: str, seed: int = 0) -> Result:
    """Data -> arms matched in size and training -> rollouts -> AV2 metrics on A test, A turn-heavy and B."""
    cfg = experiment_config(scale, seed)
    seed_everything(seed)
    splits = prepare_data(cfg, seed)
    arms = build_arms(cfg, splits, seed)
    logs = {name: train_arm(name, model, splits.train, cfg.train, cfg, checkpoint(cfg, name))
            for name, model in arms.items()}  # all training first: a staged run resumes into the evaluation
    horizon_b = av1_horizon(splits)
    saved = lambda name: evaluation_file(cfg, name)  # noqa: E731
    tables = {name: evaluate_arm(predictor(model, seed), splits, horizon_b, saved(name)) for name, model in arms.items()}
    tables["cv"] = evaluate_arm(constant_velocity, splits, horizon_b)
    tables["ctrv"] = evaluate_arm(lambda b: ctrv(b, cfg.mocar.modes), splits, horizon_b)
    tables["mocar_retokenize"] = evaluate_arm(predictor(retokenizing(arms["mocar"]), seed), splits, horizon_b,
                                              saved("mocar_retokenize"))

    mocar, smart = arms["mocar"], arms["smart_lite"]
    code_ade = tokenizer_ade(mocar, splits.test)
    vocabulary_ade = code_space_ade(lambda p, h: _vocab_round_trip(smart.vocabulary, p, h), splits.test,
                                    device=model_device(smart))
    summary = {name: {split: table for split, (table, _) in arm.items()} for name, arm in tables.items()}
    per = {name: {split: scores for split, (_, scores) in arm.items()} for name, arm in tables.items()}
    ci = lambda split: paired_bootstrap(per["mocar"][split].min_fde6, per["smart_lite"][split].min_fde6,  # noqa: E731
                                        cfg.bootstrap, CI_LEVEL, seed)
    params = {name: param_count(arms[name]) for name in ARMS}
    train_sample = cap(splits.train, len(splits.test), 1)  # the A train sample evaluate_arm scores
    exposure = {"a_train": teacher_forced_min_ade6(mocar, train_sample), "a_test": teacher_forced_min_ade6(mocar, splits.test)}
    metrics = {**headline(summary["mocar"]), "tokenizer_ade": code_ade, "teacher_forced_min_ade6": exposure,
               "fde6_gap_ci": ci("a_test"), "turn_fde6_gap_ci": ci("a_turn"),
               "turn_heavy_share": splits.turn_heavy_share, "cv_turn_mr2": summary["cv"]["a_turn"]["mr2"],
               "cv_train_min_ade6": summary["cv"]["a_train"]["min_ade6"],
               "ctrv_min_ade6": summary["ctrv"]["a_test"]["min_ade6"],
               "ctrv_b_min_fde6": summary["ctrv"]["b_av1"]["min_fde6"],
               "tables": summary, "speed": speed(logs, summary, splits), "parameters": params,
               "train_losses": {name: [log.losses[0], log.losses[-1]] for name, log in logs.items() if log.losses}}
    baseline = {"name": "SMART-lite (discrete tokens, re-tokenised rollout)", **headline(summary["smart_lite"]),
                "vocabulary_ade": vocabulary_ade, "vocabulary_size": len(smart.vocabulary)}
    out = artifact_dir("mocar", scale)
    artifacts = [plot_horizon(summary, out / "error_by_horizon.png")]
    return Result(
        system="mocar", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline), paper={}, paper_source=PAPER_SOURCE,
        config={**cfg.to_dict(), "scenes": {"a_train": len(splits.train), "a_test": len(splits.test),
                                            "a_turn": len(splits.turn), "b_av1": len(splits.shift)},
                "simulation": {k: m["networks"] for k, m in splits.manifests.items()},
                "matched": ("one decoder config (d, L, heads) for MoCAR, SMART-lite and QCNet-lite; SMART-lite's "
                            "vocabulary size and QCNet-lite's head width solved so parameters match MoCAR's "
                            f"({params}); same training windows, steps, batch, AdamW, schedule and seed; K = 6"
                            + ("; MoCAR also trains on its own rollout (closed-loop loss), which costs it more CPU per "
                               "step: steps and data are matched, compute is not (train_cpu_s_per_step)"
                               if cfg.mocar.closed_loop else "")),
                "parameter_ratio_to_mocar": {k: v / params["mocar"] for k, v in params.items()}},
        seed=seed, notes=notes(metrics, baseline, summary),
        artifacts=[str(p.relative_to(results_root())) for p in artifacts], device=str(model_device(mocar)))


def tokenizer_ade(model: MoCAR, scenes: Scenes) -> float:
    """How closely MoCAR's tokenizer rebuilds the scenes' futures (gate (c))."""
    return code_space_ade(lambda p, h: model.tokenizer.decode(model.tokenizer.encode(p, h)[0]), scenes,
                          device=model_device(model))


def retokenizing(model: MoCAR) -> MoCAR:
    """The trained MoCAR with its rollout re-encoding each decoded segment (ablation, no retraining)."""
    clone = MoCAR(replace(model.cfg, retokenize=True))
    clone.load_state_dict(model.state_dict())
    return clone.to(model_device(model)).eval()


def _vocab_round_trip(vocabulary: Vocabulary, points: torch.Tensor, headings: torch.Tensor):
    token = vocabulary.nearest(points, headings[..., -1])
    return vocabulary.points[token], vocabulary.transitions[token]


def headline(arm: dict) -> dict:
    """The numbers the verdict reads, flat: A test table, minFDE6 on B and turn-heavy, minADE6 on A train."""
    a = arm["a_test"]
    return {**{k: a[k] for k in ("min_ade6", "min_fde6", "min_ade1", "min_fde1", "mr2", "brier_min_fde6", "off_road")},
            "b_min_fde6": arm["b_av1"]["min_fde6"], "turn_min_fde6": arm["a_turn"]["min_fde6"],
            "train_min_ade6": arm["a_train"]["min_ade6"]}


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates (data not trivial; both AR arms beat CTRV; both code spaces reproduce futures; MoCAR learns),
    then issue 25's fixed claim on A test, B zero-shot (AV1) and A's turn-heavy windows. Over seeds
    (`reproduce --seeds`) an interval check holds only when every seed's interval is above 0."""
    above = lambda ci: all(low is not None and np.isfinite(low) and low > 0 for low in _lower_ends(ci))  # noqa: E731
    return {
        f"gate (a): >= {TURN_SHARE:.0%} of A test windows are turn-heavy": metrics["turn_heavy_share"] >= TURN_SHARE,
        f"gate (a): CV's MR@2m on A turn-heavy windows >= {CV_TURN_MR}": metrics["cv_turn_mr2"] >= CV_TURN_MR,
        f"gate (b): MoCAR and SMART-lite minADE6 each <= {CTRV_MARGIN} x CTRV's on A test":
            max(metrics["min_ade6"], baseline["min_ade6"]) <= CTRV_MARGIN * metrics["ctrv_min_ade6"],
        f"gate (c): SMART-lite's vocabulary rebuilds A test futures within {CODE_ADE_M} m ADE":
            baseline["vocabulary_ade"] <= CODE_ADE_M,
        f"gate (c): MoCAR's tokenizer rebuilds A test futures within {CODE_ADE_M} m ADE": metrics["tokenizer_ade"] <= CODE_ADE_M,
        "gate: MoCAR learns (minADE6 on A train below constant velocity's)": metrics["train_min_ade6"] < metrics["cv_train_min_ade6"],
        "(1) A test: MoCAR minADE6 < SMART-lite's": metrics["min_ade6"] < baseline["min_ade6"],
        f"(1) A test: MoCAR minFDE6 < SMART-lite's, {CI_LEVEL:.0%} paired bootstrap CI of the gap above 0":
            metrics["min_fde6"] < baseline["min_fde6"] and above(metrics["fde6_gap_ci"]),
        "(1) A test: MoCAR MR@2m <= SMART-lite's": metrics["mr2"] <= baseline["mr2"],
        "(2) B zero-shot (AV1): MoCAR minFDE6 < SMART-lite's": metrics["b_min_fde6"] < baseline["b_min_fde6"],
        "(2) B zero-shot (AV1): MoCAR minFDE6 < CTRV's": metrics["b_min_fde6"] < metrics["ctrv_b_min_fde6"],
        f"(3) A turn-heavy: MoCAR minFDE6 < SMART-lite's, {CI_LEVEL:.0%} CI of the gap above 0":
            metrics["turn_min_fde6"] < baseline["turn_min_fde6"] and above(metrics["turn_fde6_gap_ci"]),
    }


def _lower_ends(ci: list | dict) -> list:
    """The lower end of a run's interval, or of each seed's when seeds were combined ({"per_seed": [...]})."""
    return [interval[0] for interval in ci["per_seed"]] if isinstance(ci, dict) else [ci[0]]


def speed(logs: dict[str, TrainLog], summary: dict, splits: Splits) -> dict:
    sims = [n for m in splits.manifests.values() for n in m["networks"]]
    return {"train_s_per_step": {k: log.wall_s / max(log.steps, 1) for k, log in logs.items()},
            "train_cpu_s_per_step": {k: log.cpu_s / max(log.steps, 1) for k, log in logs.items()},
            "train_scenarios_per_s": {k: log.scenarios / max(log.wall_s, 1e-9) for k, log in logs.items()},
            "inference_ms_per_scenario_a_test": {k: t["a_test"]["ms_per_scenario"] for k, t in summary.items()},
            "sumo_vehicle_states_per_s": float(np.mean([n["vehicle_states_per_s"] for n in sims])),
            "windows_per_s": float(np.mean([n["windows_per_s"] for n in sims])),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def notes(metrics: dict, baseline: dict, summary: dict) -> str:
    t = summary
    arms = ", ".join(f"{k} {t[k]['a_test']['min_ade6']:.2f}/{t[k]['a_test']['min_fde6']:.2f}"
                     for k in ("mocar", "smart_lite", "qcnet_lite", "ctrv", "cv"))
    return (f"A test minADE6/minFDE6 (m): {arms}. B zero-shot (AV1) minFDE6: MoCAR {metrics['b_min_fde6']:.2f}, "
            f"SMART-lite {baseline['b_min_fde6']:.2f}, QCNet-lite {t['qcnet_lite']['b_av1']['min_fde6']:.2f}, CTRV "
            f"{metrics['ctrv_b_min_fde6']:.2f}. Turn-heavy minFDE6: MoCAR {metrics['turn_min_fde6']:.2f}, SMART-lite "
            f"{baseline['turn_min_fde6']:.2f}. Code spaces rebuild A test futures at {metrics['tokenizer_ade']:.3f} m "
            f"(MoCAR tokenizer) and {baseline['vocabulary_ade']:.3f} m (SMART-lite, {baseline['vocabulary_size']} tokens). "
            f"MoCAR's minADE6 with teacher-forced input codes (its training view): "
            f"{metrics['teacher_forced_min_ade6']['a_test']:.2f} m on A test against {metrics['min_ade6']:.2f} m rolled out. "
            "SUMO traffic is lane-centred and rule-following: absolute errors are far below AV2's, only the ordering "
            "of methods is meaningful; 'AV2 -> AV1' is an analog (unseen network family and shorter protocol).")


def plot_horizon(summary: dict, path: Path) -> Path:
    """Displacement of the best mode at each second of the horizon, A test, per arm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, split, title in ((axes[0], "a_test", "A test (AV2, 6 s)"), (axes[1], "b_av1", "B zero-shot (AV1, 3 s)")):
        for name, arm in summary.items():
            seconds = arm[split]["error_by_second"]
            ax.plot(range(1, len(seconds) + 1), list(seconds.values()), marker="o", label=name)
        ax.set_title(title)
        ax.set_xlabel("horizon (s)")
        ax.set_ylabel("best-mode displacement (m)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
