"""reproduce(scale): the cost of privacy in the error exponent (paper's abstract; spec §5, §8).

Story: exact error curves on the spec's instances (F1 identification, G1 generation, F2/F4
minimality, F3 countable) and on G2 (countable generation) -> audit every mechanism's privacy
exactly -> exponents on the asymptotic window and their ratios to the non-private baseline ->
two-point lower bounds -> Monte Carlo cross-checks -> `verdict`, a pure function of the numbers
the record stores.

Every prediction the verdict compares with is fixed before measuring: the pure-DP band
min{1, ε/ε*} ≤ ratio ≤ min{1, κε/ε*} comes from the sensitivity and the non-private walk law in
closed form (rates.PureBand), not from a fit to the measured ratios.
"""

from __future__ import annotations

import hashlib
import json
import math
import resource
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from proceedings.core.results import Result, artifact_dir
from proceedings.core.runtime import atomic_write_text, check_scale, stopwatch
from proceedings.dplang import plots
from proceedings.dplang.bounds import two_point
from proceedings.dplang.evaluate import ErrorPoint, geometric_grid
from proceedings.dplang.generation import approx_generator, pure_generator
from proceedings.dplang.identification import Identifier, approx_identifier, np_identifier, pure_identifier
from proceedings.dplang.montecarlo import clopper_pearson
from proceedings.dplang.mechanisms import ProposeTestRelease, TruncatedLaplace
from proceedings.dplang.privacy_audit import (CLASS_LIMIT, NoiselessTest, OverspentExponential, OverspentTest, audit,
                                              class_audit, class_count, stability_level_audit)
from proceedings.dplang.rates import PureBand, chernoff_exponent, fit_rate
from proceedings.dplang.subsample_aggregate import SubsampleAggregate
from proceedings.dplang.sweep import PREFIX_SCHEDULES, Arm, PointStore, family, rate_of_schedule, run_grid

ID, GEN = "identification", "generation"
F1_WALK = (0.35, 0.25)  # F1's p_a, p_c: the walk N_a - N_c decides identification (spec §8.3)
# The abstract states no numbers. These are the spec's own prototype measurements on F1 over n in
# [800, 6400] (spec §5, §8.3), i.e. predictions of this project, not the paper's.
SPEC_PROTOTYPE = {
    "np_exponent_f1_spec_window": 0.00843,
    "pure_ratio_eps_0.05": 0.27, "pure_ratio_eps_0.1": 0.49, "pure_ratio_eps_0.2": 0.82, "pure_ratio_eps_0.5": 1.0,
    "pure_ratio_eps_1": 1.0,
    "approx_ratio_eps_0.05_spec_window": 0.12, "approx_ratio_eps_0.1_spec_window": 0.40,
    "approx_ratio_eps_0.2_spec_window": 0.76, "approx_ratio_eps_0.5_spec_window": 0.96,
    "approx_ratio_eps_1_spec_window": 0.99, "approx_ratio_eps_2_spec_window": 1.0,
}
# The verdict's thresholds, fixed before measuring.
BAND_SLACK = 0.05  # measured pure ratios may leave the closed-form band by 5 % (finite-n transient)
APPROX_FLOOR = 0.9  # approximate DP keeps >= 90 % of the non-private exponent (F1, G1, F2, F4)
COUNTABLE_APPROX_FLOOR = 0.75  # F3: >= 75 % of the exponent per r(n) at eps >= 1 on the top window ...
COUNTABLE_APPROX_MIN_EPS = 1.0  # (the offset A ~ ln(1/delta)/eps must be small against r(n) ~ sqrt(n))
COUNTABLE_APPROX_SLACK = 0.01  # ... and at every eps a ratio that does not fall from the window below
WINDOW_DRIFT = 0.15  # per-r(n) exponent of the top window within 15 % of the window below
LOWER_BOUND_FACTOR = 4.0  # "tight up to constants": bound exponent / achieved <= 4
CHERNOFF_TOLERANCE = 0.05  # spec §8.3
SA_BAND = (0.2, 0.35)  # subsample-and-aggregate: ratio -> 1/4 at every eps (m = 8⌈A⌉ chunks, subsample_aggregate.py)


@dataclass(frozen=True)
class DplangConfig:
    eps_grid: tuple[float, ...] = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0)  # spec §5 small grid
    deltas: tuple[float, ...] = (1e-6, 1e-9)
    n_low: int = 100
    n_high: int = 204_800  # geometric grid, factor 2
    window: int = 4  # the asymptotic window: the last `window` grid points
    spec_window: tuple[int, int] = (800, 6400)  # spec §8.3-8.4 acceptance window
    minimality_eps: tuple[float, ...] = (0.1, 0.5, 2.0)  # F2/F4 arms
    countable_n_high: int = 51_200
    countable_schedules: tuple[str, ...] = ("sqrt", "cbrt", "log")
    countable_eps: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0)  # F3 pure and approx arms (sqrt schedule)
    sa_chunk_sizes: tuple[int, ...] = (1000, 2000, 4000, 8000)  # subsample-and-aggregate: n = m × chunk size
    mc_ns: tuple[int, ...] = (100, 400)
    countable_generation_mc_ns: tuple[int, ...] = (20, 50)  # G2 errors are >= 1e-3 only at small n
    mc_trials: int = 10_000
    audit_n: int = 8  # exhaustive privacy audits: every dataset of this size
    class_limit: int = CLASS_LIMIT  # release-branch class audits: most representatives one audit may score
    realizable_n: int = 500  # spec §8.5
    realizable_gen_n: int = 200
    seed: int = 0


CONFIGS = {
    "tiny": DplangConfig(eps_grid=(0.1, 0.5, 1.0), deltas=(1e-6,), n_high=25_600, minimality_eps=(0.5,),
                         countable_n_high=6400, countable_schedules=("sqrt", "cbrt"), countable_eps=(0.2, 1.0),
                         mc_ns=(100,), mc_trials=2000, audit_n=6, realizable_gen_n=200, class_limit=100_000),
    "small": DplangConfig(),
    "paper": DplangConfig(n_high=1_638_400, countable_n_high=204_800, mc_trials=1_000_000, audit_n=12),
}


def reproduce(scale: str, seed: int = 0) -> Result:
    """Approximate DP keeps the non-private exponent; pure DP pays a min{1, ε/ε*} factor."""
    cfg = replace(CONFIGS[check_scale(scale)], seed=seed)
    out = artifact_dir("dplang", scale)
    ns = geometric_grid(cfg.n_low, cfg.n_high)
    countable_ns = geometric_grid(cfg.n_low, cfg.countable_n_high)

    plan = grid_plan(cfg, ns, countable_ns)
    store = PointStore(point_cache(plan, cfg.seed, out))  # resumable: finished arms are skipped
    with stopwatch() as grid_time:
        run_grid(plan, store, seed=cfg.seed)
    audits = privacy_audits(cfg)  # after the resumable grid: an interrupted run repeats only these
    audits["classes"] = release_branch_audits(cfg)

    identification = exponent_table(store, "f1", ID, cfg, ns)
    countable_generation = countable_generation_table(store, cfg, ns, countable_ns)
    generation = exponent_table(store, "g1", GEN, cfg, ns)
    minimality = minimality_rates(store, cfg, ns)
    countable = countable_rates(store, cfg, countable_ns)
    lower = lower_bound_table(store, cfg, ns)
    aggregate = subsample_aggregate_table(cfg)
    agreement = {**monte_carlo_agreement(store, cfg), **subsample_aggregate_agreement(cfg)}
    realizable = realizable_checks(store, cfg)
    speed = speed_table(store, cfg, ns, grid_time.wall_s, grid_time.cpu_s)
    band = PureBand.of_walk(*F1_WALK, sensitivity=1)

    measured, baseline = record_numbers(identification, generation, minimality, countable, countable_generation, lower,
                                        aggregate, agreement, audits, realizable,
                                        max_log_error_rise(store, cfg, ns, countable_ns), band, speed)
    details = {"identification": identification, "generation": generation, "minimality": minimality,
               "countable": countable, "countable_generation": countable_generation, "lower_bounds": lower,
               "subsample_aggregate": aggregate, "monte_carlo_agreement": agreement, "privacy_audits": audits,
               "speed": speed}
    artifacts = make_plots(store, cfg, ns, countable_ns, identification, band, lower, out)
    artifacts.append(atomic_write_text(out / "details.json", json.dumps(details, indent=1, default=str)))
    return Result(
        system="dplang", scale=scale,
        claim="Approximate (eps, delta)-DP recovers the non-private error exponents of agnostic language "
              "identification and generation; pure eps-DP costs a min{1, eps} factor in the exponent.",
        metrics=measured, baseline=baseline, checks=verdict(measured, baseline),
        predicted=SPEC_PROTOTYPE,  # the spec's prototype, not the paper's: the abstract states no numbers
        config=asdict(cfg), seed=seed, artifacts=[f"dplang/{scale}/{p.name}" for p in artifacts],
        notes=notes(cfg, minimality, band),
    )


# ----------------------------------------------------------------------------- the grid


# The modules that compute the stored points: sweep.py and what it imports (a test keeps this in step).
GRID_MODULES = ("distributions", "evaluate", "exact", "exact_sampling", "families", "generation", "identification",
                "languages", "laws", "learner", "mechanisms", "montecarlo", "objectives", "scores", "sweep")


def point_cache(plan: list[tuple[Arm, list[int]]], seed: int, out: Path) -> Path:
    """The resumable store, named by a fingerprint of the grid (arms, sample sizes, seed) and of the code
    that computes its points, so a changed algorithm never reuses stale points while a change to the
    analysis (this module, plots) keeps them; stores of other fingerprints are removed."""
    digest = hashlib.sha256(json.dumps([seed, [[asdict(arm), list(ns)] for arm, ns in plan]], sort_keys=True).encode())
    for module in GRID_MODULES:
        digest.update((Path(__file__).parent / f"{module}.py").read_bytes())
    path = out / f"points-{digest.hexdigest()[:12]}.jsonl"
    for stale in out.glob("points-*.jsonl"):
        if stale != path:
            stale.unlink()
    return path


def grid_plan(cfg: DplangConfig, ns: list[int], countable_ns: list[int]) -> list[tuple[Arm, list[int]]]:
    plan = []
    for fam, task in (("f1", ID), ("f1-mirror", ID), ("g1", GEN), ("g1-mirror", GEN)):
        plan += [(arm, ns) for arm in mechanism_arms(fam, task, cfg.eps_grid, cfg.deltas)]
    for fam in ("f2", "f4"):
        plan += [(arm, ns) for arm in mechanism_arms(fam, ID, cfg.minimality_eps, cfg.deltas[:1])]
    plan += [(Arm("f3", ID, "np", schedule=schedule), countable_ns) for schedule in cfg.countable_schedules]
    plan += [(arm, countable_ns) for arm in mechanism_arms("f3", ID, cfg.countable_eps, cfg.deltas[:1])[1:]]
    plan += [(arm, ns) for arm in mechanism_arms("g2", GEN, cfg.eps_grid, cfg.deltas, COUNTABLE_GENERATION_SCHEDULE)]
    plan.append((Arm("g2", ID, "np", schedule="sqrt"), countable_ns))
    plan.append((Arm("f5", ID, "np"), [cfg.realizable_n]))
    plan.append((Arm("f5", GEN, "np", method="mc", trials=cfg.mc_trials), [cfg.realizable_gen_n]))
    for arm, mc_ns in cross_check_arms(cfg):
        plan += [(arm, list(mc_ns)), (replace(arm, method="mc", trials=cfg.mc_trials), list(mc_ns))]
    return plan


def mechanism_arms(fam: str, task: str, eps_grid, deltas, schedule: str = "sqrt") -> list[Arm]:
    return ([Arm(fam, task, "np", schedule=schedule)] + [Arm(fam, task, "pure", e, schedule=schedule) for e in eps_grid]
            + [Arm(fam, task, "approx", e, d, schedule=schedule) for e in eps_grid for d in deltas])


# G2 generation uses k(n) = ceil(ln n): the menu is capped at 500 items (spec §2.3), and with k(n) = sqrt(n) the
# item L_2 ∩ L_3 that makes G2's generation easy falls off the menu beyond n ≈ 60 000 (13 languages, 90 items here).
COUNTABLE_GENERATION_SCHEDULE = "log"


def cross_check_arms(cfg: DplangConfig) -> list[tuple[Arm, tuple[int, ...]]]:
    """Exact (reduced, enumerated, sandwich) vs Monte Carlo on the real end-to-end algorithm, with the sizes."""
    g2 = [Arm("g2", GEN, "np", schedule=COUNTABLE_GENERATION_SCHEDULE),
          Arm("g2", GEN, "pure", 0.5, schedule=COUNTABLE_GENERATION_SCHEDULE),
          Arm("g2", GEN, "approx", 4.0, cfg.deltas[0], schedule=COUNTABLE_GENERATION_SCHEDULE)]
    return ([(arm, cfg.mc_ns) for arm in (Arm("f1", ID, "pure", 0.5), Arm("f1", ID, "approx", 1.0, cfg.deltas[0]),
                                          Arm("f2", ID, "np"), Arm("g1", GEN, "pure", 0.5), Arm("f4", GEN, "pure", 0.5),
                                          Arm("f3", ID, "np", schedule="sqrt"))]
            + [(arm, cfg.countable_generation_mc_ns) for arm in g2])


# ----------------------------------------------------------------------------- privacy


AUDITED_FAMILIES = ("f1", "f2", "f3", "f4", "g1")
# 1.3ε exponential mechanisms are left out of the broken set: on F2's nested chain a replacement moves
# score differences by at most 3 (not 2Δ = 4), so 1.3ε there is in fact ε-DP (loss <= 0.975ε), and F4
# reaches its range 4 only at n beyond enumeration; they are audited and reported under "overspent_1.3".


def privacy_audits(cfg: DplangConfig) -> dict:
    """Exact audits at every (ε, δ) of the grid: every dataset of size `audit_n` and every single
    replacement on each family, plus propose-test-release's law at every stability level (its release
    branch needs n >= 2Δ(A + 1), beyond enumeration). Broken variants: 2ε exponential mechanism,
    2ε and 1.3ε test noise, a noiseless test, the non-private argmax; each must fail on every family."""
    private, broken, overspent = {}, {}, {}
    for eps in cfg.eps_grid:
        for fam in AUDITED_FAMILIES:
            run = lambda learner, delta=0.0: audit(family(fam), learner, cfg.audit_n, eps, delta).summary()  # noqa: E731
            private[f"eps={eps:g} {fam}/pure-id"] = run(pure_identifier(eps))
            private[f"eps={eps:g} {fam}/pure-gen"] = run(pure_generator(eps))
            broken[f"eps={eps:g} {fam}/pure-2eps-id"] = run(Identifier(OverspentExponential(eps, factor=2.0)))
            broken[f"eps={eps:g} {fam}/np-id"] = run(np_identifier())
            overspent[f"eps={eps:g} {fam}/pure-1.3eps-id"] = run(Identifier(OverspentExponential(eps, factor=1.3)))
        for delta in cfg.deltas:
            setting = f"eps={eps:g} delta={delta:g}"
            tests = {"approx": ProposeTestRelease(eps, delta), "approx-2eps": OverspentTest(eps, delta, factor=2.0),
                     "approx-1.3eps": OverspentTest(eps, delta, factor=1.3), "noiseless": NoiselessTest(eps, delta)}
            levels = {name: stability_level_audit(test, eps, delta) for name, test in tests.items()}
            private[f"{setting} stability levels/approx"] = levels["approx"]
            for fam in AUDITED_FAMILIES:
                run = lambda learner: audit(family(fam), learner, cfg.audit_n, eps, delta).summary()  # noqa: E731
                private[f"{setting} {fam}/approx-id"] = run(approx_identifier(eps, delta))
                private[f"{setting} {fam}/approx-gen"] = run(approx_generator(eps, delta))
                for name in ("approx-2eps", "approx-1.3eps", "noiseless"):
                    found = run(Identifier(tests[name]))
                    broken[f"{setting} {fam}/{name}-id"] = {**found, "passed": found["passed"] and levels[name]["passed"]}
    return {"private": private, "broken": broken, "overspent_1.3": overspent}


def release_branch_audits(cfg: DplangConfig) -> dict:
    """Class audits (exhaustive over datasets with equal law keys) at n = 2Δ(⌈A⌉ + 2), where datasets reach
    stability q = ⌈A⌉ + 1 > A and propose-test-release releases with probability > 1/2, at every (ε, δ) of
    the grid: the private mechanisms on every family and task whose classes fit `class_limit` (the others are
    listed with their count), the broken tests (2ε, 1.3ε, noiseless) on F1 and G1 identification."""
    private, broken, skipped, covered = {}, {}, {}, set()
    for eps in cfg.eps_grid:
        for delta in cfg.deltas:
            setting, bound = f"eps={eps:g} delta={delta:g}", math.ceil(TruncatedLaplace(eps, delta).bound)
            learners = {f"{fam}/approx-{name}": (fam, build(eps, delta)) for fam in AUDITED_FAMILIES
                        for name, build in (("id", approx_identifier), ("gen", approx_generator))}
            learners.update({f"{fam}/{name}-id": (fam, Identifier(test)) for fam in ("f1", "g1") for name, test in
                             (("approx-2eps", OverspentTest(eps, delta, factor=2.0)),
                              ("approx-1.3eps", OverspentTest(eps, delta, factor=1.3)),
                              ("noiseless", NoiselessTest(eps, delta)))})
            for key, (fam, learner) in learners.items():
                instance = family(fam)
                n = 2 * learner.plan(instance.collection, 2).sensitivity * (bound + 2)
                if (cost := class_count(instance, learner, n)) > cfg.class_limit:
                    skipped[f"{setting} {key}"] = {"n": n, "representatives": cost}
                    continue
                result = class_audit(instance, learner, n, eps, delta).summary()
                is_private = key.endswith(("approx-id", "approx-gen"))
                (private if is_private else broken)[f"{setting} {key}"] = result
                covered |= {setting} if is_private else set()
    return {"private": private, "broken": broken, "skipped": skipped, "settings_covered": len(covered),
            "settings": len(cfg.eps_grid) * len(cfg.deltas)}


# ----------------------------------------------------------------------------- rates


def window_fit(points: list[ErrorPoint], g=lambda n: n, side: str = "log_err"):
    return fit_rate([p.n for p in points], [getattr(p, side) for p in points], g=g)


def exponent_table(store: PointStore, fam: str, task: str, cfg: DplangConfig, ns: list[int]) -> dict:
    """Exponents per sample on the last window (and on the spec window) of every arm of one family."""
    spec_ns = [n for n in ns if cfg.spec_window[0] <= n <= cfg.spec_window[1]]
    last = ns[-cfg.window:]
    base = window_fit(store.curve(Arm(fam, task, "np"), last))
    table = {"np": base.summary(), "np_spec": window_fit(store.curve(Arm(fam, task, "np"), spec_ns)).exponent,
             "pure": {}, "pure_spec": {}, "approx": {}, "approx_spec": {}, "min_r2": base.r2}
    for eps in cfg.eps_grid:
        pure = window_fit(store.curve(Arm(fam, task, "pure", eps), last))
        table["pure"][f"{eps:g}"] = pure.summary()
        table["pure_spec"][f"{eps:g}"] = window_fit(store.curve(Arm(fam, task, "pure", eps), spec_ns)).exponent
        table["min_r2"] = min(table["min_r2"], pure.r2)
        for delta in cfg.deltas:
            arm = Arm(fam, task, "approx", eps, delta)
            approx = window_fit(store.curve(arm, last))
            table["approx"].setdefault(f"{delta:g}", {})[f"{eps:g}"] = approx.summary()
            table["approx_spec"].setdefault(f"{delta:g}", {})[f"{eps:g}"] = window_fit(store.curve(arm, spec_ns)).exponent
            table["min_r2"] = min(table["min_r2"], approx.r2)
    return table


def minimality_rates(store: PointStore, cfg: DplangConfig, ns: list[int]) -> dict:
    """F2/F4 exponents per sample. Measured finding: our pure rule pays ≈ (ε/4)·n^(2/3) (the penalty
    margin θ_n·n at sensitivity 2) against the non-private exp(-Θ(n)), a ratio that falls with n."""
    previous, last = ns[-2 * cfg.window + 1:-cfg.window + 1], ns[-cfg.window:]
    table = {}
    for fam in ("f2", "f4"):
        np_last = window_fit(store.curve(Arm(fam, ID, "np"), last))
        np_previous = window_fit(store.curve(Arm(fam, ID, "np"), previous))
        row = {"np": np_last.summary(), "pure": {}, "pure_ratio_previous_window": {}, "approx": {}}
        for eps in cfg.minimality_eps:
            pure, key = Arm(fam, ID, "pure", eps), f"{eps:g}"
            row["pure"][key] = window_fit(store.curve(pure, last)).exponent
            row["pure_ratio_previous_window"][key] = window_fit(store.curve(pure, previous)).exponent / np_previous.exponent
            row["approx"][key] = window_fit(store.curve(Arm(fam, ID, "approx", eps, cfg.deltas[0]), last)).exponent
        table[fam] = row
    return table


def countable_rates(store: PointStore, cfg: DplangConfig, ns: list[int]) -> dict:
    """F3: exponents per unit of r(n) = n/(k(n)+1), fitted on the exact lower sandwich bound.

    Per schedule: the exponent on the top window and on the window below it (their ratio is ~1
    when r(n) is the right rate); the √n arm is also measured against n^(2/3), the wrong rate.
    """
    previous, last = ns[-2 * cfg.window + 1:-cfg.window + 1], ns[-cfg.window:]

    def per_r(arm: Arm, window: list[int], schedule: str):
        rate = lambda n, s=schedule: np.array([rate_of_schedule(s, int(x)) for x in n])  # noqa: E731
        return window_fit(store.curve(arm, window), g=rate, side="log_low")

    table = {"np": {}, "window_ratio": {}, "pure": {}, "approx": {}, "approx_ratio_previous_window": {}}
    for schedule in cfg.countable_schedules:
        arm = Arm("f3", ID, "np", schedule=schedule)
        top = per_r(arm, last, schedule)
        table["np"][schedule] = top.summary()
        table["window_ratio"][schedule] = top.exponent / per_r(arm, previous, schedule).exponent
    sqrt_arm = Arm("f3", ID, "np", schedule="sqrt")
    table["sqrt_against_cbrt_window_ratio"] = (per_r(sqrt_arm, last, "cbrt").exponent
                                               / per_r(sqrt_arm, previous, "cbrt").exponent)
    for eps in cfg.countable_eps:
        table["pure"][f"{eps:g}"] = per_r(Arm("f3", ID, "pure", eps), last, "sqrt").exponent
        approx = Arm("f3", ID, "approx", eps, cfg.deltas[0])
        table["approx"][f"{eps:g}"] = per_r(approx, last, "sqrt").exponent
        table["approx_ratio_previous_window"][f"{eps:g}"] = (per_r(approx, previous, "sqrt").exponent
                                                            / per_r(sqrt_arm, previous, "sqrt").exponent)
    k = PREFIX_SCHEDULES["sqrt"](ns[-1])
    band = PureBand.of_walk(*family("f3").competitors(k), sensitivity=1)
    table["band"] = {"eps_star": band.eps_star, "kappa": band.kappa}
    return table


def countable_generation_table(store: PointStore, cfg: DplangConfig, ns: list[int], countable_ns: list[int]) -> dict:
    """G2: generation exponents per sample (exact lower sandwich bound) and identification on the same collection.

    Per n, generation's exponent is stable from the window below to the top window (exp(-Θ(n))) while
    identification's falls (exp(-Θ(n/k(n)))). The pure band comes from the walk W = N_3 - N_1 in closed form.
    """
    instance, schedule = family("g2"), COUNTABLE_GENERATION_SCHEDULE
    previous, last = ns[-2 * cfg.window + 1:-cfg.window + 1], ns[-cfg.window:]
    arm = lambda *args: Arm("g2", GEN, *args, schedule=schedule)  # noqa: E731
    fit = lambda a, window: window_fit(store.curve(a, window), side="log_low")  # noqa: E731
    base = fit(arm("np"), last)
    table = {"np": base.summary(), "np_window_ratio": base.exponent / fit(arm("np"), previous).exponent,
             "pure": {f"{e:g}": fit(arm("pure", e), last).exponent for e in cfg.eps_grid},
             "approx": {f"{d:g}": {f"{e:g}": fit(arm("approx", e, d), last).exponent for e in cfg.eps_grid}
                        for d in cfg.deltas}}
    identification = Arm("g2", ID, "np", schedule="sqrt")
    id_previous, id_last = countable_ns[-2 * cfg.window + 1:-cfg.window + 1], countable_ns[-cfg.window:]
    id_top = fit(identification, id_last)
    table["identification_np"] = id_top.summary()
    table["identification_window_ratio"] = id_top.exponent / fit(identification, id_previous).exponent
    table["max_bound_gap_nats"] = max(p.log_high - p.log_low for a, grid in
                                      [(a, ns) for a in mechanism_arms("g2", GEN, cfg.eps_grid, cfg.deltas, schedule)]
                                      for p in store.curve(a, grid[-cfg.window:]))
    band = PureBand.of_walk(*instance.competitors(instance.rival), sensitivity=1)
    table["band"] = {"eps_star": band.eps_star, "kappa": band.kappa}
    return table


def lower_bound_table(store: PointStore, cfg: DplangConfig, ns: list[int]) -> dict:
    """Two-point bounds on (F1, mirrored F1) against the worst of the two achieved exponents."""
    f1, mirror = family("f1"), family("f1-mirror")
    last = ns[-cfg.window:]

    def achieved(arm: Arm) -> float:
        return min(window_fit(store.curve(arm, last)).exponent,
                   window_fit(store.curve(replace(arm, family="f1-mirror"), last)).exponent)

    table = {"np_achieved": achieved(Arm("f1", ID, "np")), "np_bound": two_point(f1, mirror, ns[-1]).exponent,
             "pure_achieved": {}, "pure_bound": {}, "approx_achieved": {}}
    for eps in cfg.eps_grid:
        table["pure_bound"][f"{eps:g}"] = two_point(f1, mirror, ns[-1], eps).exponent
        table["pure_achieved"][f"{eps:g}"] = achieved(Arm("f1", ID, "pure", eps))
        table["approx_achieved"][f"{eps:g}"] = achieved(Arm("f1", ID, "approx", eps, cfg.deltas[0]))
    return table


def subsample_aggregate_table(cfg: DplangConfig) -> dict:
    """F1 identification by subsample-and-aggregate, exact, at n = m × chunk size (m = 8⌈A⌉ chunks)."""
    instance, table = family("f1"), {}
    for eps in cfg.eps_grid:
        mechanism = SubsampleAggregate(np_identifier(), eps, cfg.deltas[0])
        ns = [mechanism.chunks * size for size in cfg.sa_chunk_sizes]
        fit = fit_rate(ns, [mechanism.log_error(instance, n) for n in ns])
        table[f"{eps:g}"] = {"chunks": mechanism.chunks, **fit.summary()}
    return table


# ----------------------------------------------------------------------------- cross-checks


def monte_carlo_agreement(store: PointStore, cfg: DplangConfig) -> dict:
    """Does every exact value (or exact band) lie in the Monte Carlo 99.9% Clopper-Pearson interval?"""
    rows = {}
    for arm, mc_ns in cross_check_arms(cfg):
        for n in mc_ns:
            exact, mc = store.points[(arm, n)], store.points[(replace(arm, method="mc", trials=cfg.mc_trials), n)]
            failures = round(math.exp(mc.log_err) * mc.trials)
            low, high = clopper_pearson(failures, mc.trials, confidence=0.999)
            agrees = math.exp(exact.log_low) <= high and math.exp(exact.log_high) >= low
            rows[f"{arm.label} n={n}"] = {"exact": math.exp(exact.log_err), "mc": failures / mc.trials,
                                          "mc_ci999": [low, high], "agrees": agrees, "exact_method": exact.method}
    return rows


def subsample_aggregate_agreement(cfg: DplangConfig) -> dict:
    """Exact subsample-and-aggregate error vs the mechanism run end to end (Monte Carlo, 99.9 %)."""
    instance, rows = family("f1"), {}
    mechanism = SubsampleAggregate(np_identifier(), 2.0, cfg.deltas[0])
    rng, trials = np.random.default_rng([cfg.seed, 17]), min(cfg.mc_trials, 4000)  # 4,000 x 1,280 draws at most
    for size in (5, 20):
        n = mechanism.chunks * size
        exact = math.exp(mechanism.log_error(instance, n))
        samples = instance.distribution.sample((trials, n), rng)
        failures = int((mechanism.choose_many(samples, instance.collection, rng) != 0).sum())  # L1 is T(D)
        low, high = clopper_pearson(failures, trials, confidence=0.999)
        rows[f"f1 subsample-and-aggregate eps=2 n={n}"] = {"exact": exact, "mc": failures / trials,
                                                           "mc_ci999": [low, high], "agrees": low <= exact <= high,
                                                           "exact_method": "binomial over chunk votes"}
    return rows


def realizable_checks(store: PointStore, cfg: DplangConfig) -> dict:
    identification = store.points[(Arm("f5", ID, "np"), cfg.realizable_n)]
    generation = store.points[(Arm("f5", GEN, "np", method="mc", trials=cfg.mc_trials), cfg.realizable_gen_n)]
    return {"np_id_log_error": identification.log_err,
            "np_gen_failures": round(math.exp(generation.log_err) * generation.trials),
            "np_gen_trials": generation.trials}


def max_log_error_rise(store: PointStore, cfg: DplangConfig, ns: list[int], countable_ns: list[int]) -> dict:
    """Largest rise of log error from one n to the next on any exact curve, and the largest amount by
    which a pure arm's error falls below the non-private error (both <= 0 when all is well)."""
    rise, below = -math.inf, -math.inf
    groups = [("f1", ID, cfg.eps_grid, cfg.deltas, ns, "sqrt"), ("g1", GEN, cfg.eps_grid, cfg.deltas, ns, "sqrt"),
              ("f2", ID, cfg.minimality_eps, cfg.deltas[:1], ns, "sqrt"),
              ("f4", ID, cfg.minimality_eps, cfg.deltas[:1], ns, "sqrt"),
              ("f3", ID, cfg.countable_eps, cfg.deltas[:1], countable_ns, "sqrt"),
              ("g2", GEN, cfg.eps_grid, cfg.deltas, ns, COUNTABLE_GENERATION_SCHEDULE)]
    for fam, task, eps_grid, deltas, grid, schedule in groups:
        base = [p.log_low for p in store.curve(Arm(fam, task, "np", schedule=schedule), grid)]
        for arm in mechanism_arms(fam, task, eps_grid, deltas, schedule):
            points = store.curve(arm, grid)
            values = [p.log_low for p in points]
            rise = max(rise, max(b - a for a, b in zip(values, values[1:])))
            if arm.mechanism == "pure":  # certified only when even the upper bound lies below NP's lower bound
                below = max(below, max(b - p.log_high for p, b in zip(points, base)))
    return {"rise": rise, "pure_below_np": below}


def speed_table(store: PointStore, cfg: DplangConfig, ns: list[int], wall: float, cpu: float) -> dict:
    """Seconds per point: exact (F1 NP, includes the walk law) vs Monte Carlo, and growth in n."""
    exact = store.curve(Arm("f1", ID, "np"), ns)
    seconds = np.array([max(p.seconds, 1e-6) for p in exact])
    growth = float(np.polyfit(np.log(ns[-cfg.window:]), np.log(seconds[-cfg.window:]), 1)[0])
    mc = {n: store.points[(Arm("f1", ID, "pure", 0.5, method="mc", trials=cfg.mc_trials), n)].seconds
          for n in cfg.mc_ns}
    exact_at_mc = {n: store.points[(Arm("f1", ID, "pure", 0.5), n)].seconds for n in cfg.mc_ns}
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    return {"grid_wall_s": wall, "grid_cpu_s": cpu, "peak_rss_mb": peak_mb, "exact_seconds_by_n": dict(zip(map(str, ns), seconds.tolist())),
            "exact_time_growth_exponent": growth, "mc_seconds": {str(k): v for k, v in mc.items()},
            "exact_seconds_at_mc_n": {str(k): v for k, v in exact_at_mc.items()}, "mc_trials": cfg.mc_trials}


# ----------------------------------------------------------------------------- the record


def record_numbers(identification, generation, minimality, countable, countable_generation, lower, aggregate, agreement,
                   audits, realizable, curves, band, speed) -> tuple[dict, dict]:
    """(metrics, baseline) of the record: exactly the numbers `verdict` reads, plus headline extras.

    The baseline (non-private NP-ID/NP-GEN) reports its exponent under every key where the method
    reports a private arm's exponent, so "the baseline's numbers as the method's" is the
    counterfactual "a mechanism with no privacy cost".
    """
    exponent = lambda fit: fit["exponent"]  # noqa: E731
    f1_np, g1_np = exponent(identification["np"]), exponent(generation["np"])
    sqrt_np = exponent(countable["np"]["sqrt"])
    same = lambda value, like: {key: same(value, sub) if isinstance(sub, dict) else value  # noqa: E731
                                for key, sub in like.items()}
    pure = lambda table: {eps: exponent(fit) for eps, fit in table["pure"].items()}  # noqa: E731
    approx = lambda table: {d: {eps: exponent(fit) for eps, fit in row.items()}  # noqa: E731
                            for d, row in table["approx"].items()}
    private = {
        "f1_pure_exponent": pure(identification), "f1_approx_exponent": approx(identification),
        "g1_pure_exponent": pure(generation), "g1_approx_exponent": approx(generation),
        "f3_pure_exponent_per_r": countable["pure"], "f3_approx_exponent_per_r": countable["approx"],
        "f2_approx_exponent": minimality["f2"]["approx"], "f4_approx_exponent": minimality["f4"]["approx"],
        "f1_pure_worst_exponent": lower["pure_achieved"],
        "f1_sa_exponent": {eps: row["exponent"] for eps, row in aggregate.items()},
        "g2_pure_exponent": countable_generation["pure"], "g2_approx_exponent": countable_generation["approx"],
    }
    np_values = {"f1": f1_np, "g1": g1_np, "f3": sqrt_np, "f2": exponent(minimality["f2"]["np"]),
                 "f4": exponent(minimality["f4"]["np"]), "g2": exponent(countable_generation["np"])}
    baseline = {"name": "non-private NP-ID / NP-GEN (same scores, plain argmax)",
                "np_exponent_f1": f1_np, "np_exponent_f1_low": identification["np"]["ci95"][0],
                "np_exponent_g1": g1_np, "np_exponent_g1_low": generation["np"]["ci95"][0],
                "np_exponent_f2": np_values["f2"], "np_exponent_f4": np_values["f4"],
                "f3_np_exponent_per_r": {s: exponent(fit) for s, fit in countable["np"].items()},
                "f3_np_exponent_per_r_low": {s: fit["ci95"][0] for s, fit in countable["np"].items()},
                **{key: same(lower["np_achieved"] if key == "f1_pure_worst_exponent" else np_values[key[:2]], value)
                   for key, value in private.items()},
                "pure_band_f1": {"eps_star": band.eps_star, "kappa": band.kappa},
                "pure_band_f3": countable["band"],
                "np_exponent_g2": np_values["g2"], "np_exponent_g2_low": countable_generation["np"]["ci95"][0],
                "pure_band_g2": countable_generation["band"]}
    spec_keys = {f"pure_ratio_eps_{e}": v / identification["np_spec"] for e, v in identification["pure_spec"].items()}
    spec_keys.update({f"approx_ratio_eps_{e}_spec_window": v / identification["np_spec"]
                      for e, v in next(iter(identification["approx_spec"].values())).items()})
    failed_private = sum(not a["passed"] for a in audits["private"].values())
    classes = audits["classes"]
    passed_broken = sum(a["passed"] for a in audits["broken"].values())
    metrics = {
        **private,
        "pure_lower_bound_exponent": lower["pure_bound"],
        "np_exponent_f1_spec_window": identification["np_spec"], "chernoff_exponent_f1": chernoff_exponent(*F1_WALK),
        **spec_keys,
        "g1_min_exponent_low": min([generation["np"]["ci95"][0]]
                                   + [fit["ci95"][0] for fit in generation["pure"].values()]
                                   + [fit["ci95"][0] for row in generation["approx"].values() for fit in row.values()]),
        "g1_min_r2": generation["min_r2"],
        "f3_approx_ratio_previous_window": countable["approx_ratio_previous_window"],
        "f3_window_ratio": countable["window_ratio"],
        "f3_sqrt_against_cbrt_window_ratio": countable["sqrt_against_cbrt_window_ratio"],
        "g2_np_window_ratio": countable_generation["np_window_ratio"],
        "g2_identification_window_ratio": countable_generation["identification_window_ratio"],
        "g2_max_bound_gap_nats": countable_generation["max_bound_gap_nats"],
        "f2_pure_ratio": {e: v / np_values["f2"] for e, v in minimality["f2"]["pure"].items()},
        "f4_pure_ratio": {e: v / np_values["f4"] for e, v in minimality["f4"]["pure"].items()},
        "f2_pure_ratio_previous_window": minimality["f2"]["pure_ratio_previous_window"],
        "f4_pure_ratio_previous_window": minimality["f4"]["pure_ratio_previous_window"],
        "max_log_error_rise": curves["rise"], "pure_error_below_np": curves["pure_below_np"],
        "monte_carlo_disagreements": sum(not row["agrees"] for row in agreement.values()),
        "monte_carlo_cross_checks": len(agreement),
        "private_audits_failed": failed_private, "private_audits": len(audits["private"]),
        "broken_audits_passed": passed_broken, "broken_audits": len(audits["broken"]),
        "class_audits_failed": sum(not a["passed"] for a in classes["private"].values()),
        "class_audits": len(classes["private"]), "class_audits_skipped": len(classes["skipped"]),
        "class_audit_settings_covered": classes["settings_covered"], "class_audit_settings": classes["settings"],
        "class_min_release_probability": min([a["max_release_probability"] for a in classes["private"].values()],
                                             default=0.0),
        "class_broken_passed": sum(a["passed"] for a in classes["broken"].values()),
        "class_broken": len(classes["broken"]),
        "pure_1.3eps_variant_passes": sum(a["passed"] for a in audits["overspent_1.3"].values()),
        "pure_1.3eps_variant_audits": len(audits["overspent_1.3"]),
        "f5_np_id_log_error": realizable["np_id_log_error"], "f5_np_gen_failures": realizable["np_gen_failures"],
        "grid_wall_s": speed["grid_wall_s"], "grid_cpu_s": speed["grid_cpu_s"], "peak_rss_mb": speed["peak_rss_mb"],
    }
    return metrics, baseline


# ----------------------------------------------------------------------------- verdict


def _band_holds(exponents: dict, np_exponent: float, band: dict) -> bool:
    """Every measured pure ratio inside [min(1, ε/ε*), min(1, κε/ε*)], widened by BAND_SLACK."""
    predicted = PureBand(band["eps_star"], band["kappa"])
    for eps, value in exponents.items():
        low, high = predicted.bounds(float(eps))
        if not low * (1 - BAND_SLACK) <= value / np_exponent <= high * (1 + BAND_SLACK):
            return False
    return True


def _ratios_at_least(exponents: dict, np_exponent: float, floor: float, min_eps: float = 0.0) -> bool:
    """Every exponent (nested by δ or not) >= floor × the non-private one, for ε >= min_eps."""
    for eps, value in exponents.items():
        if isinstance(value, dict):
            if not _ratios_at_least(value, np_exponent, floor, min_eps):
                return False
        elif float(eps) >= min_eps and value < floor * np_exponent:
            return False
    return True


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates, calculators and privacy first; then the claim: pure DP costs a min{1, ε} factor (band
    fixed in closed form), approximate DP costs nothing, on finite and countable collections."""
    m, b = metrics, baseline
    np_f1, np_g1, np_f3 = b["np_exponent_f1"], b["np_exponent_g1"], b["f3_np_exponent_per_r"]["sqrt"]
    pure_bounds = zip(m["f1_pure_worst_exponent"].values(), m["pure_lower_bound_exponent"].values())
    return {
        "gate: the non-private arms learn (exponent 95% intervals above 0 on F1, G1, G2 and per r(n) on every F3 "
        "schedule; F2, F4 exponents > 0)":
            min(b["np_exponent_f1_low"], b["np_exponent_g1_low"], *b["f3_np_exponent_per_r_low"].values(),
                b["np_exponent_f2"], b["np_exponent_f4"], b["np_exponent_g2_low"]) > 0,
        "gate: every exact error curve is non-increasing in n and no pure arm errs less than the non-private one":
            m["max_log_error_rise"] <= 1e-9 and m["pure_error_below_np"] <= 1e-9,
        f"calculators: NP-ID exponent on F1 within {CHERNOFF_TOLERANCE:.0%} of the Chernoff exponent (spec window)":
            abs(m["np_exponent_f1_spec_window"] / m["chernoff_exponent_f1"] - 1) <= CHERNOFF_TOLERANCE,
        "calculators: exact errors agree with Monte Carlo (99.9% interval) at every cross-check":
            m["monte_carlo_disagreements"] == 0 and m["monte_carlo_cross_checks"] > 0,
        "privacy: every private mechanism passes its exact audit (all datasets and neighbours)":
            m["private_audits_failed"] == 0 and m["private_audits"] > 0,
        "privacy: the exact audit fails every deliberately broken variant":
            m["broken_audits_passed"] == 0 and m["broken_audits"] > 0,
        "privacy, release branch: at n = 2Δ(ceil(A)+2), exhaustive over dataset classes, every private "
        "propose-test-release run passes (at least one family per (eps, delta)), releases with probability > 1/2, "
        "and every broken test fails":
            m["class_audits_failed"] == 0 and m["class_audit_settings_covered"] == m["class_audit_settings"] > 0
            and m["class_min_release_probability"] > 0.5 and m["class_broken_passed"] == 0 and m["class_broken"] > 0,
        f"pure DP, F1 identification: ratio between min(1, eps/eps*) and min(1, kappa*eps/eps*) at every eps "
        f"(eps*, kappa in closed form; {BAND_SLACK:.0%} slack)":
            _band_holds(m["f1_pure_exponent"], np_f1, b["pure_band_f1"]),
        "pure DP, G1 generation: ratio inside the same closed-form band at every eps":
            _band_holds(m["g1_pure_exponent"], np_g1, b["pure_band_f1"]),
        "pure DP, F3 countable (sqrt schedule): ratio per r(n) inside its closed-form band at every eps":
            _band_holds(m["f3_pure_exponent_per_r"], np_f3, b["pure_band_f3"]),
        "pure DP: no achieved exponent exceeds the two-point bound for eps-DP algorithms (F1 vs mirror) at any eps":
            all(achieved <= bound for achieved, bound in pure_bounds),
        f"pure DP is tight up to a constant: two-point bound / achieved exponent <= {LOWER_BOUND_FACTOR:g} at every eps":
            all(bound <= LOWER_BOUND_FACTOR * achieved for achieved, bound in
                zip(m["f1_pure_worst_exponent"].values(), m["pure_lower_bound_exponent"].values())),
        f"approx DP, F1 identification: ratio >= {APPROX_FLOOR} at every eps and delta":
            _ratios_at_least(m["f1_approx_exponent"], np_f1, APPROX_FLOOR),
        f"approx DP, G1 generation: ratio >= {APPROX_FLOOR} at every eps and delta":
            _ratios_at_least(m["g1_approx_exponent"], np_g1, APPROX_FLOOR),
        f"approx DP by subsample-and-aggregate, F1: ratio between {SA_BAND[0]} and {SA_BAND[1]} at every eps "
        "(1/4 in closed form: a constant factor, not min(1, eps))":
            all(SA_BAND[0] <= value / np_f1 <= SA_BAND[1] for value in m["f1_sa_exponent"].values()),
        f"approx DP, F2/F4 minimality: ratio >= {APPROX_FLOOR} at every eps":
            _ratios_at_least(m["f2_approx_exponent"], b["np_exponent_f2"], APPROX_FLOOR)
            and _ratios_at_least(m["f4_approx_exponent"], b["np_exponent_f4"], APPROX_FLOOR),
        f"approx DP, F3 countable: ratio per r(n) climbs from the window below at every eps and is >= "
        f"{COUNTABLE_APPROX_FLOOR} at eps >= {COUNTABLE_APPROX_MIN_EPS:g}":
            _ratios_at_least(m["f3_approx_exponent_per_r"], np_f3, COUNTABLE_APPROX_FLOOR, COUNTABLE_APPROX_MIN_EPS)
            and all(m["f3_approx_exponent_per_r"][eps] / np_f3 >= previous - COUNTABLE_APPROX_SLACK
                    for eps, previous in m["f3_approx_ratio_previous_window"].items()),
        f"countable rates: the F3 exponent per r(n) of the top window is within {WINDOW_DRIFT:.0%} of the window "
        "below, for every schedule r(n)":
            all(abs(ratio - 1) <= WINDOW_DRIFT for ratio in m["f3_window_ratio"].values()),
        f"countable rates tell sqrt(n) from n^(2/3): the sqrt-schedule arm measured per n^(2/3) drifts by more "
        f"than {WINDOW_DRIFT:.0%}":
            abs(m["f3_sqrt_against_cbrt_window_ratio"] - 1) > WINDOW_DRIFT,
        "generation decays exponentially for every G1 arm (exponent CI > 0, R^2 >= 0.99)":
            m["g1_min_exponent_low"] > 0 and m["g1_min_r2"] >= 0.99,
        f"countable generation (G2): NP-GEN's exponent per n of the top window is within {WINDOW_DRIFT:.0%} of the "
        f"window below (exp(-Theta(n))) while NP-ID's on the same collection falls by more than {WINDOW_DRIFT:.0%}":
            abs(m["g2_np_window_ratio"] - 1) <= WINDOW_DRIFT and m["g2_identification_window_ratio"] < 1 - WINDOW_DRIFT,
        "pure DP, G2 countable generation: ratio inside its closed-form band at every eps":
            _band_holds(m["g2_pure_exponent"], b["np_exponent_g2"], b["pure_band_g2"]),
        f"approx DP, G2 countable generation: ratio >= {APPROX_FLOOR} at every eps and delta":
            _ratios_at_least(m["g2_approx_exponent"], b["np_exponent_g2"], APPROX_FLOOR),
    }


def notes(cfg: DplangConfig, minimality: dict, band: PureBand) -> str:
    finding = "; ".join(f"{fam.upper()} eps={e}: {minimality[fam]['pure_ratio_previous_window'][e]:.3g} -> "
                        f"{minimality[fam]['pure'][e] / minimality[fam]['np']['exponent']:.3g}"
                        for fam in ("f2", "f4") for e in minimality[fam]["pure"])
    return (
        "Objectives and algorithms are the project's own reconstruction (spec §2, [inferred]); the abstract gives no "
        "numbers, so the 'predicted' column holds the spec's prototype values (ours, not the paper's). Rates are "
        f"universal: exponents are fitted on the last {cfg.window} points of the n grid (n up to {cfg.n_high}; F3 up "
        f"to {cfg.countable_n_high}) and divided by the non-private exponent. Pure-DP band fixed before measuring: "
        f"eps* = {band.eps_star:.3g}, kappa = {band.kappa:.3g} on F1 (rates.PureBand). Measured finding, not a check: "
        "on the minimality instances F2/F4 our pure rule's exponent per n falls with n (penalty margin "
        f"(eps/4)·n^(2/3) against the non-private exp(-Theta(n))): pure/NP ratio, window below -> top window: {finding}. "
        "F3 and G2 errors are exact two-sided bounds (F3: union over competitors; G2: margins over the disjoint "
        "rival and the runner-up valid item); their exponents use the lower bound. G2 generation uses the "
        "ceil(ln n) prefix (the 500-item menu cap). Release-branch privacy audits are exhaustive over classes of "
        "datasets with equal law keys at n = 2Δ(ceil(A)+2); families and settings beyond the class limit are "
        "listed with their counts in details.json."
    )


# ----------------------------------------------------------------------------- figures


def make_plots(store, cfg, ns, countable_ns, identification, band, lower, out) -> list:
    f1_np = {"NP": store.curve(Arm("f1", ID, "np"), ns)}
    g1_np = {"NP": store.curve(Arm("g1", GEN, "np"), ns)}
    d = cfg.deltas[0]
    paths = [plots.error_curves({
        "F1 identification, pure eps-DP": {**f1_np, **{f"pure eps={e:g}": store.curve(Arm("f1", ID, "pure", e), ns)
                                                        for e in cfg.eps_grid}},
        f"F1 identification, approx (eps, {d:g})-DP": {**f1_np, **{
            f"approx eps={e:g}": store.curve(Arm("f1", ID, "approx", e, d), ns) for e in cfg.eps_grid}},
    }, out / "identification_curves.png")]
    paths.append(plots.error_curves({
        "G1 generation, pure eps-DP": {**g1_np, **{f"pure eps={e:g}": store.curve(Arm("g1", GEN, "pure", e), ns)
                                                    for e in cfg.eps_grid}},
        f"G1 generation, approx (eps, {d:g})-DP": {**g1_np, **{
            f"approx eps={e:g}": store.curve(Arm("g1", GEN, "approx", e, d), ns) for e in cfg.eps_grid}},
    }, out / "generation_curves.png"))
    g2 = lambda *args: store.curve(Arm("g2", GEN, *args, schedule=COUNTABLE_GENERATION_SCHEDULE), ns)  # noqa: E731
    paths.append(plots.error_curves({
        "G2 countable generation (upper bounds), pure eps-DP": {
            "NP": g2("np"), **{f"pure eps={e:g}": g2("pure", e) for e in cfg.eps_grid}},
        "G2: generation vs identification (NP, lower bounds)": {
            "NP generation": [replace(p, log_err=p.log_low) for p in g2("np")[:len(countable_ns)]],
            "identification, k(n) = sqrt(n)": [replace(p, log_err=p.log_low) for p in
                                               store.curve(Arm("g2", ID, "np", schedule="sqrt"), countable_ns)]},
    }, out / "countable_generation.png"))
    base = identification["np"]["exponent"]
    series = {"pure (measured)": [fit["exponent"] / base for fit in identification["pure"].values()],
              **{f"approx delta={k} (measured)": [fit["exponent"] / base for fit in row.values()]
                 for k, row in identification["approx"].items()}}
    paths.append(plots.exponent_ratios(cfg.eps_grid, series, band.eps_star, band.kappa, out / "exponent_ratios.png"))
    bands = {s: (np.array([rate_of_schedule(s, n) for n in countable_ns]),
                 store.curve(Arm("f3", ID, "np", schedule=s), countable_ns)) for s in cfg.countable_schedules}
    paths.append(plots.countable_rates(bands, out / "countable_rates.png"))
    achieved = {"pure": list(lower["pure_achieved"].values()), "approx": list(lower["approx_achieved"].values())}
    paths.append(plots.lower_bounds(cfg.eps_grid, achieved, list(lower["pure_bound"].values()), lower["np_bound"],
                                    out / "lower_bounds.png"))
    return paths
