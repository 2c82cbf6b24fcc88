"""The NL2SVA reference audit: every valid reference against itself and against perturbed variants.

Self-checks compare each reference with a *different spelling* of it (`respell`: the body under
`if (s) ... else ...` on one of its own signals), so the two monitors are different circuits and
the check exercises the decision procedure, not register merging of identical text; they must
all be EQUIVALENT (a checker that fails this is broken). Perturbations (a delay
changed, an implication made non-overlapping, a conjunction turned into a disjunction, a signal
negated) should mostly not be. Known-invalid references are listed with slang's diagnostic.
"""

from __future__ import annotations

import re
import time
from collections import Counter

from proceedings.rwopd.nl2sva import Task

PERTURBATIONS = (
    ("delay+1", r"##(\d+)", lambda m: f"##{int(m.group(1)) + 1}"),
    ("overlap->next", r"\|->", "|=>"),
    ("and->or", r"&&", "||"),
    ("negate-first-signal", r"\b((?:sig_[A-J])|(?:[a-z]\w*_\w+))\b", r"!\1"),
)


_HEAD = re.compile(r"(.*?assert\s+property\s*\(\s*@\(posedge\s+\w+\)\s*(?:disable\s+iff\s*\([^)]*\))?)", re.S)


def respell(reference: str) -> str:
    """The same property spelled differently: `if (s) (P) else (P)` for the body P and its first signal s."""
    from proceedings.rwopd.frontend import infer_signals

    head = _HEAD.match(reference)
    prefix = head.group(1) if head else ""
    body = reference[len(prefix):].strip().rstrip(";").rstrip()
    if head:
        body = body[:-1] if body.endswith(")") else body  # the `assert property (` parenthesis
    signal = next(iter(infer_signals(body)), "1'b1")
    spelled = f"if ({signal}) ({body}) else ({body})"
    return f"{prefix} {spelled});" if head else spelled


def perturbations(reference: str) -> list[tuple[str, str]]:
    """(name, perturbed text) for every perturbation that changes the reference."""
    out = []
    for name, pattern, replacement in PERTURBATIONS:
        body = reference
        head = _HEAD.match(body)
        prefix = head.group(1) if head else ""
        changed = prefix + re.sub(pattern, replacement, body[len(prefix):], count=1)
        if changed != body:
            out.append((name, changed))
    return out


def audit_references(tasks: list[Task], workers: int = 2, timeout_s: float = 5.0) -> dict:
    """Verdict counts of self-checks and perturbation checks, plus the invalid references."""
    from proceedings.rwopd.pec import check_batch

    valid = [t for t in tasks if not t.ref_invalid]
    self_jobs = [dict(a=t.reference, b=respell(t.reference), testbench=t.testbench, timeout_s=timeout_s)
                 for t in valid]
    perturbed = [(t, name, text) for t in valid for name, text in perturbations(t.reference)]
    pert_jobs = [dict(a=t.reference, b=text, testbench=t.testbench, timeout_s=timeout_s) for t, _, text in perturbed]
    began = time.perf_counter()
    self_results = check_batch(self_jobs, workers)
    pert_results = check_batch(pert_jobs, workers)
    seconds = time.perf_counter() - began
    directional = 2 * (len(self_jobs) + len(pert_jobs))
    return {
        "tasks": len(tasks), "valid": len(valid),
        "invalid": {t.id: t.ref_invalid for t in tasks if t.ref_invalid},
        "self": dict(Counter(r["verdict"] for r in self_results)),
        "self_not_equivalent": [t.id for t, r in zip(valid, self_results)
                                if r["verdict"] not in ("EQUIVALENT", "EQUIVALENT_BOUNDED")],
        "self_bounded": sum(1 for r in self_results if r["verdict"] == "EQUIVALENT_BOUNDED"),
        "perturbed": dict(Counter(r["verdict"] for r in pert_results)),
        "perturbed_by_kind": {name: dict(Counter(r["verdict"] for (_, n, _), r in zip(perturbed, pert_results) if n == name))
                              for name, _, _ in PERTURBATIONS},
        "seconds": round(seconds, 2), "directional_checks": directional,
        "directional_checks_per_s": round(directional / seconds, 1) if seconds else None,
    }
