"""The cheat suite (issue 24; FACTS.md: `Admitted.` and `assume false` pass the checkers silently):
each cheat is rejected, the same solution without it verifies, on Coq and Dafny; Lean's gates run
against a stub `lean` replaying recorded output."""

import json
import os
from pathlib import Path

import pytest

from proceedings.verified_codegen.candidates import reference_candidate
from proceedings.verified_codegen.checkers import get_checker
from proceedings.verified_codegen.cheats import regions_of, scan
from proceedings.verified_codegen.tasks import load_task, load_tasks

SUM_LIST, PROD_SEQ = load_tasks(ids=("sum_list", "prod_seq"))
COQ_REF = reference_candidate(SUM_LIST, "coq").regions()
DAFNY_REF = reference_candidate(PROD_SEQ, "dafny").regions()
LEMMA = "Lemma sum_acc_spec : forall l acc, sum_acc l acc = acc + sum l."

COQ_CHEATS = {
    "Admitted": {"proof_aux": f"{LEMMA}\nAdmitted.\n"},
    "admit": {"proof_aux": f"{LEMMA}\nProof. admit. Qed.\n"},
    "Axiom": {"proof_aux": f"Axiom sum_acc_spec : forall l acc, sum_acc l acc = acc + sum l.\n"},
    "Parameter": {"code": "Parameter sum_list : list Z -> Z.\n"},
    "Unset Guard": {"code": "Unset Guard Checking.\n" + COQ_REF["code"]},
    "Notation": {"code": COQ_REF["code"] + "Notation sum := sum_list.\n"},
}
DAFNY_CHEATS = {
    "assume": {"code": DAFNY_REF["code"].replace("r := r * a[i];", "r := r * a[i];\n        assume false;")},
    "axiom": {"proofs": "lemma {:axiom} Anything()\n    ensures false\n"},
    "verify false": {"proofs": "lemma {:verify false} L()\n    ensures false\n{\n}\n"},
    "extern": {"proofs": "method {:extern} Oracle() returns (r: int)\n"},
}


@pytest.mark.parametrize("cheat", COQ_CHEATS)
def test_coq_cheats_are_rejected_before_the_checker_runs(cheat):
    assert scan("coq", {**COQ_REF, **COQ_CHEATS[cheat]}).startswith("cheat in region")


@pytest.mark.parametrize("cheat", DAFNY_CHEATS)
def test_dafny_cheats_are_rejected_before_the_checker_runs(cheat):
    assert scan("dafny", {**DAFNY_REF, **DAFNY_CHEATS[cheat]}).startswith("cheat in region")


def test_comments_mentioning_a_cheat_are_not_cheats():
    assert scan("coq", {**COQ_REF, "proof": "(* no Admitted here *)\n" + COQ_REF["proof"]}) == ""
    assert scan("dafny", {**DAFNY_REF, "code": "// never assume\n" + DAFNY_REF["code"]}) == ""


@pytest.mark.external("coqc")
def test_coq_reference_verifies_and_admitted_past_the_scan_is_caught_by_print_assumptions(coq):
    assert coq.verify(SUM_LIST, COQ_REF).status == "verified"
    admitted = {**COQ_REF, "proof_aux": f"{LEMMA}\nAdmitted.\n"}
    # the second gate alone: the file compiles (exit 0) but Print Assumptions lists the admitted lemma
    verdict = coq._verify_text(SUM_LIST, SUM_LIST.assemble("coq", admitted) + coq.audit_suffix(SUM_LIST), False, ())
    assert verdict.status == "rejected" and "sum_acc_spec" in verdict.reason


@pytest.mark.external("dafny")
def test_dafny_reference_verifies_and_a_bodyless_lemma_is_refused_by_no_cheating(dafny):
    assert dafny.verify(PROD_SEQ, DAFNY_REF).status == "verified"
    bodyless = {**DAFNY_REF, "proofs": "lemma Anything()\n    ensures false\n",
                "code": DAFNY_REF["code"].replace("r := 1;", "Anything();\n    r := 1;")}
    assert scan("dafny", bodyless) == ""  # nothing for the scan to see: /noCheating:1 must catch it
    verdict = dafny.verify(PROD_SEQ, bodyless)
    assert verdict.status == "rejected" and "body" in verdict.reason


def test_an_edited_spec_is_tampering_and_a_missing_region_is_rejected():
    spec = PROD_SEQ.spec("dafny")
    text = spec.path.read_text()
    assert regions_of(spec, text.replace("ensures r == Prod(a)", "ensures r == r"))[1].startswith("spec tampering")
    assert "region markers" in regions_of(spec, text.replace("// <proofs>\n", ""))[1]


def test_a_missing_checker_names_its_apt_package_and_its_tasks_are_unavailable():
    coq = get_checker("coq", executable=None)
    coq.path = None
    verdict = coq.verify(SUM_LIST, COQ_REF)
    assert verdict.status == "unavailable" and "apt-get install -y --no-install-recommends coq" in verdict.reason


def test_a_hanging_checker_is_killed_at_its_wall_limit(tmp_path):
    slow = tmp_path / "coqc"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(0o755)
    verdict = get_checker("coq", executable=str(slow), timeout_s=0.5).verify(SUM_LIST, COQ_REF)
    assert verdict.status == "timeout" and verdict.seconds < 5


# ------------------------------------------------------------------------------------ Lean (stub)
LEAN_TASK = """-- !benchmark @start preamble
def double (n : Nat) : Nat := n + n
-- !benchmark @end preamble
-- !benchmark @start code_aux
-- !benchmark @end code_aux
-- !benchmark @start code
-- !benchmark @end code
-- !benchmark @start proof_aux
-- !benchmark @end proof_aux
-- !benchmark @start proof
-- !benchmark @end proof
theorem double_spec (n : Nat) : double n = 2 * n := by omega
"""


def lean_task(tmp_path: Path):
    folder = tmp_path / "double"
    folder.mkdir()
    (folder / "task.lean").write_text(LEAN_TASK)
    (folder / "task.json").write_text(json.dumps({
        "id": "double", "signature": {"name": "double", "parameters": [{"param_name": "n", "param_type": "Nat"}]},
        "tests": [], "backends": {"lean": "task.lean"}}))
    return load_task(folder)


def stub_lean(tmp_path: Path, output: str, code: int = 0) -> str:
    (tmp_path / "recorded.txt").write_text(output)
    stub = tmp_path / "lean"
    stub.write_text(f"#!/bin/sh\ncat {tmp_path / 'recorded.txt'}\nexit {code}\n")
    stub.chmod(0o755)
    return str(stub)


@pytest.mark.parametrize("output,status", [
    ("t.lean:3:8: warning: declaration uses 'sorry'\n", "rejected"),
    ("'double_spec' depends on axioms: [propext, myAxiom]\n", "rejected"),
    ("t.lean:3:0: error: unsolved goals\n", "failed"),
    ("'double_spec' depends on axioms: [propext]\n", "verified"),
])
def test_lean_gates_with_a_stub_lean_replaying_recorded_output(tmp_path, output, status):
    task = lean_task(tmp_path)
    lean = get_checker("lean", executable=stub_lean(tmp_path, output))
    assert lean.verify(task, {}).status == status


def test_without_a_lean_toolchain_lean_tasks_are_unavailable(tmp_path, monkeypatch):
    monkeypatch.delenv("VCG_LEAN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    verdict = get_checker("lean").verify(lean_task(tmp_path), {})
    assert verdict.status == "unavailable" and "Lean toolchain not found" in verdict.reason
    assert "sorry" in scan("lean", {"proof": "by sorry"})
