"""The profiler, docking text, CCD ligands and Vina on the real 6WQA/ZMA complex (issue 26's fast tests)."""

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.docking_text import docking_text, names_residue_type, parse, warn_unknown_positions
from proceedings.dockwizard.interactions import Interaction, backbone_made, profile, satisfied
from proceedings.dockwizard.ligands import ccd_molecule, check_pose_matches_smiles, mol_from_smiles, posed_molecule, same_graph


def test_profiler_finds_the_asn253_hydrogen_bond_and_the_phe168_pi_stack_of_zma_in_a2a(a2a):
    complex_, mol = a2a
    found = {(i.kind, i.label) for i in profile(complex_, mol)}
    assert ("hydrogen bond", "Asn253") in found
    assert ("pi-stacking", "Phe168") in found


def test_ccd_zma_smiles_is_graph_isomorphic_to_the_ligand_posed_in_6wqa(a2a):
    from rdkit import Chem

    _, mol = a2a
    smiles = Chem.MolToSmiles(ccd_molecule("ZMA"))
    assert same_graph(mol, mol_from_smiles(smiles))
    check_pose_matches_smiles(mol, smiles)
    with pytest.raises(ProceedingsError, match="pose does not match SMILES"):
        check_pose_matches_smiles(mol, "c1ccccc1CCN")


def test_bad_ligand_inputs_are_one_line_errors_naming_the_field():
    with pytest.raises(ProceedingsError, match="invalid SMILES"):
        mol_from_smiles("C1CC")
    with pytest.raises(ProceedingsError, match="unknown CCD code 'QQQQ'"):
        ccd_molecule("QQQQ")


def test_records_to_docking_text_to_records_round_trips_and_masked_text_names_no_residue_type(a2a):
    complex_, mol = a2a
    pocket = complex_.pocket()
    found = profile(complex_, mol)
    full, masked = docking_text(found, len(pocket)), docking_text(found, len(pocket), masked=True)
    expected = [{"kind": i.kind, "residue": i.residue, "number": i.number, "residue_name": i.residue_name,
                 "ligand_group": i.ligand_group} for i in found]
    assert parse(full) == expected
    assert parse(masked) == [{**e, "residue_name": None} for e in expected]
    assert names_residue_type(full) and not names_residue_type(masked)


def test_docking_text_naming_residues_outside_the_pocket_warns_listing_them(a2a):
    complex_, _ = a2a
    text = "The residue at position A9999 forms a hydrogen bond with the ligand's hydroxyl."
    with pytest.warns(UserWarning, match="A9999"):
        assert warn_unknown_positions(text, complex_.pocket()) == ["A9999"]


def test_a_stated_interaction_is_satisfied_only_at_its_position_and_kind():
    stated = [Interaction("hydrogen bond", "A253", "ASN", 253, "amine", 3.0)]
    assert satisfied(stated, [Interaction("hydrogen bond", "A253", "SER", 253, "hydroxyl", 3.2)]) == [True]
    assert satisfied(stated, [Interaction("pi-stacking", "A253", "PHE", 253, "furan", 4.0)]) == [False]


def test_native_zma_after_vina_local_optimisation_scores_minus_8_within_1_kcal(a2a):
    from proceedings.dockwizard.docking import vina_scores

    complex_, mol = a2a
    scores = vina_scores(complex_.residues, mol)
    assert -9.0 <= scores.optimized <= -7.0
    assert scores.optimized <= scores.score and scores.drift < 2.0


def test_openbabel_leaves_freetype_py_the_newer_freetype():
    """openbabel's wheel bundles FreeType 2.8.0; loaded first it would serve NIV's freetype-py (needs >= 2.8.1)
    for the rest of the process. A fresh interpreter, as `make test` runs both systems' tests in one."""
    import subprocess
    import sys

    pytest.importorskip("freetype")
    code = ("from proceedings.dockwizard.docking import vina_class; vina_class(); "
            "import freetype; print(*freetype.version())")
    version = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert tuple(map(int, version)) >= (2, 8, 1)


def test_stated_hydrogen_bonds_the_backbone_alone_makes_are_found_and_side_chain_contacts_are_not():
    from proceedings.dockwizard.data import FIXTURE, load_samples

    (low,) = [s for s in load_samples() if s.id == "6WQA-LOW"]
    stated = [Interaction(**i) for i in low.interactions]
    made = backbone_made(stated, low.scaffold_complex(FIXTURE), posed_molecule(low.ligand), low.pocket)
    assert sorted(f"{s.kind} {s.residue}" for s, m in zip(stated, made) if m) == ["hydrogen bond A80", "hydrogen bond A81"]


def test_the_native_zma_pocket_states_no_interaction_its_backbone_alone_makes(a2a):
    complex_, mol = a2a
    stated = profile(complex_, mol)
    assert not any(backbone_made(stated, complex_, mol, complex_.pocket()))


def test_a_docked_pose_keeps_each_ccd_atom_at_its_own_coordinates(a2a):
    """meeko rebuilds a PDBQT pose in its SMILES's atom order; `named_pose` puts it back in the CCD's order
    (before the fix the CCD names were zipped onto meeko's order, scrambling every docked ligand)."""
    import numpy as np

    from proceedings.dockwizard.builder import meeko_molecule, named_pose
    from proceedings.dockwizard.docking import ligand_pdbqt

    complex_, mol = a2a
    meeko_order = meeko_molecule(ligand_pdbqt(mol))
    assert not np.allclose(meeko_order.GetConformer().GetPositions(), complex_.ligand.xyz, atol=0.01)
    pose = named_pose(meeko_order, "ZMA")
    by_name = dict(zip(pose["names"], np.array(pose["xyz"])))
    assert np.allclose([by_name[n] for n in complex_.ligand.names], complex_.ligand.xyz, atol=0.01)


def test_a_pose_whose_atom_names_do_not_match_its_coordinates_is_one_clear_error(a2a):
    import numpy as np

    from proceedings.dockwizard.structures import Ligand

    complex_, _ = a2a
    ligand = complex_.ligand
    scrambled = Ligand(ligand.code, ligand.names, ligand.elements, ligand.xyz[::-1].copy())
    with pytest.raises(ProceedingsError, match="pose of ZMA: bonded atoms .* Å apart"):
        posed_molecule(scrambled)


def test_every_fixture_pose_has_covalent_bond_lengths():
    from proceedings.dockwizard.data import load_samples

    for sample in load_samples():
        posed_molecule(sample.ligand)  # raises on a bond longer than MAX_BOND_LENGTH
