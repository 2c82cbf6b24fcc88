"""commit0-mini: the builder records the real libraries, the hidden tests stay hidden, and a solution that
reads the reference or the tests scores 0."""

import json
from collections import Counter
from importlib.util import find_spec
from dataclasses import replace

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen import commit0
from proceedings.verified_codegen.agents import ReplayAgent
from proceedings.verified_codegen.candidates import Candidate, reference_candidate
from proceedings.verified_codegen.commit0 import COMMIT0, build, hidden_tests
from proceedings.verified_codegen.differential import agreement, blind_file, recorded_tests
from proceedings.verified_codegen.folds import dafny_fold
from proceedings.verified_codegen.tasks import load_task, load_tasks
from proceedings.verified_codegen.workflows import WORKFLOWS, Settings, solve

TASKS = {t.id: t for t in load_tasks(COMMIT0)}
LIBRARIES = ("hypothesis", "toolz", "more_itertools", "sortedcontainers")
needs_libraries = pytest.mark.skipif(any(find_spec(m) is None for m in LIBRARIES),
                                     reason=f"build-commit0 records from the installed {', '.join(LIBRARIES)}")


def test_the_shipped_set_has_eight_apis_of_three_libraries_and_three_relations():
    apis = [t for t in TASKS.values() if t.tests]
    relations = [t for t in TASKS.values() if not t.tests]
    libraries = Counter(json.loads((t.folder / "task.json").read_text())["library"] for t in apis)
    assert len(apis) == 8 and len(libraries) == 3 and len(relations) == 3
    assert all(len(t.tests) == 4 and len(hidden_tests(t)) >= 30 for t in apis)
    assert sorted(t.id for t in apis if "coq" in t.backends) == ["sortedcontainers_count", "toolz_count"]


def test_one_signature_serves_both_backends_dafny_types_are_spelled_for_coq():
    from proceedings.verified_codegen.checkers import CoqChecker

    task = TASKS["sortedcontainers_count"]
    coq = CoqChecker(executable="coqc")
    solution = reference_candidate(task, "coq").regions()
    assert "Eval vm_compute in (CountValue [] (0))." in coq.test_file(task, solution)
    assert "(CountValue : (list Z) -> (Z) -> (Z))" in coq.audited(task, task.assemble("coq", solution))


@needs_libraries
def test_a_rebuild_records_the_same_tests_from_the_libraries_and_leaves_authored_specs_alone(tmp_path):
    (tmp_path / "toolz_count").mkdir()
    (tmp_path / "toolz_count" / "task.dfy").write_text("authored")
    (tmp_path / "toolz_count" / "task.v").write_text((COMMIT0 / "toolz_count" / "task.v").read_text())  # a Coq spec too
    written = build(tmp_path, ("toolz",))
    assert written == ["toolz_count", "rel_concat_partition_all"]
    for task in written:
        for name in ("task.json", "hidden_tests.json"):
            if (COMMIT0 / task / name).exists():
                assert (tmp_path / task / name).read_text() == (COMMIT0 / task / name).read_text()
    assert (tmp_path / "toolz_count" / "task.dfy").read_text() == "authored"
    load_task(tmp_path / "rel_concat_partition_all")  # a new task gets a stub with every region, for the author
    stub = (tmp_path / "rel_concat_partition_all" / "task.dfy").read_text()
    assert "lemma {:induction false} ConcatPartitionAll(n: int, s: seq<int>)\n    // TODO: ensures" in stub


@needs_libraries
def test_build_commit0_verb_writes_the_tasks_of_one_library(tmp_path):
    from typer.testing import CliRunner

    from proceedings.verified_codegen.cli import app

    result = CliRunner().invoke(app, ["build-commit0", "--out", str(tmp_path), "--library", "sortedcontainers", "--examples", "5"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "rel_bisect_count", "sortedcontainers_bisect_left", "sortedcontainers_bisect_right", "sortedcontainers_count"]


@needs_libraries
def test_a_relation_the_library_breaks_is_refused_naming_the_input(tmp_path, monkeypatch):
    """Without its precondition n > 0 the relation is false: toolz's partition_all(0, a) yields nothing."""
    rel = commit0.RELATIONS[0]
    broken = replace(rel, params=((rel.params[0][0], "int", lambda: commit0._int(0, 0)), rel.params[1]))
    monkeypatch.setattr(commit0, "RELATIONS", (broken,))
    with pytest.raises(ProceedingsError, match=r"rel_concat_partition_all: the relation .* fails on the library for \[0, \["):
        build(tmp_path, ("toolz",))
    with pytest.raises(ProceedingsError, match="no commit0-mini APIs for \\['nosuchlib'\\]"):
        build(tmp_path, ("nosuchlib",))


def test_the_differential_program_depends_on_the_inputs_alone_and_agents_never_see_hidden_tests():
    task = TASKS["sortedcontainers_count"]
    recorded = recorded_tests(task)
    solution = reference_candidate(task, "dafny").regions()
    from proceedings.verified_codegen.checkers import DafnyChecker

    checker = DafnyChecker(executable="dafny")
    scrambled = [{**test, "expected": test["expected"] + 1000} for test in recorded]
    assert blind_file(task, checker, solution, recorded) == blind_file(task, checker, solution, scrambled)
    hidden = {json.dumps(test) for test in hidden_tests(task)}
    assert not hidden & {json.dumps(test) for test in task.tests}  # what a workflow and an agent get


@pytest.mark.external("dafny")
@pytest.mark.parametrize("cheat", [
    '{\n    r := 0;\n}\ninclude "{reference}"\n',
    '{\n    r := ReadExpected();\n}\nmethod {:extern} ReadExpected() returns (r: int)\n',
], ids=["include-the-reference", "extern-reads-the-tests"])
def test_a_solution_that_reads_the_reference_or_the_tests_scores_zero(cheat, dafny):
    task = TASKS["toolz_count"]
    code = cheat.replace("{reference}", str(task.folder / "task.dfy"))
    agent = ReplayAgent({"joint": [Candidate("dafny", code)], "code": [Candidate("dafny", code)]})
    for workflow in ("joint", "sequential"):
        attempt = solve(task, workflow, agent, dafny, Settings(checks=4))
        assert not attempt.solved
    assert dafny.verify(task, {"code": code}).status == "rejected"
    found = agreement(task, dafny, {"code": code})
    assert not found.agrees and found.reason.startswith("rejected")


@pytest.mark.external("dafny")
def test_code_that_memorises_the_visible_tests_neither_verifies_nor_agrees_with_the_library(dafny_served):
    """A lookup table of the visible tests' answers (it passes them: the slow validate test runs the
    reference the same way) fails the proof and disagrees with the library on the hidden inputs."""
    task = TASKS["toolz_count"]
    lookup = "{\n" + "".join(f"    if a == {t['input'][0]} {{ return {t['expected']}; }}\n" for t in task.tests) + \
        "    return 0;\n}\n"
    assert dafny_served.verify(task, {"code": lookup}).status == "failed"
    memorised = agreement(task, dafny_served, {"code": lookup})  # a fresh compile-and-run process
    assert memorised.inputs == 40 and set(memorised.mismatches) <= set(range(4, 40)) and len(memorised.mismatches) > 20


@needs_libraries
def test_sketches_read_extra_parameters_from_the_spec_and_a_spec_stub_gets_nothing(tmp_path):
    from proceedings.verified_codegen.checkers import DafnyChecker
    from proceedings.verified_codegen.sketch import SketchAgent

    fold = dafny_fold(TASKS["sortedcontainers_count"])
    assert (fold.direction, fold.extra, fold.call("a[..i]")) == ("front", ("k",), "CountEq(a[..i], k)")
    assert dafny_fold(TASKS["more_itertools_polynomial_eval"]).combine == "{rest} * t + {x}"
    build(tmp_path, ("toolz",), examples=3)
    stub = load_task(tmp_path / "toolz_count")  # no contract written yet: neither a fold nor a relation
    agent = SketchAgent()
    assert agent.pool(stub, "dafny") == [] and agent.plan(stub, "dafny", "") is None
    checker = DafnyChecker(executable="dafny")  # never started: nothing is proposed, nothing is checked
    attempts = [solve(stub, w, agent, checker, Settings()) for w in WORKFLOWS]
    assert [(a.solved, a.checks) for a in attempts] == [(False, 0)] * 3


@pytest.mark.slow
@pytest.mark.external("dafny")
def test_every_commit0_reference_verifies_needs_its_proof_and_agrees_with_the_library():
    from proceedings.verified_codegen.validate import validate_tasks

    assert validate_tasks(COMMIT0) == []
