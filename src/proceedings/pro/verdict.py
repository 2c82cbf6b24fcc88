"""PRO's verdict: gates, matched strength, then the claim's four conditions (issue 13).

A pure function of the numbers a Result record stores.  It lives apart from `experiment.py` so that
restating a check does not change the code fingerprint that keys the cached, hours-long arms.
"""

from __future__ import annotations

MERGE_ALPHA = 0.5  # the merge attack the verdict is stated on (paper: a 0.5-ratio merge)
GATE_AUC = 0.95  # issue 13: each decoding-time teacher must be detectable before its student is judged
KL_MATCH = 0.05  # the two teachers' KLs agree within 5 %, at calibration and at every later evaluation point
PPL_MARGIN = 1.05  # PRO's samples may be at most 5 % less fluent than KGW-distill's


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates (both teachers detectable, both students learnt a mark, strengths matched at calibration
    and at every evaluation point of training and after it), then the claim on PRO's numbers
    (`metrics`) against KGW distillation's (`baseline`).  With several seeds every margin also needs
    its 95 % seed interval on the claim's side: the paired differences PRO - KGW of AUC (`auc_diff`,
    `auc_merge_diff`) and TPR@5 % (`tpr_at_5fpr_diff`) at or above 0 (above 0 for the merge), the PPL
    ratio (`ppl_ratio`) at or below PPL_MARGIN, and the worst KL mismatch (`teacher_kl_mismatch`) at
    or below KL_MATCH.  A record made before the mismatch was measured along training (round 3) has
    only its end point."""
    intervals = intervals or {}

    def seed_interval(name: str, holds) -> bool:
        """With seeds, `holds(low, high)` for the 95 % seed interval of metrics.<name>; one seed: True."""
        path = f"metrics.{name}"
        return path not in intervals or holds(*intervals[path])

    mismatch = metrics.get("teacher_kl_mismatch", abs(metrics["teacher_kl_end"] / baseline["teacher_kl_end"] - 1))

    return {
        f"gate: KGW-distill's decoding-time teacher AUC >= {GATE_AUC}": baseline["decoding_auc"] >= GATE_AUC,
        f"gate: PRO's decoding-time teacher AUC >= {GATE_AUC}": metrics["decoding_auc"] >= GATE_AUC,
        "gate: KGW-distill student's green gap > 0 (95% interval)": baseline["student_gap_low"] > 0,
        "gate: PRO student's green gap > 0 (95% interval)": metrics["student_gap_low"] > 0,
        f"matched: teacher KLs within {KL_MATCH:.0%} at calibration":
            abs(metrics["teacher_kl"] - baseline["teacher_kl"]) <= KL_MATCH * baseline["teacher_kl"],
        f"matched: teacher KLs within {KL_MATCH:.0%} at every evaluation point of training and after it":
            mismatch <= KL_MATCH and seed_interval("teacher_kl_mismatch", lambda low, high: high <= KL_MATCH),
        "PRO AUC >= KGW-distill AUC (equal steps, equal teacher KL)":
            metrics["auc"] >= baseline["auc"] and seed_interval("auc_diff", lambda low, high: low >= 0),
        "PRO TPR@5%FPR >= KGW-distill TPR@5%FPR":
            metrics["tpr_at_5fpr"] >= baseline["tpr_at_5fpr"]
            and seed_interval("tpr_at_5fpr_diff", lambda low, high: low >= 0),
        f"PRO PPL <= {PPL_MARGIN} x KGW-distill PPL":
            metrics["ppl"] <= PPL_MARGIN * baseline["ppl"]
            and seed_interval("ppl_ratio", lambda low, high: high <= PPL_MARGIN),
        f"PRO AUC after alpha={MERGE_ALPHA} merge > KGW-distill's":
            metrics["auc_merge"] > baseline["auc_merge"]
            and seed_interval("auc_merge_diff", lambda low, high: low > 0),
    }


def margins(pro: dict, kgw: dict) -> dict:
    """Per-seed margins whose seed intervals the verdict reads (the AUC differences come paired over
    prompts from `metrics.paired_auc_difference`)."""
    return {"tpr_at_5fpr_diff": pro["tpr_at_5fpr"] - kgw["tpr_at_5fpr"], "ppl_ratio": pro["ppl"] / kgw["ppl"],
            "teacher_kl_mismatch": teacher_kl_mismatch(pro, kgw)}


def teacher_kl_mismatch(pro: dict, kgw: dict) -> float:
    """The largest |KL_PRO / KL_KGW - 1| on the held-out blocks over PRO's evaluation points: at
    calibration, before each re-calibration of delta (the KL its learning policy had drifted to), and
    after training.  KGW's teacher is fixed, so its KL is one number."""
    points = [pro["teacher_kl"], *pro["teacher_kl_path"], pro["teacher_kl_end"]]
    return max(abs(point / kgw["teacher_kl_end"] - 1) for point in points)


def notes(checks: dict) -> str:
    failed = [rule for rule, holds in checks.items() if not holds]
    if not failed:
        return "Every condition of the claim holds at this scale."
    return ("Not reproduced at this scale: " + "; ".join(failed) + ". See src/proceedings/pro/README.md "
            "('What falls short') for the reasons we measured.")
