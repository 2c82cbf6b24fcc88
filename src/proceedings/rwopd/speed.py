"""The speed benchmark of the issue: PEC directional checks per second on the NL2SVA sets (z3,
process pool), and the SymbiYosys route's time and agreement with z3 on a sample of safety pairs."""

from __future__ import annotations

import time

from proceedings.rwopd.audit import audit_references, perturbations
from proceedings.rwopd.nl2sva import load_nl2sva


def run_benchmark(workers: int = 2, sby_sample: int = 6) -> dict:
    report = {}
    for split in ("human", "machine"):
        audit = audit_references(load_nl2sva(split), workers=workers)
        report[split] = {k: audit[k] for k in ("valid", "self", "self_bounded", "perturbed", "directional_checks",
                                               "seconds", "directional_checks_per_s")}
        report[split]["invalid_references"] = sorted(audit["invalid"])
    report["sby"] = sby_agreement(sby_sample)
    return report


def sby_agreement(count: int) -> dict:
    """z3 and SymbiYosys verdicts side by side on reference-vs-perturbation pairs of NL2SVA-Machine."""
    from proceedings.core.errors import ProceedingsError
    from proceedings.rwopd.pec import check_equivalence
    from proceedings.rwopd.sby import check_with_sby

    rows, z3_s, sby_s = [], 0.0, 0.0
    tasks = [t for t in load_nl2sva("machine") if not t.ref_invalid and "##" in t.reference]
    for task in tasks:
        if len(rows) >= count:
            break
        for _, variant in perturbations(task.reference)[:1]:
            began = time.perf_counter()
            z3_result = check_equivalence(task.reference, variant, testbench=task.testbench)
            z3_s += time.perf_counter() - began
            if z3_result.verdict.value in ("SYNTAX_ERROR", "UNSUPPORTED", "TIMEOUT"):
                continue
            began = time.perf_counter()
            try:
                sby = check_with_sby(task.reference, variant, testbench=task.testbench)
            except ProceedingsError:
                continue
            sby_s += time.perf_counter() - began
            rows.append({"id": task.id, "z3": z3_result.verdict.value, "sby": sby["verdict"].value})
    agree = sum(r["z3"] == r["sby"] for r in rows)
    return {"pairs": len(rows), "agree": agree, "rows": rows, "z3_seconds": round(z3_s, 2),
            "sby_seconds": round(sby_s, 2), "sby_seconds_per_pair": round(sby_s / max(1, len(rows)), 2)}
