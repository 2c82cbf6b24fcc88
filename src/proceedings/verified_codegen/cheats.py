"""The cheat scan (spec §2.4): what a candidate may not write, whatever the checker's exit status says.

Proof checkers accept unfinished work silently: Coq compiles `Admitted.` with exit 0, Dafny verifies a
lemma proved by `assume false;` or one without a body (FACTS.md "Proof checkers"), Lean warns about
`sorry` and exits 0. So before any check the candidate's editable regions are scanned for the constructs
that assume instead of prove, and a file whose protected text differs from the task's is spec
tampering. The scan reads code only: comments and string literals are blanked by a small lexer that
follows each language's nesting and escapes (`code_only`), so a banned word inside a comment is not a
cheat and one hidden behind a string such as `"/*"` is still seen. The scan is a first gate;
`Print Assumptions` with the restated spec, `/noCheating:1` and `#print axioms` are the second
(checkers.py).
"""

from __future__ import annotations

import re

from proceedings.verified_codegen.tasks import EDITABLE, SpecFile, split_regions

# Each entry: a pattern and the reason a candidate using it is rejected.
BANNED = {
    "coq": (
        (r"\bAdmitted\b", "`Admitted` leaves the proof unfinished"),
        (r"\b(admit|Admit)\b", "`admit` / `Admit Obligations` closes a goal without proof"),
        (r"\b(Axiom|Axioms|Parameter|Parameters|Conjecture|Hypothesis|Hypotheses|Variable|Variables|Context)\b",
         "declares an assumption instead of proving it"),
        (r"\bAbort\b", "`Abort` drops the stated theorem (a later one could reuse its name)"),
        (r"(?m)^\s*(#\[[^\]]*\]\s*)?((Local|Global)\s+)?(Unset|Set)\s+[A-Z]|Typing\s+Flags|bypass_check",
         "changes the checker's settings"),
        (r"\b(Notation|Infix|Scope|Module|Require|Import|Export|Load|Declare|Extract|Drop)\b",
         "redefines notation or scopes, or loads code (imports belong to the protected preamble)"),
    ),
    "dafny": (
        (r"\bassume\b", "`assume` adds a fact without proof"),
        (r"\{:\s*axiom\b", "`{:axiom}` declares a lemma true without proof"),
        (r"\{:\s*verify\b", "`{:verify ...}` switches verification off"),
        (r"\{:\s*extern\b", "`{:extern}` trusts code the verifier never sees"),
        (r"\{:\s*(imported|compile\b)", "trusts a declaration without checking it"),
        (r"\bdecreases\s*\*", "`decreases *` allows non-termination, which proves any postcondition"),
        (r"\b(include|expect)\b", "loads unchecked code or checks at run time instead of proving"),
    ),
    "lean": (
        (r"\bsorry\b", "`sorry` leaves the proof unfinished"),
        (r"\badmit\b", "`admit` closes a goal without proof"),
        (r"\b(axiom|opaque)\b", "declares an assumption instead of proving it"),
        (r"debug\.skipKernelTC|implemented_by|\bextern\b|\bunsafe\b|\bpartial\b",
         "bypasses the kernel or termination"),
    ),
}


def code_only(backend: str, text: str) -> str:
    """`text` with comments and string/char literals blanked (newlines kept), as the language lexes them.

    Coq: nested `(* *)`, strings `"..."` with `""` escapes, also inside comments; Dafny: `//`, nested
    `/* */`, strings with `\\` escapes, verbatim `@"..."`, char literals; Lean: `--`, nested `/- -/`,
    strings, char literals. An unterminated comment or string runs to the end (the checker rejects it).
    """
    line, open_, close = {"coq": (None, "(*", "*)"), "dafny": ("//", "/*", "*/"), "lean": ("--", "/-", "-/")}[backend]
    out, i, n = [], 0, len(text)

    def blank(start: int, end: int) -> None:
        out.append(re.sub(r"[^\n]", " ", text[start:end]))

    def string_end(j: int) -> int:  # j: index of the opening quote; returns the index after the closing one
        verbatim = backend == "dafny" and j > 0 and text[j - 1] == "@"
        j += 1
        while j < n:
            if text[j] == "\\" and backend != "coq" and not verbatim:
                j += 2
            elif text[j] == '"':
                if (backend == "coq" or verbatim) and text[j + 1:j + 2] == '"':
                    j += 2
                else:
                    return j + 1
            else:
                j += 1
        return n

    while i < n:
        if line and text.startswith(line, i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith(open_, i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith(open_, j):
                    depth, j = depth + 1, j + 2
                elif text.startswith(close, j):
                    depth, j = depth - 1, j + 2
                elif backend == "coq" and text[j] == '"':
                    j = string_end(j)
                else:
                    j += 1
            blank(i, j)
            i = j
        elif text[i] == '"':
            j = string_end(i)
            blank(i, j)
            i = j
        elif text[i] == "'" and backend != "coq" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_'?")):
            char = re.match(r"'(\\.[^']*|[^'\\])'", text[i:])
            j = i + (char.end() if char else 1)
            blank(i, j)
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def scan(backend: str, solution: dict[str, str]) -> str:
    """The first banned construct in the candidate's regions (comments and strings ignored), as a reason;
    '' if none. A Dafny `code` region is the body of the protected method: it must open with `{`, so it
    cannot add clauses (`requires false`, `decreases *`) to the signature."""
    for region, text in solution.items():
        code = code_only(backend, text)
        for pattern, reason in BANNED[backend]:
            found = re.search(pattern, code)
            if found:
                return f"cheat in region '{region}': {reason} ({found.group(0)!r})"
        if backend == "dafny" and region == "code" and code.strip() and not code.lstrip().startswith("{"):
            return (f"cheat in region 'code': it must open the protected method's body with '{{', not add to its "
                    f"signature ({code.strip().split()[0]!r})")
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
