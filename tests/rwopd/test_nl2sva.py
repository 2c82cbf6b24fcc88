"""The shipped NL2SVA references: loading, validity, self-equivalence, categories."""

import pytest

pytest.importorskip("pyslang")
from proceedings.core.errors import ProceedingsError  # noqa: E402
from proceedings.rwopd.nl2sva import data_dir, load_nl2sva  # noqa: E402
from proceedings.rwopd.pec import Verdict, check_equivalence  # noqa: E402

try:
    data_dir()
    HAVE_DATA = True
except ProceedingsError:
    HAVE_DATA = False
needs_data = pytest.mark.skipif(not HAVE_DATA, reason="NL2SVA CSVs not found: set $RWOPD_NL2SVA_DIR")

KNOWN_INVALID = {"3_11_0", "3_85_0", "3_101_0", "3_149_0", "3_36_0", "3_49_0", "3_94_0", "3_122_0", "4_95_0",
                 "3_56_0", "4_52_0"}  # SOURCE.md of the shipped data


@needs_data
def test_machine_invalid_references_are_exactly_the_documented_eleven():
    tasks = load_nl2sva("machine")
    assert len(tasks) == 300
    assert {t.id for t in tasks if t.ref_invalid} == KNOWN_INVALID


def _self_checks(tasks) -> dict:
    from proceedings.rwopd.audit import respell

    return {t.id: check_equivalence(t.reference, respell(t.reference), testbench=t.testbench, timeout_s=30)
            for t in tasks if not t.ref_invalid}


def _assert_self_equivalent(verdicts: dict) -> None:
    wrong = {i: (r.verdict, r.message) for i, r in verdicts.items()
             if r.verdict not in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_BOUNDED, Verdict.UNSUPPORTED)}
    assert not wrong
    unsupported = {i: r.message for i, r in verdicts.items() if r.verdict == Verdict.UNSUPPORTED}
    # only the two Human tasks whose signals are unpacked arrays are outside the subset, and say why
    assert len(unsupported) <= 2 and all("non-integral" in m for m in unsupported.values())


@needs_data
@pytest.mark.parametrize("split", ["human", "machine"])
def test_a_sample_of_references_is_equivalent_to_a_different_spelling_of_itself(split):
    from proceedings.rwopd.audit import respell

    tasks = load_nl2sva(split)[::40]
    assert all(respell(t.reference) != t.reference for t in tasks)
    _assert_self_equivalent(_self_checks(tasks))


@needs_data
@pytest.mark.slow
@pytest.mark.parametrize("split", ["human", "machine"])
def test_every_shipped_valid_reference_is_equivalent_to_a_different_spelling_of_itself(split):
    _assert_self_equivalent(_self_checks(load_nl2sva(split)))


@needs_data
def test_categories_cover_bounded_machine_and_unbounded_human_tasks():
    human = {t.category for t in load_nl2sva("human")}
    machine = [t.category for t in load_nl2sva("machine")]
    assert human == {"combinational", "unbounded"}
    assert machine.count("bounded") > 100


def test_loader_reads_a_small_table_and_rejects_a_foreign_one(tmp_path):
    import csv

    bench = "module dummy(clk, reset_, sig_A, sig_B);\ninput clk; input reset_; input sig_A; input sig_B;\nendmodule"
    with open(tmp_path / "nl2sva_human.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["design_name", "task_id", "prompt", "ref_solution", "testbench"])
        writer.writerow(["x", "t1", "A then B", "assert property(@(posedge clk) sig_A |=> sig_B);", bench])
        writer.writerow(["x", "t2", "broken", "assert property(@(posedge clk) sig_A |-> );", bench])
    (tmp_path / "nl2sva_machine.csv").write_text("a,b\n1,2\n")
    tasks = load_nl2sva("human", tmp_path)
    assert [t.category for t in tasks] == ["bounded", ""] and tasks[1].ref_invalid
    with pytest.raises(ProceedingsError, match="lacks the columns"):
        load_nl2sva("machine", tmp_path)
    with pytest.raises(ProceedingsError, match="unknown NL2SVA split"):
        load_nl2sva("robots", tmp_path)
