"""reproduce(scale): NIV against identity, the algorithmic baseline and its own addall ablation (spec §5).

Story: variation tuples of the split's families -> B1 fitted on the training fonts -> NIV with Property
Embedding (order 2) and NIV-addall trained on the same batches, steps, optimiser and schedule -> mean
point error on held-out families (and on held-out code points of the training families) -> each
held-out family's default instance converted by NIV and by B1 with the family's own ranges,
validated, and rendered by FreeType against the real variable font -> a verdict from those numbers.
"""

from __future__ import annotations

import resource
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.results import Result, artifact_dir
from proceedings.core.runtime import check_scale, seed_everything
from proceedings.core.verdict import interval_end, interval_ends
from proceedings.niv.baselines import AlgorithmicBaseline
from proceedings.niv.convert import AlgorithmicPredictor, ModelPredictor, convert
from proceedings.niv.data import Dataset, build_dataset, extract_font, held_out_code_point, split
from proceedings.niv.evaluate import bootstrap_difference, corner_errors
from proceedings.niv.export import corner_key, make_variable_font
from proceedings.niv.fonts import FontFile, variable_files
from proceedings.niv.model import NIVConfig, default_model_dir
from proceedings.niv.outline_check import defects_at_corners
from proceedings.niv.train import TrainConfig, predict, train
from proceedings.niv.variations import (AXES, axis_signs, corner_locations, font_axes, glyph_outline, simple_glyphs,
                                        total_displacement)

CLAIM = ("Predicted per-point displacements, conditioned by a Property Embedding with axis-interaction terms, turn "
         "a static font into a working variable font that is closer to the real one than identity, classical "
         "algorithmic variation, and the same model without the Property Embedding.")
B0_FACTOR = 0.7  # issue: NIV error <= 0.7 x B0's
TRAIN_FACTOR = 0.5  # gate: NIV training-font error < 0.5 x B0's
MIN_LOSS_DROP = 0.30  # gate: training loss falls >= 30 %
MAX_FALLBACK = 0.05  # issue: <= 5 % of glyphs on the algorithmic fallback
ROUNDTRIP_UNITS = 1.0  # gate: exported true displacements within 1 unit per point


@dataclass
class NivExperimentConfig:
    split: str
    charset: str
    max_points: int
    model: NIVConfig
    train: TrainConfig
    train_eval_glyphs: int = 200  # training-font error on a seeded sample of training glyphs
    convert_charset: str = "ascii"  # held-out default instances are cut to this before conversion
    repair_passes: int = 0  # contour-smoothing passes convert tries on a refused corner (contour_repair), both arms
    bootstrap: int = 1000
    record_seeds: tuple[int, ...] = ()  # the fresh seeds of the preset's next record, fixed before any of them ran


CONFIGS = {
    # tiny (< 60 s): Roboto and Archivo train, Open Sans held out, ASCII, d=64, 2 layers.
    "tiny": NivExperimentConfig(
        split="tiny", charset="ascii", max_points=128,
        model=NIVConfig(d_model=64, n_layers=2, n_heads=4, point_hidden=64, dropout=0.0, max_points=128),
        train=TrainConfig(steps=150, batch=32, lr=3e-3, warmup=15, checkpoint_every=1000)),
    # small: ~25 families, <= 128 points, d=128, 4 layers, lr 3e-3 for both arms. Steps set by the training-font
    # gate (the issue: find a setting that passes): 1,300 steps left it on its edge over seeds 5-7; round 13's rule
    # (README) chose 2,000 from a 1,600-step probe on seed 5 (contrast -0.42, needed <= -3.73). Round 16's rule
    # (results/niv/r16/step_rule.py, training-font numbers only) kept 2,000 and chose six fresh seeds. ~0.35 s/step
    # at load ~3, ~25 min a seed.
    "small": NivExperimentConfig(
        split="small", charset="latin", max_points=128, repair_passes=32, record_seeds=(12, 13, 14, 15, 16, 17),
        model=NIVConfig(d_model=128, n_layers=4, n_heads=4, point_hidden=128, dropout=0.0, max_points=128),
        train=TrainConfig(steps=2000, batch=64, lr=3e-3, warmup=50, checkpoint_every=25)),
    # paper: every installed variable fontpkg family but the held-out ones, the official model size and 80 epochs'
    # worth of steps, on a GPU in bf16 (Accelerate; `accelerate launch` for several), not run here.
    "paper": NivExperimentConfig(
        split="paper", charset="all", max_points=504,
        model=NIVConfig(d_model=256, n_layers=6, n_heads=8, point_hidden=128, dropout=0.1, max_points=504),
        train=TrainConfig(steps=200_000, batch=256, lr=3e-4, warmup=2000, checkpoint_every=2000)),
}
DEVICES = {"tiny": "cpu", "small": "cpu", "paper": "auto"}  # the laptop presets' records are CPU numbers


@dataclass
class Arm:
    name: str
    predictions: list = field(default_factory=list)


def reproduce(scale: str, seed: int = 0) -> Result:
    """B0, B1, NIV-addall and NIV (Property Embedding order 2) on the held-out families."""
    cfg = CONFIGS[check_scale(scale)]
    cfg = replace(cfg, train=replace(cfg.train, seed=seed))
    seed_everything(seed)
    out = artifact_dir("niv", scale)
    families = split(cfg.split)

    data = build_dataset(families["train"], cfg.max_points, cfg.charset, label="train")
    held_out = build_dataset(families["test"], cfg.max_points, cfg.charset, label="held-out")
    train_data = data.where(lambda g: not held_out_code_point(g.unicode))
    codepoint_data = data.where(lambda g: held_out_code_point(g.unicode))
    b1 = AlgorithmicBaseline.fit(train_data.glyphs)

    runs = training_dir(scale, seed)
    niv, niv_record = train(train_data, cfg.model, cfg.train, runs / "niv", label="NIV", device=DEVICES[scale])
    addall_cfg = replace(cfg.model, conditioning="addall")
    addall, addall_record = train(train_data, addall_cfg, cfg.train, runs / "addall", label="NIV-addall",
                                  device=DEVICES[scale])
    b1.save(runs / "niv" / "algorithmic.json")

    held = score_arms(held_out, {"niv": niv, "addall": addall}, b1)
    codepoints = score_arms(codepoint_data, {"niv": niv}, b1) if codepoint_data.glyphs else {}
    sample = sample_glyphs(train_data, cfg.train_eval_glyphs, seed)
    on_train = score_arms(sample, {"niv": niv}, b1)
    ci = bootstrap_difference(held["niv"], held["addall"], "two_axis", cfg.bootstrap, seed)

    conversions = convert_held_out(families["test"], cfg, niv, b1, out)
    roundtrip = export_roundtrip_units(variable_files(families["test"][0])[0], cfg.convert_charset, out)
    speed = speed_numbers(families["test"][0], cfg.charset, niv_record, addall_record, conversions)

    s = {name: errs.summary() for name, errs in held.items()}
    metrics = {
        "error": s["niv"]["error"], "error_wght": s["niv"].get("error_wght", float("nan")),
        "error_two_axis": s["niv"].get("error_two_axis", float("nan")), "advance_error": s["niv"]["advance_error"],
        "per_group": s["niv"], "two_axis_minus_addall_ci": list(ci),
        "raster_iou_wght": float(np.mean([c["iou"]["niv"] for c in conversions])),
        "validated_share": float(np.mean([c["validated"]["niv"] for c in conversions])),
        "fallback_share_max": float(max(c["fallback_share"]["niv"] for c in conversions)),
        "repaired_share_max": float(max(c["repaired_share"].get("niv", 0.0) for c in conversions)),
        "real_outline_refused": int(sum(c["real_refused"]["refused"] for c in conversions)),
        "loss_drop": niv_record.drop(), "train_error": on_train["niv"].summary()["error"],
        "codepoint_split_error": codepoints["niv"].summary()["error"] if codepoints else None,
        "export_roundtrip_max_units": roundtrip,
        "parameters": niv.num_parameters(), "speed": speed, "conversions": conversions,
    }
    baseline = {
        "name": "B1 algorithmic (fitted offset / x-scale / shear); B0 identity and NIV-addall alongside",
        "error": s["b1"]["error"], "error_wght": s["b1"].get("error_wght", float("nan")),
        "error_two_axis": s["b1"].get("error_two_axis", float("nan")),
        "raster_iou_wght": float(np.mean([c["iou"]["b1"] for c in conversions])),
        "b0_error": s["b0"]["error"], "b0_error_wght": s["b0"].get("error_wght", float("nan")),
        "b0_train_error": on_train["b0"].summary()["error"],
        "addall_error": s["addall"]["error"], "addall_error_two_axis": s["addall"].get("error_two_axis", float("nan")),
        "addall_loss_drop": addall_record.drop(), "addall_parameters": addall.num_parameters(),
        "per_group": {"b0": s["b0"], "b1": s["b1"], "addall": s["addall"]}, "b1_strength": b1.strength,
        "codepoint_split": {k: v.summary()["error"] for k, v in codepoints.items()},
    }
    metrics["contrasts"] = contrasts(metrics, baseline)  # per seed, for the verdict's paired seed intervals
    artifacts = [plot_losses(niv_record, addall_record, out / "loss.png")]
    artifacts += [Path(c["waterfall"]) for c in conversions if c.get("waterfall")]
    return Result(
        system="niv", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline), config=asdict(cfg) | {"families": families, "matched": MATCHED},
        seed=seed, artifacts=[f"niv/{scale}/{Path(p).name}" for p in artifacts], notes=notes(metrics, baseline),
    )


def training_dir(scale: str, seed: int) -> Path:
    """Where a seed's two arms train and are saved: seed 0's NIV model is the one `convert` uses by default,
    other seeds train beside it (models/<scale>/seed-<n>/) so they never replace it."""
    runs = default_model_dir(scale).parent
    return runs if seed == 0 else runs / f"seed-{seed}"


MATCHED = ("NIV and NIV-addall share the trunk, point encoder, head, data order (same seed -> same batches), "
           "steps, batch, optimiser and schedule; they differ only in the conditioning module (parameter counts "
           "recorded). B1 is fitted by least squares on the same training glyphs.")


def contrasts(metrics: dict, baseline: dict) -> dict[str, float]:
    """Each two-arm comparison of the verdict as one paired number, the measured side minus the bound it must stay
    under, so each holds below 0. Within a seed the arms are scored on the same glyphs (B0 and NIV on one seeded
    training sample; NIV and NIV-addall trained on the same batches), so over seeds the verdict reads the Student-t
    interval of these per-seed differences (stored as `metrics.contrasts`). Linear: the contrast of the seed means
    is the mean of the seeds' contrasts."""
    m, b = metrics, baseline
    return {
        "b1_minus_b0_wght": b["error_wght"] - b["b0_error_wght"],
        "train_minus_half_b0": m["train_error"] - TRAIN_FACTOR * b["b0_train_error"],
        "error_minus_b0_share": m["error"] - B0_FACTOR * b["b0_error"],
        "error_minus_b1": m["error"] - b["error"],
        "wght_minus_b1": m["error_wght"] - b["error_wght"],
        "two_axis_minus_addall": m["error_two_axis"] - b["addall_error_two_axis"],
        "b1_minus_niv_iou": b["raster_iou_wght"] - m["raster_iou_wght"],
    }


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates first (the export is exact, the outline check accepts real fonts, B1 works, NIV learns), then the
    issue's five conditions. One seed: each comparison on its numbers. Several seeds (`intervals`, the rule fixed
    in round 12 before seeds 5-7 were run): each two-arm comparison holds on the seed means AND across the whole
    95 % Student-t seed interval of its paired per-seed contrast (`contrasts`); a one-arm number (loss drop,
    round trip, refusals, fallback share) holds at its interval's unfavourable end; every seed's bootstrap
    interval over glyphs excludes 0 and every seed's conversions validate."""
    low, high = interval_ends(metrics, baseline, intervals)
    point = contrasts(metrics, baseline)
    if intervals and not any(path.startswith("metrics.contrasts.") for path in intervals):
        raise ProceedingsError("this several-seed record has no per-seed contrasts (made before round 12's paired "
                               "rule); re-judge it with `proceedings niv rejudge RECORD`")

    def below(name: str, strict: bool = True) -> bool:
        """The contrast on the means and the upper end of its seed interval are below 0 (at most 0 if not strict)."""
        ends = (point[name], interval_end(intervals, f"metrics.contrasts.{name}", point[name], "high"))
        return all(end < 0 if strict else end <= 0 for end in ends)

    return {
        f"gate: exported true displacements reproduce the held-out VF within {ROUNDTRIP_UNITS:g} unit":
            high("metrics.export_roundtrip_max_units") <= ROUNDTRIP_UNITS,
        "gate: the outline check (the fallback rule) refuses none of the real held-out VFs' corners":
            high("metrics.real_outline_refused") == 0,
        "gate: B1 beats B0 on held-out wght corners": below("b1_minus_b0_wght"),
        f"gate: NIV training loss falls >= {MIN_LOSS_DROP:.0%}": low("metrics.loss_drop") >= MIN_LOSS_DROP,
        f"gate: NIV training-font error < {TRAIN_FACTOR} x B0's": below("train_minus_half_b0"),
        f"NIV error <= {B0_FACTOR} x B0's (held-out families)": below("error_minus_b0_share", strict=False),
        "NIV error < B1's, overall and on wght corners": below("error_minus_b1") and below("wght_minus_b1"),
        "NIV < NIV-addall on 2-axis corners, 95 % bootstrap interval of the difference below 0":
            below("two_axis_minus_addall") and bootstrap_high(metrics["two_axis_minus_addall_ci"]) < 0,
        "FreeType 64 px raster IoU at wght = +-1: NIV > B1": below("b1_minus_niv_iou"),
        f"every held-out default instance converted by NIV passes validate, <= {MAX_FALLBACK:.0%} on fallback":
            metrics["validated_share"] == 1.0 and high("metrics.fallback_share_max") <= MAX_FALLBACK,
    }


def rejudge(record: dict) -> tuple[dict[str, bool], dict[str, list[float]]]:
    """A several-seed record judged by today's verdict from its seeds' own numbers, contrasts recomputed per seed
    (records made before the seeds stored them): (checks, contrast path -> 95 % seed interval)."""
    from proceedings.core.seeds import mean_record, spreads

    if not (record.get("seeds") or {}).get("per_seed"):
        raise ProceedingsError("not a several-seed record (no seeds.per_seed); a one-seed record is judged as made")
    runs = [{"metrics": {**s["metrics"], "contrasts": contrasts(s["metrics"], s["baseline"])}, "baseline": s["baseline"]}
            for s in record["seeds"]["per_seed"]]
    intervals = {path: list(s.ci95) for path, s in spreads(runs).items()}
    checks = verdict(mean_record([r["metrics"] for r in runs]), mean_record([r["baseline"] for r in runs]), intervals)
    return checks, {path: ends for path, ends in intervals.items() if path.startswith("metrics.contrasts.")}


def bootstrap_high(interval: list | dict) -> float:
    """The upper end of the glyph-bootstrap interval [low, high]; over seeds (`mean_record` keeps differing
    intervals as {"per_seed": [...]}) the largest, so every seed's interval must exclude 0."""
    if isinstance(interval, dict):
        return max(high for _, high in interval["per_seed"])
    return interval[1]


def score_arms(data: Dataset, models: dict, b1: AlgorithmicBaseline) -> dict:
    """CornerErrors of B0, B1 and each model on every (glyph, corner) of `data`."""
    glyphs = data.glyphs
    arms = {"b0": [np.zeros_like(g.displacement) for g in glyphs],
            "b1": [np.stack([b1.predict(g.points, g.contour, c) for c in g.corners]) for g in glyphs]}
    by_corners: dict[bytes, list[int]] = {}
    for i, g in enumerate(glyphs):
        by_corners.setdefault(g.corners.tobytes(), []).append(i)
    for name, model in models.items():
        preds = [None] * len(glyphs)
        for indices in by_corners.values():
            chunk = [glyphs[i] for i in indices]
            for i, p in zip(indices, predict(model, chunk, chunk[0].corners)):
                preds[i] = p
        arms[name] = preds
    return {name: corner_errors(glyphs, preds) for name, preds in arms.items()}


def sample_glyphs(data: Dataset, n: int, seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    keep = rng.choice(len(data.glyphs), size=min(n, len(data.glyphs)), replace=False)
    return Dataset([data.glyphs[i] for i in sorted(keep)])


def cut_default_instance(font_file: FontFile, charset: str, out: Path) -> tuple[Path, Path]:
    """(the real VF subset to `charset`, its default instance as a static TTF)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    from proceedings.niv.data import CHARSETS

    font = TTFont(font_file.path)
    options = subset.Options()
    options.layout_features = []
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=CHARSETS[charset] or range(0x20, 0x250))
    subsetter.subset(font)
    vf_path = out / f"{font_file.slug}-real-VF.ttf"
    font.save(vf_path)
    static = instancer.instantiateVariableFont(TTFont(vf_path), {t: d for t, (_, d, _) in font_axes(font).items()}
                                               | {a.axisTag: a.defaultValue for a in font["fvar"].axes
                                                  if a.axisTag not in AXES})
    static_path = out / f"{font_file.slug}-default.ttf"
    static.save(static_path)
    return vf_path, static_path


def convert_held_out(test_families: list[str], cfg: NivExperimentConfig, niv, b1: AlgorithmicBaseline,
                     out: Path) -> list[dict]:
    """Each held-out family's Roman default instance converted by NIV and by B1 with its own ranges."""
    from fontTools.ttLib import TTFont

    from proceedings.niv.render import raster_iou, waterfall

    rows = []
    for slug in test_families:
        font_file = variable_files(slug)[0]
        real, static = cut_default_instance(font_file, cfg.convert_charset, out)
        ranges = font_axes(TTFont(real, lazy=True))
        axes = ",".join(f"{t}={lo:g}:{d:g}:{hi:g}" for t, (lo, d, hi) in ranges.items())
        names = [n for n in simple_glyphs(TTFont(real))]
        row = {"family": slug, "axes": axes, "validated": {}, "fallback_share": {}, "repaired_share": {},
               "fallback_checks": {}, "clamped": {}, "iou": {}, "seconds": {}, "failure": {},
               "real_refused": real_outline_refusals(TTFont(real))}
        for arm, predictor in (("niv", ModelPredictor(niv)), ("b1", AlgorithmicPredictor(b1))):
            target = out / f"{slug}-{arm}-VF.ttf"
            try:
                done = convert(static, target, axes, predictor, b1, cfg.max_points, repair_passes=cfg.repair_passes)
            except ProceedingsError as err:
                row["validated"][arm], row["fallback_share"][arm], row["iou"][arm] = False, 1.0, 0.0
                row["failure"][arm] = str(err)
                continue
            row["validated"][arm] = True
            row["fallback_share"][arm] = done.fallback_share
            row["repaired_share"][arm] = done.repaired_share
            row["fallback_checks"][arm] = done.fallback_checks
            row["clamped"][arm] = done.clamped
            row["seconds"][arm] = done.seconds
            wght = ranges.get("wght")
            extremes = [v for v in (wght[0], wght[2]) if v != wght[1]] if wght else []
            row["iou"][arm] = float(np.mean([raster_iou(target, real, {"wght": v}, names) for v in extremes])) \
                if extremes else float("nan")
            if arm == "niv":
                row["waterfall"] = str(waterfall(target, out / f"{slug}-niv-waterfall.png"))
        rows.append(row)
    return rows


def real_outline_refusals(vf) -> dict:
    """The outline check (convert's fallback rule) applied to the real VF's own corners: a check that refuses
    the real font's outlines would be stricter than type design itself. {glyphs, refused, per check}."""
    corners = corner_locations(axis_signs(font_axes(vf)))
    names = simple_glyphs(vf)
    per_check, refused = Counter(), 0
    for name in names:
        outline = glyph_outline(vf, name)
        failed = defects_at_corners(outline.points, (total_displacement(vf, outline, c) for c in corners),
                                    outline.on_curve, outline.contour)
        per_check.update(failed)
        refused += bool(failed)
    return {"glyphs": len(names), "refused": refused, "checks": dict(per_check)}


def export_roundtrip_units(font_file: FontFile, charset: str, out: Path) -> float:
    """Gate: the held-out VF's true displacements, exported onto its default instance, reproduce it."""
    from fontTools.ttLib import TTFont

    real, static = cut_default_instance(font_file, charset, out)
    vf = TTFont(real)
    corners = corner_locations(axis_signs(font_axes(vf)))
    truth = {n: {corner_key(c): total_displacement(vf, glyph_outline(vf, n), c) for c in corners}
             for n in simple_glyphs(vf)}
    rebuilt_path = out / f"{font_file.slug}-roundtrip-VF.ttf"
    make_variable_font(TTFont(static), font_axes(vf), truth).save(rebuilt_path)
    rebuilt = TTFont(rebuilt_path)
    worst = 0.0
    for name, per_corner in truth.items():
        outline = glyph_outline(rebuilt, name)
        for c in corners:
            worst = max(worst, float(np.abs(total_displacement(rebuilt, outline, c) - per_corner[corner_key(c)]).max()))
    rebuilt_path.unlink()
    return worst


def speed_numbers(slug: str, charset: str, niv_record, addall_record, conversions: list[dict]) -> dict:
    """Tuples extracted per second (one font, uncached), training speed of both arms, convert seconds, RSS."""
    font_file = variable_files(slug)[0]
    start = time.perf_counter()
    arrays = extract_font(font_file, 504, charset)
    seconds = time.perf_counter() - start
    tuples = len(arrays["name"]) * len(arrays["corners"]) if arrays else 0
    train = {}
    for name, record in (("niv", niv_record), ("addall", addall_record)):
        steps = len(record.losses) * record.log_every
        train[name] = {"s_per_step": record.seconds / max(steps, 1), "points_per_s": record.points / max(record.seconds, 1e-9)}
    return {"extract_tuples_per_s": tuples / seconds, "extract_font": font_file.path.name, "train": train,
            "convert_seconds": conversions[0]["seconds"].get("niv", {}),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def plot_losses(niv_record, addall_record, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    for name, record in (("NIV (Property Embedding, order 2)", niv_record), ("NIV-addall", addall_record)):
        ax.plot(np.arange(1, len(record.losses) + 1) * record.log_every, record.losses, label=name)
    ax.set_xlabel("step")
    ax.set_ylabel("training MSE (x10 em/2 units)")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def notes(metrics: dict, baseline: dict) -> str:
    return (f"Held-out mean point error per 1000 UPM: NIV {metrics['error']:.1f}, NIV-addall {baseline['addall_error']:.1f}, "
            f"B1 {baseline['error']:.1f}, B0 {baseline['b0_error']:.1f}. Raster IoU at wght extremes: NIV "
            f"{metrics['raster_iou_wght']:.3f}, B1 {baseline['raster_iou_wght']:.3f}.")
