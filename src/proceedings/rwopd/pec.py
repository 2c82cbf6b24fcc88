"""The property-equivalence checker: `check_equivalence(a, b)` -> a verdict, both directions.

Verdicts (issue 6): EQUIVALENT (both directions proved), A_IMPLIES_B, B_IMPLIES_A, DIFFERENT (with
a lasso trace that really separates them, replayed through both monitors), SYNTAX_ERROR (slang's
diagnostic and position), UNSUPPORTED (naming the construct), TIMEOUT; and the spec's
EQUIVALENT_BOUNDED: no separating trace up to depth K, but no proof either (liveness obligations,
or induction did not close) -- counted as equivalent by the metrics, never reported as EQUIVALENT.
Semantics: `jasper` (default, FVEval-compatible: unbounded consequent ranges are strong, reset held
inactive so `disable iff` never fires) or `ieee` (weak by default, `disable iff` on a free signal).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from enum import Enum

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.frontend import SvaSyntaxError, Unsupported, parse_assertion

SEMANTICS = ("jasper", "ieee")
MAX_DEPTH = 40


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

    def to_dict(self) -> dict:
        return {"verdict": self.verdict.value, "proved": self.proved, "depth": self.depth,
                "counterexample": self.counterexample, "message": self.message, "warnings": self.warnings,
                "notes": self.notes, "seconds": round(self.seconds, 4)}


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
    if jasper:  # JasperGold holds the reset inactive after its reset phase: `disable iff` never fires
        assertion_a, assertion_b = (replace(x, disable=None) for x in (assertion_a, assertion_b))
    circuit = Circuit()
    out_a = add_monitor(circuit, assertion_a, "A", jasper=jasper)
    out_b = add_monitor(circuit, assertion_b, "B", jasper=jasper)
    out_a, out_b = merge_equivalent_registers(circuit, [out_a, out_b])
    return circuit, out_a, out_b


def default_depth(circuit, out_a, out_b) -> int:
    """K = 2 * (longest finite obligation) + 4 + history length, capped (spec Stage D)."""
    spans = [o.lookahead if o.lookahead is not None else 8 for o in (out_a, out_b)]
    history = circuit.history_depth
    return min(MAX_DEPTH, 2 * max(spans) + 4 + history)


def _decide(assertion_a, assertion_b, semantics, depth, deadline, warnings) -> PECResult:
    from proceedings.rwopd.equivalence import check_direction, replay

    circuit, out_a, out_b = build_miter(assertion_a, assertion_b, semantics)
    k = depth or default_depth(circuit, out_a, out_b)
    forward = check_direction(circuit, out_a, out_b, k, deadline)
    backward = check_direction(circuit, out_b, out_a, k, deadline)
    notes = [f"A=>B: {n}" for n in forward.notes] + [f"B=>A: {n}" for n in backward.notes]
    proved = forward.proved and backward.proved
    if forward.holds and backward.holds:
        verdict = Verdict.EQUIVALENT if proved else Verdict.EQUIVALENT_BOUNDED
        return PECResult(verdict, proved, k, None, warnings=warnings, notes=notes)
    if forward.holds:
        verdict, witness, order = Verdict.A_IMPLIES_B, backward.counterexample, (out_b, out_a, "B_not_A")
    else:
        verdict = Verdict.B_IMPLIES_A if backward.holds else Verdict.DIFFERENT
        witness, order = forward.counterexample, (out_a, out_b, "A_not_B")
    check = replay(circuit, order[0], order[1], witness)
    if not check["separates"]:  # never report a trace that does not replay
        raise AssertionError(f"counterexample failed to replay through the monitors: {check}")
    trace = witness.to_dict() | {"separates": order[2]}
    return PECResult(verdict, proved, k, trace, warnings=warnings, notes=notes)


def reward(verdict: Verdict, implication_reward: float = 0.5) -> float:
    """r = 1 for EQUIVALENT(_BOUNDED), rho for a one-way implication, 0 otherwise (spec §2.2 step 3)."""
    if verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_BOUNDED):
        return 1.0
    if verdict in (Verdict.A_IMPLIES_B, Verdict.B_IMPLIES_A):
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
