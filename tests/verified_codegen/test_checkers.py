"""The cheat suite (issue 24; FACTS.md: `Admitted.` and `assume false` pass the checkers silently):
each cheat is rejected, the same solution without it verifies, on Coq and Dafny; Lean's gates run
against a stub `lean` replaying recorded output."""

import json
import os
from pathlib import Path

import pytest

from proceedings.verified_codegen.candidates import reference_candidate
from proceedings.verified_codegen.checkers import get_checker
from proceedings.verified_codegen.cheats import code_only, regions_of, scan
from proceedings.verified_codegen.tasks import load_task, load_tasks

SUM_LIST, PROD_SEQ = load_tasks(ids=("sum_list", "prod_seq"))
COQ_REF = reference_candidate(SUM_LIST, "coq").regions()
DAFNY_REF = reference_candidate(PROD_SEQ, "dafny").regions()
LEMMA = "Lemma sum_acc_spec : forall l acc, sum_acc l acc = acc + sum l."

COQ_CHEATS = {
    "Admitted": {"proof_aux": f"{LEMMA}\nAdmitted.\n"},
    "admit": {"proof_aux": f"{LEMMA}\nProof. admit. Qed.\n"},
    "Axiom": {"proof_aux": "Axiom sum_acc_spec : forall l acc, sum_acc l acc = acc + sum l.\n"},
    "Parameter": {"code": "Parameter sum_list : list Z -> Z.\n"},
    "Conjecture": {"proof_aux": "Conjecture sum_acc_spec : forall l acc, sum_acc l acc = acc + sum l.\n"},
    "Context": {"code": "Section S.\nContext (H : False).\n" + COQ_REF["code"]},
    "Admit Obligations": {"proof_aux": "Program Definition bogus : False := _.\nAdmit Obligations.\n"},
    "Abort and restate": {"proof": "Abort.\nTheorem sum_list_correct : True.\nProof. exact I.\n"},
    "Infix =": {"code": COQ_REF["code"] + 'Definition always (a b : Z) : Prop := True.\nInfix "=" := always : type_scope.\n'},
    "Open Scope": {"code": "Open Scope nat_scope.\n" + COQ_REF["code"]},
    "Unset Guard": {"code": "Unset Guard Checking.\n" + COQ_REF["code"]},
    "Unset Universe": {"code": "Local Unset Universe Checking.\n" + COQ_REF["code"]},
    "Notation": {"code": COQ_REF["code"] + "Notation sum := sum_list.\n"},
    "Declare ML Module": {"code": 'Declare ML Module "evil".\n' + COQ_REF["code"]},
    "admit behind a string": {"proof": 'idtac "(*". admit. idtac "*)".\n'},
    "Load the reference": {"code": f'Load "{SUM_LIST.folder / "task.v"}".\n'},
    "Require a copied reference": {"code": 'Add LoadPath "/tmp/ref" as Ref.\nFrom Ref Require Import task.\n'},
}
DAFNY_CHEATS = {
    "assume": {"code": DAFNY_REF["code"].replace("r := r * a[i];", "r := r * a[i];\n        assume false;")},
    "axiom": {"proofs": "lemma {:axiom} Anything()\n    ensures false\n"},
    "verify false": {"proofs": "lemma {:verify false} L()\n    ensures false\n{\n}\n"},
    "extern": {"proofs": "method {:extern} Oracle() returns (r: int)\n"},
    "imported": {"proofs": "lemma {:imported} L()\n    ensures false\n"},
    "requires false": {"code": "    requires false\n{\n}\n"},
    "decreases *": {"code": "    decreases *\n{\n    while true decreases * { }\n}\n"},
    "axiom behind strings": {"helpers": 'const S: string := "/*"\nlemma {:axiom} Bad()\n    ensures false\n'
                                        'const T: string := "*/"\n'},
    "assume behind a verbatim string": {"code": DAFNY_REF["code"].replace(
        "r := 1;", 'var s := @"\\"; assume false; var t := "";\n    r := 1;')},
    "include": {"helpers": 'include "/tmp/axioms.dfy"\n'},
    "expect": {"code": DAFNY_REF["code"].replace("r := 1;", "r := 1;\n    expect r == Prod(a);")},
}


@pytest.mark.parametrize("cheat", COQ_CHEATS)
def test_coq_cheats_are_rejected_before_the_checker_runs(cheat):
    assert scan("coq", {**COQ_REF, **COQ_CHEATS[cheat]}).startswith("cheat in region")


@pytest.mark.parametrize("cheat", DAFNY_CHEATS)
def test_dafny_cheats_are_rejected_before_the_checker_runs(cheat):
    assert scan("dafny", {**DAFNY_REF, **DAFNY_CHEATS[cheat]}).startswith("cheat in region")


def test_comments_and_strings_mentioning_a_cheat_are_not_cheats():
    assert scan("coq", {**COQ_REF, "proof": "(* no (* nested *) Admitted here *)\n" + COQ_REF["proof"]}) == ""
    assert scan("dafny", {**DAFNY_REF, "code": DAFNY_REF["code"].replace(
        "r := 1;", 'r := 1; // never assume\n    /* nested /* assume */ {:axiom} */ var s := "assume";')}) == ""
    assert code_only("dafny", "var c := '\"'; assume false;").endswith("assume false;")  # a char literal, not a string
    assert code_only("dafny", "var x' := 1; assume false;").endswith("assume false;")  # a primed name


def past_the_scan(checker, task, regions):
    """The checker's second gate alone: the file as `verify` would check it, without the cheat scan."""
    return checker._verify_text(task, checker.audited(task, task.assemble(checker.backend, regions)), False, ())


# A Coq task without imports (coqc ~0.1 s instead of ~1 s with Lia) for the second-gate tests.
TWICE = """(* @start preamble *)
Fixpoint double (n : nat) : nat := match n with O => O | S m => S (S (double m)) end.
(* @end preamble *)
(* @start code *)
Definition twice (n : nat) : nat := n + n.
(* @end code *)
(* @start proof_aux *)
Lemma double_plus : forall n, double n = n + n.
Proof.
  induction n as [| m IH]; simpl; [reflexivity | rewrite IH, <- plus_n_Sm; reflexivity].
Qed.
(* @end proof_aux *)
(* @start spec *)
Theorem twice_correct : forall n, twice n = double n.
(* @end spec *)
Proof.
(* @start proof *)
  intros n. unfold twice. rewrite double_plus. reflexivity.
(* @end proof *)
Qed.
"""


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    task = load_task(write_twice(tmp_path_factory.mktemp("twice")))
    return task, reference_candidate(task, "coq").regions()


def write_twice(folder: Path) -> Path:
    """The import-free Coq task `twice` (~0.2 CPU-s a check) written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.v").write_text(TWICE)
    (folder / "task.json").write_text(json.dumps({
        "id": "twice", "signature": {"name": "twice", "parameters": [{"param_name": "n", "param_type": "nat"}],
                                     "return_type": "nat"},
        "tests": [{"input": [2], "expected": 4}], "backends": {"coq": "task.v"}}))
    return folder


@pytest.mark.external("coqc")
def test_coq_reference_verifies_and_admitted_past_the_scan_is_caught_by_print_assumptions(coq, twice):
    task, reference = twice  # no imports: ~0.2 CPU-s a check (sum_list's reference: test_workflows' oracle)
    assert coq.verify(task, reference).status == "verified"
    admitted = {**reference, "proof_aux": "Lemma double_plus : forall n, double n = n + n.\nAdmitted.\n"}
    assert scan("coq", admitted).startswith("cheat in region")
    verdict = past_the_scan(coq, task, admitted)
    assert verdict.status == "rejected" and "double_plus" in verdict.reason  # compiles, exit 0: the audit catches it


TWICE_CHEATS = {  # each compiles and prints "Closed under the global context" for the theorem's own name
    "Abort and restate": {"proof": "Abort.\nTheorem twice_correct : True.\nProof. exact I.\n"},
    "Infix =": {"code": "Definition twice (n : nat) : nat := 0.\nDefinition always (a b : nat) : Prop := True.\n"
                        'Infix "=" := always : type_scope.\n', "proof_aux": "", "proof": "intros; exact I.\n"},
}


@pytest.mark.external("coqc")
@pytest.mark.parametrize("cheat", TWICE_CHEATS)
def test_coq_cheats_that_change_the_statement_past_the_scan_fail_the_restated_spec(coq, twice, cheat):
    task, reference = twice
    assert coq.verify(task, reference).status == "verified"
    assert scan("coq", {**reference, **TWICE_CHEATS[cheat]}).startswith("cheat in region")
    verdict = past_the_scan(coq, task, {**reference, **TWICE_CHEATS[cheat]})
    assert verdict.status == "failed" and "vcg_spec" in verdict.reason


@pytest.mark.external("coqc")
def test_a_candidate_printing_the_success_line_does_not_fool_the_coq_audit(coq, twice):
    task, reference = twice
    printing = {**reference, "proof_aux": "Lemma double_plus : forall n, double n = n + n.\nAdmitted.\n",
                "proof": 'idtac "Closed under the global context".\n' + reference["proof"]}
    verdict = past_the_scan(coq, task, printing)
    assert verdict.status == "rejected" and "double_plus" in verdict.reason


@pytest.mark.external("dafny")
def test_dafny_reference_verifies_and_a_bodyless_lemma_is_refused_by_no_cheating_through_the_server(dafny_served):
    # the fresh-process path: test_benchmarks (binary_search) and test_cli verify through `dafny` itself
    bodyless = {**DAFNY_REF, "proofs": "lemma Anything()\n    ensures false\n",
                "code": DAFNY_REF["code"].replace("r := 1;", "Anything();\n    r := 1;")}
    assert scan("dafny", bodyless) == ""  # nothing for the scan to see: /noCheating:1 must catch it
    requests, processes = dafny_served.server_requests, dafny_served.processes
    first = dafny_served.verify(PROD_SEQ, DAFNY_REF)
    assert first.status == "verified" and first.cpu_s > 0  # the server's Z3 and Mono, read from /proc
    verdict = dafny_served.verify(PROD_SEQ, bodyless)
    assert verdict.status == "rejected" and "body" in verdict.reason
    unproved = {**DAFNY_REF, "code": DAFNY_REF["code"].replace("assert a[..|a|] == a;", "")}
    assert dafny_served.verify(PROD_SEQ, unproved).status == "failed"  # the server says "completed" here too
    assert dafny_served.server_requests == requests + 3 and dafny_served.processes == processes


@pytest.mark.external("dafny")
def test_the_warm_test_host_runs_the_tests_like_a_fresh_dafny_process(dafny_served):
    """Round 12: test runs inside workflows go to one warm Dafny test host (Dafny.exe's own entry point,
    called in-process); it must find exactly the failing tests, and a crash, as a fresh `dafny /compile:4`
    process does (probed on 3 tasks x 3 candidates: identical outcomes and reasons)."""
    off_by_one = {**DAFNY_REF, "code": DAFNY_REF["code"].replace("r := 1;", "r := 2;")}  # every non-empty test fails
    throws = {**DAFNY_REF, "code": "{\n    r := a[|a|];\n}\n"}  # index out of range at run time: exit code 3
    requests, processes = dafny_served.server_requests, dafny_served.processes
    assert dafny_served.run_tests(PROD_SEQ, DAFNY_REF).passed
    doubled = dafny_served.run_tests(PROD_SEQ, off_by_one)
    assert doubled.failing == [i for i, test in enumerate(PROD_SEQ.tests) if test["expected"] != 0]
    assert doubled.failing and doubled.reason == f"{len(doubled.failing)} test(s) fail"
    crashed = dafny_served.run_tests(PROD_SEQ, throws)
    assert not crashed.passed and crashed.reason.startswith("code does not compile or run")
    assert dafny_served.server_requests == requests + 3 and dafny_served.processes == processes


def test_a_silent_test_host_is_killed_at_the_wall_limit_and_restarted(tmp_path):
    from proceedings.verified_codegen.dafny_server import DafnyTestHost

    silent = tmp_path / "host"
    silent.write_text("#!/bin/sh\nsleep 30\n")
    silent.chmod(0o755)
    host = DafnyTestHost([str(silent)])
    assert host.run(tmp_path / "t.dfy", [], timeout_s=0.1) is None and host.proc is None
    assert host.run(tmp_path / "t.dfy", [], timeout_s=0.1) is None and host.starts == 2


def test_process_tree_cpu_counts_a_busy_grandchild():
    import signal
    import subprocess
    import sys
    import time

    from proceedings.verified_codegen.dafny_server import tree_cpu_s

    spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ntime.sleep(30)"
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {spin!r}])"],
                              start_new_session=True)
    try:
        deadline = time.time() + 10
        while tree_cpu_s(parent.pid) < 0.15 and time.time() < deadline:
            time.sleep(0.05)
        assert tree_cpu_s(parent.pid) >= 0.15  # the spinning grandchild, still running, is counted
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()


def test_a_silent_dafny_server_is_killed_at_the_wall_limit_and_restarted(tmp_path):
    from proceedings.verified_codegen.dafny_server import DafnyServer

    silent = tmp_path / "server"
    silent.write_text("#!/bin/sh\nsleep 30\n")
    silent.chmod(0o755)
    server = DafnyServer([str(silent)])
    assert server.verify("method M() {}", [], timeout_s=0.3) is None and server.proc is None
    assert server.verify("method M() {}", [], timeout_s=0.3) is None and server.starts == 2


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
    ("'fake' depends on axioms: [propext]\n'double_spec' depends on axioms: [propext, myAxiom]\n", "rejected"),
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
