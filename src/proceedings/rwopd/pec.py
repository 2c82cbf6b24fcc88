"""The property-equivalence checker: `check_equivalence(a, b)` -> a verdict, both directions.

Verdicts (issue 6): EQUIVALENT (both directions proved), A_IMPLIES_B, B_IMPLIES_A, DIFFERENT (with
a lasso trace that really separates them, replayed through both monitors), SYNTAX_ERROR (slang's
diagnostic and position), UNSUPPORTED (naming the construct), TIMEOUT; and the spec's
EQUIVALENT_BOUNDED: no separating trace up to depth K, but no proof either (liveness obligations,
or induction did not close) -- its message states K; it is never a pass in pass@k and earns no
reward (issue 15). Two properties that read different signals are never EQUIVALENT.
Semantics: `jasper` (default, FVEval-compatible: unbounded consequent ranges are strong, reset held
inactive so `disable iff` never fires) or `ieee` (weak by default, `disable iff` on a free signal).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from enum import Enum

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.frontend import SvaSyntaxError, Unsupported, parse_assertion

SEMANTICS = ("jasper", "ieee")


class Verdict(str, Enum):
    EQUIVALENT = "EQUIVALENT"
    EQUIVALENT_BOUNDED = "EQUIVALENT_BOUNDED"
    A_IMPLIES_B = "A_IMPLIES_B"
    B_IMPLIES_A = "B_IMPLIES_A"
    DIFFERENT = "DIFFERENT"
    SYNTAX_ERROR = "SYNTAX_ERROR"
    UNSUPPORTED = "UNSUPPORTED"
    TIMEOUT = "TIMEOUT"


@dataclass
class PECResult:
    verdict: Verdict
    proved: bool = False
    depth: int = 0
    counterexample: dict | None = None  # {"steps": [...], "loop_start": l, "separates": "A_not_B"|"B_not_A"}
    message: str = ""  # the diagnostic / the unsupported construct / the timeout
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    a_satisfiable: bool = False  # A_IMPLIES_B only: some trace satisfies A (see `reward`)

    def to_dict(self) -> dict:
        return {"verdict": self.verdict.value, "proved": self.proved, "depth": self.depth,
                "counterexample": self.counterexample, "message": self.message, "warnings": self.warnings,
                "notes": self.notes, "seconds": round(self.seconds, 4),
                "a_satisfiable": self.a_satisfiable}


def check_equivalence(a: str, b: str, signals: dict[str, int] | None = None, testbench: str | None = None,
                      semantics: str = "jasper", depth: int | None = None, timeout_s: float = 5.0) -> PECResult:
    """Compare two assertions (bodies or full `assert property` statements) in both directions."""
    began = time.monotonic()
    result = _check(a, b, signals, testbench, semantics, depth, began + timeout_s)
    result.seconds = time.monotonic() - began
    return result


def _check(a, b, signals, testbench, semantics, depth, deadline) -> PECResult:
    from proceedings.rwopd.equivalence import SolverTimeout

    if semantics not in SEMANTICS:
        raise ProceedingsError(f"unknown semantics '{semantics}'; choose one of: {', '.join(SEMANTICS)}")
    if depth is not None and depth < 1:
        raise ProceedingsError(f"depth must be at least 1 (or omitted for the default), got {depth}")
    if signals is None and testbench is None:
        from proceedings.rwopd.frontend import infer_signals

        signals = infer_signals(a, b)
    parsed = []
    for label, text in (("A", a), ("B", b)):
        try:
            parsed.append(parse_assertion(text, signals=signals, testbench=testbench))
        except SvaSyntaxError as err:
            return PECResult(Verdict.SYNTAX_ERROR, message=f"{label}: {err}")
        except Unsupported as err:
            return PECResult(Verdict.UNSUPPORTED, message=f"{label}: unsupported construct: {err}")
    warnings = [f"A: {w}" for w in parsed[0].warnings] + [f"B: {w}" for w in parsed[1].warnings]
    try:
        return _decide(parsed[0].assertion, parsed[1].assertion, semantics, depth, deadline, warnings)
    except Unsupported as err:
        return PECResult(Verdict.UNSUPPORTED, message=f"unsupported construct: {err}", warnings=warnings)
    except SolverTimeout as err:
        return PECResult(Verdict.TIMEOUT, message=f"no answer within the time budget ({err})", warnings=warnings)


def build_miter(assertion_a, assertion_b, semantics: str = "jasper"):
    """One circuit holding both monitors (shared inputs and $past history): (circuit, out_a, out_b)."""
    from proceedings.rwopd.monitor import Circuit, add_monitor, merge_equivalent_registers

    jasper = semantics == "jasper"
    assertion_a, assertion_b = model_disable(assertion_a, assertion_b, jasper)
    circuit = Circuit()
    out_a = add_monitor(circuit, assertion_a, "A", jasper=jasper)
    out_b = add_monitor(circuit, assertion_b, "B", jasper=jasper)
    out_a, out_b = merge_equivalent_registers(circuit, [out_a, out_b])
    return circuit, out_a, out_b


RESET_NAME = re.compile(r"(^|_)(rst|reset)(_|n|$)", re.IGNORECASE)


def reset_assumption(condition) -> dict[str, int] | None:
    """{reset signal: its inactive value} when `condition` is a reset (`rst`, `!reset_`), else None."""
    negated = condition.op == "lnot"
    core = condition.args[0] if negated else condition
    if core.op == "sig" and core.width == 1 and RESET_NAME.search(core.value):
        return {core.value: 1 if negated else 0}
    return None


def model_disable(assertion_a, assertion_b, jasper: bool):
    """`disable iff` as the checker models it, or Unsupported (issue 15: never dropped silently).

    jasper: JasperGold holds the reset inactive after its reset phase, so a disable condition that
    is a reset signal (`tb_reset`, `!reset_`) becomes the assumption "reset inactive at every tick",
    substituted into both properties. Any other condition, and every condition under ieee, is
    modelled (attempts cancelled while it holds) only when both sides carry the same one.
    """
    from proceedings.rwopd import ir

    if jasper:
        resets = [x.disable is not None and reset_assumption(x.disable) for x in (assertion_a, assertion_b)]
        assumed = {name: value for reset in resets if reset for name, value in reset.items()}
        if any(reset and any(assumed[n] != v for n, v in reset.items()) for reset in resets):
            raise Unsupported("'disable iff' on the same reset with opposite polarities")
        if assumed:
            assertion_a, assertion_b = (ir.substitute_signals(replace(x, disable=None) if reset else x, assumed)
                                        for x, reset in zip((assertion_a, assertion_b), resets))
    if assertion_a.disable != assertion_b.disable:
        raise Unsupported("'disable iff' whose condition differs between the two properties")
    return assertion_a, assertion_b


def default_depth(circuit, out_a, out_b) -> int:
    """K = 2 * (longest finite obligation) + 4 + history length (spec Stage D), no cap.

    Spans add up along nested delays (`a |-> ##50 b` spans 51 ticks). When a side's span is
    unbounded (`$`, until) the monitor's automaton handles it exactly; the depth then covers one
    pass through every monitor register besides the finite spans, and a result without a proof is
    reported as EQUIVALENT_BOUNDED with this K in its message.
    """
    spans = [o.lookahead for o in (out_a, out_b)]
    finite = max((s for s in spans if s is not None), default=0)
    unbounded = len(circuit.registers) if None in spans else 0
    return 2 * finite + 4 + circuit.history_depth + unbounded


def _decide(assertion_a, assertion_b, semantics, depth, deadline, warnings) -> PECResult:
    from proceedings.rwopd.equivalence import check_direction, replay
    from proceedings.rwopd.monitor import cone_signals

    circuit, out_a, out_b = build_miter(assertion_a, assertion_b, semantics)
    k = depth or default_depth(circuit, out_a, out_b)
    forward = check_direction(circuit, out_a, out_b, k, deadline)
    backward = check_direction(circuit, out_b, out_a, k, deadline)
    notes = [f"A=>B: {n}" for n in forward.notes] + [f"B=>A: {n}" for n in backward.notes]
    proved = forward.proved and backward.proved
    if forward.holds and backward.holds:
        read_a, read_b = cone_signals(circuit, out_a), cone_signals(circuit, out_b)
        if read_a != read_b:  # signal correspondence: one side is vacuous in what only it reads
            return PECResult(Verdict.DIFFERENT, proved, k, None, warnings=warnings, notes=notes, message=(
                f"equal on every trace but over different signals (only A: {sorted(read_a - read_b)}, "
                f"only B: {sorted(read_b - read_a)}): a property vacuous in a signal it names is not its equivalent"))
        if proved:
            return PECResult(Verdict.EQUIVALENT, True, k, None, warnings=warnings, notes=notes)
        return PECResult(Verdict.EQUIVALENT_BOUNDED, False, k, None, warnings=warnings, notes=notes,
                         message=f"EQUIVALENT_BOUNDED(K={k}): no separating lasso up to depth {k}, no proof")
    if forward.holds:
        verdict, witness, order = Verdict.A_IMPLIES_B, backward.counterexample, (out_b, out_a, "B_not_A")
    else:
        verdict = Verdict.B_IMPLIES_A if backward.holds else Verdict.DIFFERENT
        witness, order = forward.counterexample, (out_a, out_b, "A_not_B")
    check = replay(circuit, order[0], order[1], witness)
    if not check["separates"]:  # never report a trace that does not replay
        raise AssertionError(f"counterexample failed to replay through the monitors: {check}")
    trace = witness.to_dict() | {"separates": order[2]}
    result = PECResult(verdict, proved, k, trace, warnings=warnings, notes=notes)
    if verdict == Verdict.A_IMPLIES_B:
        result.a_satisfiable = satisfiable(circuit, out_a, k, deadline)
    return result


def satisfiable(circuit, outputs, depth: int, deadline: float) -> bool:
    """Some lasso (up to `depth`) satisfies the property: it is not vacuously false like `1'b0`."""
    from proceedings.rwopd.equivalence import find_separating_lasso
    from proceedings.rwopd.ir import FALSE, TRUE
    from proceedings.rwopd.monitor import Outputs

    always_fails = Outputs(TRUE, FALSE, False, 0)
    return find_separating_lasso(circuit, outputs, always_fails, depth, deadline) is not None


def reward(result: PECResult, implication_reward: float = 0.5) -> float:
    """The PEC reward of a candidate A against the reference B (spec §2.2 step 3, issue 15 hygiene).

    1 for EQUIVALENT (proved) only; `implication_reward` when the candidate implies the reference
    (the implied side is the reference's) and some trace satisfies the candidate, so a property that
    can never hold earns nothing; 0 for everything else, EQUIVALENT_BOUNDED included.
    """
    if result.verdict == Verdict.EQUIVALENT:
        return 1.0
    if result.verdict == Verdict.A_IMPLIES_B and result.a_satisfiable:
        return implication_reward
    return 0.0


def _check_job(job: dict) -> dict:
    return check_equivalence(**job).to_dict()


def check_batch(jobs: list[dict], workers: int = 2) -> list[dict]:
    """Run many `check_equivalence(**job)` in a process pool; results in job order (as dicts)."""
    if workers <= 1:
        return [_check_job(job) for job in jobs]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_check_job, jobs, chunksize=max(1, len(jobs) // (8 * workers))))
