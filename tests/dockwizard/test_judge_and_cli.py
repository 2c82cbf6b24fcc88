"""The LigandMPNN judge packs exactly the given pocket on its fixed backbone (only designed residues are read
back, so undesigned atoms stay the input's); the CLI's bad-input
paths are one-line errors; the evaluator records every design, failures included."""

import numpy as np
import pytest
from typer.testing import CliRunner

from proceedings.dockwizard.assets import has_ligandmpnn
from proceedings.dockwizard.cli import app
from proceedings.dockwizard.data import FIXTURE, load_samples
from proceedings.dockwizard.evaluation import evaluate, summarise

needs_ligandmpnn = pytest.mark.skipif(not has_ligandmpnn(), reason="LigandMPNN venv missing: run `make dockwizard-assets`")


@pytest.mark.slow  # one LigandMPNN subprocess: ~1 min of CPU, mostly torch start-up and weights
@needs_ligandmpnn
def test_packed_designs_carry_their_residues_and_undesigned_atoms_are_unchanged(tmp_path):
    from proceedings.dockwizard.judge import LigandMPNNJudge

    sample = min(load_samples(), key=lambda s: len(s.pocket))
    design = "".join("W" if a != "W" else "F" for a in sample.target[:3]) + sample.target[3:]
    (pack,) = LigandMPNNJudge().pack([(sample, design)], FIXTURE, tmp_path)
    assert not pack.error and "".join(r.letter for r in pack.residues) == design
    assert np.isfinite(pack.log_likelihood)
    shell = sample.scaffold_complex(FIXTURE)
    for packed in pack.residues:  # the packer rewrites the backbone it was given to within 0.1 Å
        native = shell.residue(packed.key)
        for atom in ("N", "CA", "C"):
            assert np.allclose(packed.atoms[atom], native.atoms[atom], atol=0.1)


def test_invalid_designs_are_recorded_with_their_error_and_never_dropped():
    sample = load_samples()[0]
    rows = evaluate({"arm": {sample.id: ["XX", sample.target]}}, [sample], FIXTURE, judge=None, stages=("sequence",))
    assert [r.valid for r in rows] == [False, True] and "invalid pocket" in rows[0].error
    assert summarise(rows)["designs"] == 2


def test_designs_whose_ligand_drifts_out_of_its_pose_are_counted_apart_and_leave_the_vina_metric_alone():
    from proceedings.dockwizard.evaluation import DRIFT_LIMIT, DesignRow

    rows = [DesignRow("c", "arm", 0, "A", True, vina=-5.42, drift=8.9, clashes=30),  # the tiny record's drifter
            DesignRow("c", "arm", 1, "A", True, vina=-4.0, drift=DRIFT_LIMIT, clashes=0)]
    summary = summarise(rows)
    assert summary["vina"] == -4.71  # the metric, unchanged: both poses count
    assert (summary["drifted"], summary["vina_in_pose"]) == (0.5, -4.0)


def test_profile_and_bad_inputs_on_the_command_line(pdb_folder):
    runner = CliRunner()
    done = runner.invoke(app, ["profile", str(pdb_folder / "6WQA.cif"), "--ligand", "ZMA"])
    assert done.exit_code == 0 and "Asn253" in done.output and "Phe168" in done.output
    done = runner.invoke(app, ["profile", str(pdb_folder / "6WQA.cif"), "--ligand", "ZMA", "--masked"])
    assert "The residue at position A253" in done.output
    bad = runner.invoke(app, ["profile", str(pdb_folder / "6WQA.cif"), "--ligand", "QQQQ"])
    assert bad.exit_code != 0


def test_a_ligand_with_a_five_character_ccd_code_keeps_the_pdb_columns_ligandmpnn_reads():
    import numpy as np

    from proceedings.dockwizard.structures import Ligand, pdb_lines

    (line, _) = pdb_lines([], Ligand("A1BQJ", ["C1"], ["C"], np.array([[-12.5, 3.25, 101.0]])))
    assert line[17:20] == "LIG" and [float(line[i: i + 8]) for i in (30, 38, 46)] == [-12.5, 3.25, 101.0]


def test_the_interaction_audit_names_each_lost_interaction_and_counts_kept_ones_per_kind(monkeypatch):
    from proceedings.dockwizard import evaluation
    from proceedings.dockwizard.docking import VinaScores
    from proceedings.dockwizard.evaluation import DesignRow, score_complex, summarise
    from proceedings.dockwizard.interactions import Interaction

    sample = next(s for s in load_samples() if s.id == "6WQA-ZMA")
    stated = [Interaction(**i) for i in sample.interactions]
    lost = next(s for s in stated if s.kind == "hydrogen bond")
    monkeypatch.setattr(evaluation, "vina_scores", lambda residues, mol, **kw: VinaScores(
        -6.0, -6.5, 0.3, optimized_xyz=mol.GetConformer().GetPositions()))
    monkeypatch.setattr(evaluation, "backbone_made", lambda stated, *a: [False] * len(stated))
    monkeypatch.setattr(evaluation, "profile", lambda *a: [s for s in stated if s != lost])
    row = DesignRow(sample.id, "arm", 0, sample.target, True)
    score_complex(row, sample, FIXTURE, [])
    assert row.lost == [f"hydrogen bond at {lost.residue} to the {lost.ligand_group}"]
    hbonds = sum(s.kind == "hydrogen bond" for s in stated)
    assert row.kept_by_kind["hydrogen bond"] == [hbonds - 1, hbonds]
    assert summarise([row])["satisfaction_by_kind"]["hydrogen bond"] == round((hbonds - 1) / hbonds, 4)
