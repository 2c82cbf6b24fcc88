"""`proceedings dplang ...`: private identification/generation, error rates, privacy audits, bounds."""

from __future__ import annotations

import csv
import math
import secrets
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="Differentially private language identification and generation (agnostic setting).",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console()

MECHANISMS = ("np", "pure", "approx")


def _rng(seed: int, secure: bool):
    """Seeded for experiments; --secure draws the seed from the OS (`secrets`)."""
    import numpy as np

    return np.random.Generator(np.random.PCG64(secrets.randbits(128) if secure else seed))


def _learner(task: str, mechanism: str, eps: Optional[float], delta: Optional[float], words: bool):
    from proceedings.dplang import generation, identification
    from proceedings.dplang.data import word_far_level
    from proceedings.dplang.mechanisms import check_delta, check_eps

    if mechanism not in MECHANISMS:
        raise ProceedingsError(f"unknown mechanism '{mechanism}'; choose one of: {', '.join(MECHANISMS)}")
    if mechanism != "np" and eps is None:
        raise ProceedingsError(f"mechanism '{mechanism}' needs --eps (> 0)")
    if mechanism == "approx" and delta is None:
        raise ProceedingsError("mechanism 'approx' needs --delta in (0, 1)")
    privacy = [] if mechanism == "np" else [check_eps(eps)] + ([check_delta(delta)] if mechanism == "approx" else [])
    module = identification if task == "identification" else generation
    build = getattr(module, f"{mechanism}_{'identifier' if task == 'identification' else 'generator'}")
    extra = {"level": word_far_level} if words and task == "generation" else {}
    return build(*privacy, **extra)


def _secure(learner):
    """The same algorithm with a sampler in integer arithmetic: the exponential mechanism's own law;
    propose-test-release with discrete truncated Laplace noise (exact_sampling.py)."""
    from dataclasses import replace

    from proceedings.dplang.mechanisms import (DiscreteProposeTestRelease, ExponentialMechanism, ProposeTestRelease,
                                               SecureExponentialMechanism)

    selector = learner.selector
    if isinstance(selector, ExponentialMechanism):
        return replace(learner, selector=SecureExponentialMechanism(selector.eps))
    if isinstance(selector, ProposeTestRelease):
        return replace(learner, selector=DiscreteProposeTestRelease(selector.eps, selector.delta, secure=True))
    return learner  # the non-private argmax draws no noise


def _instance_and_sample(data: Optional[Path], languages: Optional[Path], family: str, n: int, rng):
    """(instance, sample): the words of DATA against regex languages, or n draws from a spec family."""
    from proceedings.dplang import data as words_data
    from proceedings.dplang.families import instance

    if data is not None:
        sample = words_data.load_words(data)
        corpus = words_data.load_words() if family == "words" else sample
        return words_data.word_instance(corpus, words_data.load_patterns(languages)), sample
    if n < 1:
        raise ProceedingsError(f"--n must be >= 1 (the sample would be empty), got {n}")
    if family == "words":
        inst = words_data.word_instance(words_data.load_words(), words_data.load_patterns(languages))
    else:
        inst = instance(family)
    return inst, list(inst.distribution.sample(n, rng))


def _run(task: str, data, languages, family, n, mechanism, eps, delta, seed, secure) -> None:
    rng = _rng(seed, secure)
    inst, sample = _instance_and_sample(data, languages, family, n, rng)
    learner = _learner(task, mechanism, eps, delta, words=data is not None or family == "words")
    if secure:
        learner = _secure(learner)
    answer = learner.run(sample, inst.collection, rng)
    shown = f"L{answer} = {inst.collection[answer].name}" if isinstance(answer, int) and task == "identification" else answer
    console.print(f"[bold]{task}[/bold] on {len(sample)} examples: {escape(str(shown))}")
    console.print(f"privacy: {learner.guarantee(inst.collection, len(sample))}")
    if data is None:  # a known distribution: say whether the answer meets the agnostic objective
        from proceedings.dplang.objectives import generation_correct, identification_correct

        correct = (identification_correct(answer, inst.target) if task == "identification"
                   else generation_correct(answer, sample, inst.target_languages))
        names = ", ".join(f"L{i} = {inst.collection[i].name}" for i in inst.target.indices)
        console.print(f"target T(D): {escape(names)}; answer {'meets' if correct else 'misses'} the objective")
    if secure:
        console.print("note: the mechanism was sampled in integer arithmetic (no floating-point noise, Mironov "
                      "2012); the sample itself was drawn with a secrets-seeded generator.")


def _register(task: str, name: str, summary: str) -> None:
    """identify and generate take the same inputs; only the task differs."""

    def command(
        data: Optional[Path] = typer.Argument(None, help="Text file whose words are the (private) sample."),
        languages: Optional[Path] = typer.Option(None, help="Regular expressions, one per line (default: six word shapes)."),
        family: str = typer.Option("words", help="Without DATA: sample --n examples from f1..f5, g1 or 'words'."),
        n: int = typer.Option(400, help="Sample size when sampling from a family."),
        mechanism: str = typer.Option("pure", help="np | pure | approx"),
        eps: Optional[float] = typer.Option(1.0, help="Privacy parameter epsilon (> 0)."),
        delta: Optional[float] = typer.Option(None, help="Privacy parameter delta in (0, 1) for 'approx'."),
        seed: int = typer.Option(0, help="Random seed (ignored with --secure)."),
        secure: bool = typer.Option(False, help="Sample the mechanism in integer arithmetic and seed the data draw from the OS."),
    ) -> None:
        _run(task, data, languages, family, n, mechanism, eps, delta, seed, secure)

    command.__doc__ = summary
    app.command(name)(command)


_register("identification", "identify", "Privately identify the language that best explains the data (target T(D)).")
_register("generation", "generate", "Privately generate one unseen element of the target languages.")


def _parse_grid(spec: str) -> list[int]:
    """'100:6400' (geometric, factor 2) or '100,200,500'."""
    from proceedings.dplang.evaluate import geometric_grid

    try:
        if ":" in spec:
            low, high = (int(x) for x in spec.split(":")[:2])
            return geometric_grid(low, high)
        return [int(x) for x in spec.split(",")]
    except ValueError:
        raise ProceedingsError(f"--n '{spec}' is not a grid; write LOW:HIGH (doubling) or N1,N2,...") from None


@app.command()
def rates(
    family: str = typer.Option("f1", help="f1 | f2 | f3 | f4 | f5 | g1 | g2"),
    task: str = typer.Option("identification", help="identification | generation"),
    mechanism: str = typer.Option("np", help="np | pure | approx"),
    eps: Optional[float] = typer.Option(None, help="epsilon for pure/approx."),
    delta: Optional[float] = typer.Option(None, help="delta for approx."),
    n: str = typer.Option("100:6400", help="Sample sizes: LOW:HIGH (doubling) or N1,N2,..."),
    method: str = typer.Option("auto", help="auto | reduced | enumerate | sandwich | mc"),
    trials: int = typer.Option(10_000, help="Monte Carlo trials per point."),
    schedule: str = typer.Option("sqrt", help="Prefix schedule for countable families: sqrt | cbrt | log."),
    seed: int = typer.Option(0, help="Seed of the Monte Carlo streams."),
    out: Optional[Path] = typer.Option(None, help="Write the curve as CSV."),
) -> None:
    """Error curve (exact or Monte Carlo) and the fitted error exponent with a 95% interval."""
    from proceedings.dplang.rates import fit_rate
    from proceedings.dplang.sweep import PREFIX_SCHEDULES, Arm, PointStore, run_grid

    if task not in ("identification", "generation"):
        raise ProceedingsError(f"unknown task '{task}'; choose identification or generation")
    if schedule not in PREFIX_SCHEDULES:
        raise ProceedingsError(f"unknown schedule '{schedule}'; choose one of: {', '.join(PREFIX_SCHEDULES)}")
    _learner(task, mechanism, eps, delta, words=False)  # validates the privacy parameters
    arm = Arm(family, task, mechanism, eps if mechanism != "np" else None,
              delta if mechanism == "approx" else None, schedule, method, trials)
    grid = _parse_grid(n)
    points = run_grid([(arm, grid)], PointStore(None), seed=seed).curve(arm, grid)
    table = Table(title=escape(arm.label))
    for column in ("n", "log10 error", "interval (log10)", "method", "seconds"):
        table.add_column(column)
    for p in points:
        table.add_row(str(p.n), f"{p.log10_err:.4g}", f"[{p.log_low / math.log(10):.4g}, {p.log_high / math.log(10):.4g}]",
                      p.method, f"{p.seconds:.3f}")
    console.print(table)
    finite = [p for p in points if math.isfinite(p.log_err) and p.log_err < 0]
    if len(finite) >= 3:
        fit = fit_rate([p.n for p in finite], [p.log_err for p in finite])
        console.print(f"exponent per sample: {fit.exponent:.5g} (95% CI {fit.low:.5g} .. {fit.high:.5g}), "
                      f"R^2 {fit.r2:.4f}, n in {fit.window}")
    if out is not None:
        with open(out, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(points[0].as_row()))
            writer.writeheader()
            writer.writerows(p.as_row() for p in points)
        console.print(f"curve written to {out}")


AUDITABLE = ("pure-id", "approx-id", "pure-gen", "approx-gen", "np-id", "pure2eps-id", "approx2eps-id", "leaky-approx-id")


@app.command("privacy-audit")
def privacy_audit(
    mechanism: str = typer.Option("pure-id", help=" | ".join(AUDITABLE)),
    family: str = typer.Option("f1", help="f1 | f2 | f4 | g1 (F2 has inclusions: score sensitivity 2)."),
    eps: float = typer.Option(0.5, help="epsilon to check."),
    delta: float = typer.Option(1e-3, help="delta to check (approx mechanisms)."),
    n: int = typer.Option(8, help="Dataset size: every dataset of this size and every neighbour is checked."),
    classes: bool = typer.Option(False, "--classes", help="One dataset per class of equal law keys (reaches "
                                 "n = 2Δ(A+2), where propose-test-release releases; same verdict as enumerating)."),
) -> None:
    """Exact privacy-loss audit on all neighbouring datasets; exits 1 when the bound is violated."""
    from proceedings.dplang.families import instance
    from proceedings.dplang.generation import Generator
    from proceedings.dplang.identification import Identifier
    from proceedings.dplang.mechanisms import check_delta, check_eps
    from proceedings.dplang.privacy_audit import NoiselessTest, OverspentExponential, OverspentTest, audit, class_audit

    check_eps(eps)
    check_delta(delta)
    if n < 1:
        raise ProceedingsError(f"--n must be >= 1, got {n}")
    if mechanism not in AUDITABLE:
        raise ProceedingsError(f"unknown mechanism '{mechanism}'; choose one of: {', '.join(AUDITABLE)}")
    kind, _, task = mechanism.rpartition("-")
    broken = {"pure2eps": lambda: OverspentExponential(eps, factor=2.0),
              "approx2eps": lambda: OverspentTest(eps, delta, factor=2.0), "leaky-approx": lambda: NoiselessTest(eps, delta)}
    if kind in broken:
        learner = Identifier(broken[kind]())
    else:
        learner = _learner("identification" if task == "id" else "generation", kind, eps, delta, words=False)
    approx = "approx" in kind
    result = (class_audit if classes else audit)(instance(family), learner, n, eps, delta if approx else 0.0)
    what = f"classes of datasets of size {n - 1}, extended by one element" if classes else f"datasets of size {n}"
    console.print(f"{mechanism} on {family}: {result.datasets} {what}, {result.pairs} neighbour pairs; "
                  f"release probability up to {result.max_release_probability:.3g}")
    console.print(f"max privacy loss {result.max_privacy_loss:.6g} (eps = {eps:g}); "
                  f"max hockey-stick divergence {result.max_hockey_stick:.3g} (delta = {delta if approx else 0:g})")
    console.print(f"worst neighbours (cell counts): {result.worst_pair[0]} vs {result.worst_pair[1]}")
    console.print("[green]PASS[/green]" if result.passed else "[red]FAIL[/red]: the privacy bound is violated")
    if not result.passed:
        raise typer.Exit(1)


@app.command()
def bounds(
    family: str = typer.Option("f1", help="f1 or g1 (paired with its mirror image)."),
    n: int = typer.Option(400, help="Sample size."),
    eps: Optional[float] = typer.Option(None, help="epsilon for the pure-DP bound."),
) -> None:
    """Two-point lower bounds (non-private and pure eps-DP) for an instance and its mirror."""
    from proceedings.dplang.bounds import two_point
    from proceedings.dplang.sweep import family as named

    if family not in ("f1", "g1"):
        raise ProceedingsError(f"two-point pairs exist for f1 and g1, not '{family}'")
    if n < 1:
        raise ProceedingsError(f"--n must be >= 1, got {n}")
    bound = two_point(named(family), named(f"{family}-mirror"), n, eps)
    console.print(f"BC = {bound.bhattacharyya:.6g}, TV = {bound.total_variation:.6g}")
    console.print(f"any algorithm:  log10 max error >= {bound.log_nonprivate / math.log(10):.5g} "
                  f"(exponent {bound.nonprivate_exponent:.5g}/sample)")
    if bound.log_pure is not None:
        console.print(f"any {eps:g}-DP algorithm: log10 max error >= {bound.log_pure / math.log(10):.5g} "
                      f"(exponent {bound.pure_exponent:.5g}/sample)")
