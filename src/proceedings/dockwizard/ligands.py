"""Ligands from the PDB Chemical Component Dictionary (shipped in biotite's wheel) as RDKit molecules.

The CCD gives every PDB ligand its name, formula, bonds with orders and ideal 3-D coordinates; its
atom names are those of the ligand's atoms in a PDB entry, so a crystal pose becomes an RDKit
molecule by copying coordinates name by name. The drug-like subset (RDKit-sanitisable, 10-40 heavy
atoms, organic elements only) is clustered by Morgan fingerprint (Butina) for held-out splits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.structures import Ligand

ORGANIC = {"C", "N", "O", "S", "P", "F", "CL", "BR", "I"}
DRUG_LIKE_HEAVY_ATOMS = (10, 40)  # spec §4.1
MAX_BOND_LENGTH = 2.5  # Å: above every covalent bond between ORGANIC elements (C-I 2.14, Br-Br 2.28)
CLUSTER_DISTANCE = 0.6  # Butina cut-off on Tanimoto distance (1 - similarity) of Morgan r=2 fingerprints


@dataclass(frozen=True)
class LigandInfo:
    code: str
    name: str
    formula: str
    smiles: str


@lru_cache(maxsize=512)
def ccd_molecule(code: str):
    """The CCD component `code` as a sanitised RDKit molecule without hydrogens (ideal coordinates),
    with each atom's CCD name in the property 'name'."""
    import biotite.structure.info as info
    from biotite.interface import rdkit as bt_rdkit
    from rdkit import Chem

    code = code.upper()
    try:
        atoms = info.residue(code)
    except KeyError:
        raise ProceedingsError(f"unknown CCD code '{code}' (field 'ligand'): not in the PDB Chemical Component "
                               "Dictionary") from None
    try:
        mol = bt_rdkit.to_mol(atoms, explicit_hydrogen=True)
        mol = Chem.RemoveHs(mol, sanitize=True)
    except Exception as err:  # RDKit raises several types for unsanitisable chemistry
        raise ProceedingsError(f"CCD component '{code}' cannot be made an RDKit molecule ({err})") from None
    heavy_names = [str(n) for n, e in zip(atoms.atom_name, atoms.element) if e != "H"]
    for atom, name in zip(mol.GetAtoms(), heavy_names):
        atom.SetProp("name", name)
    return mol


def ligand_info(code: str) -> LigandInfo:
    import biotite.structure.info as info
    from rdkit import Chem
    from rdkit.Chem.rdMolDescriptors import CalcMolFormula

    mol = ccd_molecule(code)
    try:
        name = str(info.get_from_ccd("chem_comp", code.upper(), "name").as_item())
    except Exception:
        name = code.upper()
    return LigandInfo(code.upper(), name, CalcMolFormula(mol), Chem.MolToSmiles(mol))


def ligand_description(code: str) -> str:
    """Ligand description text (spec §4.1 step 5): CCD name and formula plus RDKit descriptors."""
    from rdkit.Chem import Descriptors, Lipinski, rdMolDescriptors

    item, mol = ligand_info(code), ccd_molecule(code)
    return (f"{item.name.lower()} ({item.code}), formula {item.formula}, molecular weight "
            f"{Descriptors.MolWt(mol):.0f} Da, logP {Descriptors.MolLogP(mol):.1f}, {Lipinski.NumHDonors(mol)} "
            f"H-bond donors, {Lipinski.NumHAcceptors(mol)} acceptors, "
            f"{rdMolDescriptors.CalcNumAromaticRings(mol)} aromatic rings.")


def mol_from_smiles(smiles: str):
    """A sanitised molecule, or a one-line error naming the field."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    mol = Chem.MolFromSmiles(smiles) if smiles else None
    if mol is None or mol.GetNumAtoms() == 0:
        raise ProceedingsError(f"invalid SMILES {smiles!r} (field 'ligand_smiles')")
    return mol


def posed_molecule(ligand: Ligand):
    """The CCD molecule of `ligand.code` with the pose's coordinates, matched by atom name."""
    from rdkit import Chem
    from rdkit.Geometry import Point3D

    mol = Chem.Mol(ccd_molecule(ligand.code))
    position = {name: xyz for name, xyz in zip(ligand.names, ligand.xyz)}
    conformer = Chem.Conformer(mol.GetNumAtoms())
    for atom in mol.GetAtoms():
        name = atom.GetProp("name")
        if name not in position:
            raise ProceedingsError(f"pose of {ligand.code} lacks atom {name}; pose does not match SMILES")
        conformer.SetAtomPosition(atom.GetIdx(), Point3D(*map(float, position[name])))
    mol.RemoveAllConformers()
    mol.AddConformer(conformer, assignId=True)
    _check_bond_lengths(mol, ligand.code)
    return mol


def _check_bond_lengths(mol, code: str) -> None:
    """A pose whose bonded atoms sit far apart names its atoms wrongly (round 11: every docked pose had meeko's
    atom order under the CCD's names); one clear error instead of a scrambled ligand."""
    xyz = mol.GetConformer().GetPositions()
    for bond in mol.GetBonds():
        a, b = bond.GetBeginAtom(), bond.GetEndAtom()
        length = float(np.linalg.norm(xyz[a.GetIdx()] - xyz[b.GetIdx()]))
        if length > MAX_BOND_LENGTH:
            raise ProceedingsError(f"pose of {code}: bonded atoms {a.GetProp('name')} and {b.GetProp('name')} are "
                                   f"{length:.1f} Å apart; the pose's atom names do not match its coordinates")


def template_order_xyz(posed, template) -> np.ndarray:
    """Heavy-atom coordinates of `posed` in the atom order of `template`, the same molecule in another
    order: meeko rebuilds a docked pose from the SMILES it writes into the PDBQT, so its atoms come in
    SMILES order, not the CCD's. Matched by substructure (elements, bonds, charges); topologically
    equivalent atoms may trade places, which keeps every bond's length."""
    from rdkit import Chem

    posed = Chem.RemoveHs(posed)
    match = posed.GetSubstructMatch(template) if posed.GetNumAtoms() == template.GetNumAtoms() else ()
    if len(match) != template.GetNumAtoms():
        raise ProceedingsError(f"docked pose does not match the CCD molecule ({posed.GetNumAtoms()} heavy atoms "
                               f"for {template.GetNumAtoms()}): its atoms cannot be named")
    return posed.GetConformer().GetPositions()[list(match)]


def same_graph(mol_a, mol_b) -> bool:
    """Graph isomorphism of heavy-atom graphs (elements and connectivity; bond orders, charges and
    hydrogens ignored), the spec's test that a pose and a SMILES describe one molecule."""
    from rdkit import Chem

    a, b = (_skeleton(Chem.RemoveHs(m, sanitize=False)) for m in (mol_a, mol_b))
    return a.GetNumAtoms() == b.GetNumAtoms() and a.GetNumBonds() == b.GetNumBonds() and a.HasSubstructMatch(b)


def _skeleton(mol):
    from rdkit import Chem

    skeleton = Chem.RWMol(mol)
    for atom in skeleton.GetAtoms():
        atom.SetFormalCharge(0)
        atom.SetIsAromatic(False)
        atom.SetNoImplicit(True)
        atom.SetNumExplicitHs(0)
    for bond in skeleton.GetBonds():
        bond.SetBondType(Chem.BondType.SINGLE)
        bond.SetIsAromatic(False)
    return skeleton.GetMol()


def check_pose_matches_smiles(pose_mol, smiles: str) -> None:
    if not same_graph(pose_mol, mol_from_smiles(smiles)):
        raise ProceedingsError("pose does not match SMILES (field 'ligand_pose_sdf'): the heavy-atom graphs differ")


def is_drug_like(mol) -> bool:
    low, high = DRUG_LIKE_HEAVY_ATOMS
    return (low <= mol.GetNumHeavyAtoms() <= high
            and all(a.GetSymbol().upper() in ORGANIC for a in mol.GetAtoms()))


def morgan_clusters(mols: list) -> list[int]:
    """Butina clusters of Morgan (radius 2, 2048 bits) fingerprints; one cluster id per molecule."""
    from rdkit import DataStructs
    from rdkit.Chem import rdFingerprintGenerator
    from rdkit.ML.Cluster import Butina

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    fps = [generator.GetFingerprint(m) for m in mols]
    distances = []
    for i in range(1, len(fps)):
        similarities = DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])
        distances.extend(1.0 - s for s in similarities)
    clusters = Butina.ClusterData(distances, len(fps), CLUSTER_DISTANCE, isDistData=True)
    label = np.zeros(len(mols), dtype=int)
    for cluster_id, members in enumerate(clusters):
        label[list(members)] = cluster_id
    return label.tolist()
