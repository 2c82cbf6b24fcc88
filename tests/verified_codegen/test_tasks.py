"""The task format: regions split and re-assemble exactly; malformed tasks name file and line."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.candidates import reference_candidate
from proceedings.verified_codegen.cheats import regions_of
from proceedings.verified_codegen.tasks import load_task, load_tasks


def test_every_shipped_spec_file_reassembles_from_its_reference_regions():
    for task in load_tasks():
        for backend in task.backends:
            spec = task.spec(backend)
            assert task.assemble(backend, spec.reference) == spec.path.read_text()
            assert reference_candidate(task, backend).regions() == spec.reference


def test_protected_text_comes_from_the_task_whatever_the_candidate_wrote():
    task = load_tasks(ids=("count_pos",))[0]
    text = task.assemble("coq", {"code": "Definition count_pos (l : list Z) : nat := O.\n"})
    assert "Theorem count_pos_correct : forall l, count_pos l = count_pos_spec l." in text
    assert "fold_right" not in text


def test_a_whole_file_with_an_edited_spec_is_rejected_as_tampering():
    task = load_tasks(ids=("sum_seq",))[0]
    spec = task.spec("dafny")
    original = spec.path.read_text()
    regions, why = regions_of(spec, original)
    assert why == "" and regions == spec.reference
    _, why = regions_of(spec, original.replace("ensures r == Sum(a)", "ensures true"))
    assert why.startswith("spec tampering")
    _, why = regions_of(spec, original.replace("// </code>\n", ""))
    assert "region markers" in why


def test_malformed_tasks_name_the_file_and_line(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    with pytest.raises(ProceedingsError, match="no task.json"):
        load_task(folder)
    (folder / "task.json").write_text('{"id": "bad",\n "signature": }')
    with pytest.raises(ProceedingsError, match=r"task.json:2: not valid JSON"):
        load_task(folder)
    meta = {"id": "bad", "signature": {"name": "f", "parameters": [{"param_name": "a", "param_type": "int"}]},
            "tests": [{"input": [1], "expected": 1}], "backends": {"dafny": "t.dfy"}}
    (folder / "task.json").write_text(json.dumps(meta))
    (folder / "t.dfy").write_text("// <helpers>\n// </helpers>\n// <proofs>\n// </proofs>\n// <code>\n{\n}\n")
    with pytest.raises(ProceedingsError, match=r"t.dfy:5: region 'code' is never closed"):
        load_task(folder)
    (folder / "t.dfy").write_text("// <helpers>\n// </helpers>\n// <code>\n{\n}\n// </code>\n")
    with pytest.raises(ProceedingsError, match=r"t.dfy:1: dafny spec lacks the editable region\(s\) proofs"):
        load_task(folder)


@pytest.mark.slow  # ~3 checker runs per task (Dafny ~2 s each): `make test-all`
@pytest.mark.external("dafny")
@pytest.mark.external("coqc")
def test_every_shipped_reference_verifies_passes_its_tests_and_needs_its_proof():
    from proceedings.verified_codegen.tasks import SHIPPED
    from proceedings.verified_codegen.validate import validate_tasks

    assert validate_tasks(SHIPPED) == []
