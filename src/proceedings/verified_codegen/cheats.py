"""The cheat scan (spec §2.4): what a candidate may not write, whatever the checker's exit status says.

Proof checkers accept unfinished work silently: Coq compiles `Admitted.` with exit 0, Dafny verifies a
lemma proved by `assume false;` or one without a body (FACTS.md "Proof checkers"), Lean warns about
`sorry` and exits 0. So before any check the candidate's editable regions are scanned for the constructs
that assume instead of prove, and a file whose protected text differs from the task's is spec
tampering. The scan is a first gate; `Print Assumptions`, `/noCheating:1` and `#print axioms` are the
second (checkers.py).
"""

from __future__ import annotations

import re

from proceedings.verified_codegen.tasks import EDITABLE, SpecFile, split_regions

# Each entry: a pattern and the reason a candidate using it is rejected.
BANNED = {
    "coq": (
        (r"\bAdmitted\b", "`Admitted` leaves the proof unfinished"),
        (r"\badmit\b", "`admit` closes a goal without proof"),
        (r"\b(Axiom|Axioms|Parameter|Parameters|Conjecture|Hypothesis|Hypotheses|Variable|Variables)\b",
         "declares an assumption instead of proving it"),
        (r"(?m)^\s*(#\[[^\]]*\]\s*)?((Local|Global)\s+)?(Unset|Set)\s+[A-Z]|Typing\s+Flags|bypass_check",
         "changes the checker's settings"),
        (r"\b(Notation|Module|Require|Import|Export|Load|Declare|Extract|Drop)\b",
         "redefines notation or loads code (imports belong to the protected preamble)"),
    ),
    "dafny": (
        (r"\bassume\b", "`assume` adds a fact without proof"),
        (r"\{:\s*axiom\b", "`{:axiom}` declares a lemma true without proof"),
        (r"\{:\s*verify\s+false\s*\}", "`{:verify false}` skips verification"),
        (r"\{:\s*extern\b", "`{:extern}` trusts code the verifier never sees"),
        (r"\{:\s*(imported|compile\s+false)\b", "trusts a declaration without checking it"),
    ),
    "lean": (
        (r"\bsorry\b", "`sorry` leaves the proof unfinished"),
        (r"\badmit\b", "`admit` closes a goal without proof"),
        (r"\b(axiom|opaque)\b", "declares an assumption instead of proving it"),
        (r"debug\.skipKernelTC|implemented_by|\bunsafe\b|\bpartial\b", "bypasses the kernel or termination"),
    ),
}

_COMMENT = {"coq": re.compile(r"\(\*.*?\*\)", re.S), "dafny": re.compile(r"//[^\n]*|/\*.*?\*/", re.S),
            "lean": re.compile(r"--[^\n]*|/-.*?-/", re.S)}


def scan(backend: str, solution: dict[str, str]) -> str:
    """The first banned construct in the candidate's regions (comments ignored), as a reason; '' if none."""
    for region, text in solution.items():
        code = _COMMENT[backend].sub(" ", text)
        for pattern, reason in BANNED[backend]:
            found = re.search(pattern, code)
            if found:
                return f"cheat in region '{region}': {reason} ({found.group(0)!r})"
    return ""


def regions_of(spec: SpecFile, text: str) -> tuple[dict[str, str], str]:
    """A whole file a model wrote -> (its editable regions, '' or why it is rejected).

    Rejected when a region marker is missing or the protected text (spec, preamble) differs from the
    task's: the regions are kept only when the rest is exactly the task's own text.
    """
    try:
        pieces = split_regions(text, spec.backend, spec.path)
    except Exception as err:  # noqa: BLE001 - the model's file, not ours: any parse problem is a rejection
        return {}, f"missing or broken region markers: {err}"
    editable = EDITABLE[spec.backend]
    protected = [p for p in pieces if p.region not in editable]
    expected = [p for p in spec.pieces if p.region not in editable]
    if [p.text.strip() for p in protected] != [p.text.strip() for p in expected]:
        return {}, "spec tampering: the protected text (preamble, spec, markers) differs from the task's"
    return {p.region: p.text for p in pieces if p.region in editable}, ""
