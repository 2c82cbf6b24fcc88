"""Verina and AlgoVeri loaders on files made here; the Dafny-4 -> 2.3 down-porter; AlgoVeri's
binary_search with a hand solution verifies on Dafny 2.3."""

import json
from pathlib import Path

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.benchmarks import down_port, lean_value, load_algoveri, load_verina, verina_tests
from proceedings.verified_codegen.tasks import load_tasks

ALGOVERI = Path(__file__).parents[2] / ".." / "shared" / "data" / "verified_codegen" / "algoveri"
VERINA = ALGOVERI.with_name("verina")


def test_down_port_rewrites_dafny4_spellings_and_names_what_it_cannot_convert():
    text = "ghost predicate P(x: int) { x > 0 }\nfunction F(x: int): int { x }\nghost function G(x: int): int { x }\n"
    out = down_port("t", text)
    assert out.unsupported == ()
    assert "predicate P(" in out.text and "predicate method P" not in out.text
    assert "function method F(" in out.text and "function G(" in out.text
    members = down_port("d", "datatype Node = Leaf | Inner(l: Node)\n{\n  predicate Valid() { true }\n}\n")
    assert members.unsupported == ("datatype member declarations",) and members.text == ""
    assert down_port("d", "datatype Node = Leaf | Inner(l: Node)\n\nfunction f(): int { 0 }\n").unsupported == ()
    assert down_port("s", "function f(n: nat): seq<int> { seq(n, i => i) }").unsupported == (
        "the seq(n, i => ...) constructor",)


def test_verina_layout_loads_as_a_lean_task(tmp_path):
    task_dir = tmp_path / "datasets" / "verina" / "verina_basic_0"
    task_dir.mkdir(parents=True)
    (task_dir / "task.json").write_text(json.dumps({
        "id": "verina_basic_0", "signature": {"name": "double", "parameters": [{"param_name": "n", "param_type": "Nat"}],
                                               "return_type": "Nat"},
        "lean_file": "./task.lean", "test_file": "./test.json", "description_file": "./description.txt"}))
    (task_dir / "description.txt").write_text("Double n.")
    (task_dir / "test.json").write_text(json.dumps([{"input": {"n": 2}, "expected": 4, "unexpected": [3]}]))
    (task_dir / "task.lean").write_text("".join(
        f"-- !benchmark @start {r}{' type=solution' if r == 'import' else ''}\n-- !benchmark @end {r}\n"
        for r in ("import", "code_aux", "code", "proof_aux", "proof", "import")))
    (task,) = load_verina(tmp_path)
    assert task.id == "verina_basic_0" and task.backends == ("lean",) and task.tests[0]["expected"] == 4
    assert task.description == "Double n."


@pytest.mark.skipif(not ALGOVERI.is_dir(), reason="no AlgoVeri copy at ../shared/data/verified_codegen/algoveri")
@pytest.mark.external("dafny")
def test_algoveri_binary_search_with_a_hand_solution_verifies_on_dafny_2_3(dafny):
    tasks, conversions = load_algoveri(ALGOVERI)
    assert len(conversions) == 77 and 55 <= len(tasks) <= 65  # FACTS.md: 59 of 77 resolve after the down-port
    (task,) = [t for t in tasks if t.id == "binary_search"]
    solution = {"helpers": "", "proofs": "", "code": """{
    var lo, hi := 0, |s|;
    while lo < hi
        invariant 0 <= lo <= hi <= |s|
        invariant forall i {:trigger s[i]} :: 0 <= i < lo ==> s[i] < target
        invariant forall i {:trigger s[i]} :: hi <= i < |s| ==> s[i] >= target
        decreases hi - lo
    {
        var mid := lo + (hi - lo) / 2;
        if s[mid] < target { lo := mid + 1; } else { hi := mid; }
    }
    result := lo;
}
"""}
    verdict = dafny.verify(task, solution)
    assert verdict.status == "verified", verdict.reason


def test_lean_literals_in_verina_tests_become_json_values():
    assert lean_value("#[1, -2, 3]") == [1, -2, 3] and lean_value("[0, 1]") == [0, 1] and lean_value("#[]") == []
    assert lean_value(-3) == -3 and lean_value(True) is True
    with pytest.raises(ProceedingsError, match="not a number, boolean or literal list"):
        lean_value("#['a', 'b']")


@pytest.mark.skipif(not VERINA.is_dir(), reason="no Verina copy at ../shared/data/verified_codegen/verina")
def test_every_verina_port_carries_verinas_own_tests():
    upstream = {task.id: task for task in load_verina(VERINA)}
    ports = [task for task in load_tasks() if task.source == "verina"]
    assert len(ports) >= 30
    for port in ports:
        meta = json.loads((port.folder / "task.json").read_text())
        order = [p["param_name"] for p in port.signature["parameters"]]
        assert list(port.tests) == verina_tests(upstream[meta["upstream"]], order), port.id


def test_at_least_thirty_verina_basic_tasks_are_ported_with_tests():
    ports = [task for task in load_tasks() if task.source == "verina"]
    basic = [task for task in ports if json.loads((task.folder / "task.json").read_text())["upstream"].startswith(
        "verina_basic_")]
    assert len(basic) >= 30 and all(task.tests for task in basic)
