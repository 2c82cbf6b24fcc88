"""Every shipped reference solution verifies and passes its tests (issue 24: "every shipped reference
solution verifies in CI"), and the same gate rejects corrupted references beside them.

The gate test is marked slow, so the fast suite leaves it out; `make test` runs it as its own step:
`$(PY) -m pytest -q -m slow tests/verified_codegen/test_references.py` (every Dafny verification a request
to one warm test host, every Dafny test in one compiled program (batch.py), a `coqc` per Coq check)."""

from dataclasses import replace

import pytest

from proceedings.verified_codegen.batch import _charge, bundle
from proceedings.verified_codegen.candidates import reference_candidate
from proceedings.verified_codegen.commit0 import COMMIT0
from proceedings.verified_codegen.tasks import SHIPPED, load_tasks
from proceedings.verified_codegen.validate import references, solution_problems


def corrupted() -> list[tuple]:
    """Three broken references, each beside the real ones in the same runs: a Dafny loop without its
    accumulator invariant (its tests pass), a Dafny loop that adds one too many (tests fail too), and a
    Coq proof that does not prove the theorem."""
    sum_seq, sum_list = load_tasks(ids=("sum_seq", "sum_list"))
    dafny, coq = reference_candidate(sum_seq, "dafny").regions(), reference_candidate(sum_list, "coq").regions()
    return [(replace(sum_seq, id="sum_seq_no_invariant"), "dafny",
             {**dafny, "code": dafny["code"].replace("        invariant r == Sum(a[i..])\n", "")}),
            (replace(sum_seq, id="sum_seq_off_by_one"), "dafny",
             {**dafny, "code": dafny["code"].replace("r := a[i] + r;", "r := a[i] + r + 1;")}),
            (replace(sum_list, id="sum_list_wrong_proof"), "coq", {**coq, "proof": "  intros l. lia.\n"})]


@pytest.mark.slow  # its own `make test` step (module docstring)
@pytest.mark.external("dafny")
@pytest.mark.external("coqc")
def test_every_shipped_reference_verifies_and_passes_its_tests_and_corrupted_ones_beside_them_fail():
    shipped = references(load_tasks(SHIPPED) + load_tasks(COMMIT0))
    broken = corrupted()
    problems = solution_problems(shipped + broken)
    failing = {f"{task.id} [{backend}]": why for (task, backend, _), why in zip(shipped, problems) if why}
    assert len(shipped) >= 70 and failing == {}
    no_invariant, off_by_one, wrong_proof = problems[len(shipped):]
    assert no_invariant.startswith("failed: dafny exit 4") and "postcondition" in no_invariant and ";" not in no_invariant
    assert off_by_one.startswith("failed: dafny exit 4") and off_by_one.endswith("; test(s) [1, 2, 3] fail")
    assert wrong_proof.startswith("failed: coqc exit 1")


def test_a_batched_error_line_is_charged_to_the_task_whose_module_holds_it():
    batch = bundle(["method A() {\n}\n", "method B()\n{\n  assert false;\n}\n", "method C() {\n}\n"])
    assert batch.starts == (1, 5, 11) and batch.text.count("module VcgBatch") == 3
    output = "batch.dfy(8,3): Error: assertion violation\nExecution trace:\n    batch.dfy(6,0): anon0\n" \
             "Dafny program verifier finished with 2 verified, 1 error\n"
    assert _charge(batch, output, 3) == {0: [], 1: ["batch.dfy(8,3): Error: assertion violation"], 2: []}
    assert _charge(batch, "Error: out of memory\n", 3) == {n: ["Error: out of memory"] for n in range(3)}
