"""Interaction profiler: PLIP-like geometric rules on RDKit pharmacophore features and residue atoms.

Spec §4.1 step 4. Heavy atoms only (crystal structures and packed designs carry no hydrogens), so an
H-bond is a donor-acceptor pair within 3.5 Å without the angle test PLIP applies to explicit
hydrogens. Salt bridge: opposite charge centres within 4.0 Å; π-stacking: ring centroids within
5.5 Å, parallel (< 30°) or T-shaped (> 60°); cation-π: a cation within 6.0 Å of a ring centroid;
hydrophobic contact: side-chain and ligand carbons within 4.0 Å. One record per residue and kind,
the closest contact, so a docking text states each constraint once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from proceedings.dockwizard.structures import BACKBONE, Complex, Residue

HBOND_MAX = 3.5
SALT_BRIDGE_MAX = 4.0
PI_STACK_MAX = 5.5
CATION_PI_MAX = 6.0
HYDROPHOBIC_MAX = 4.0
KINDS = ("hydrogen bond", "salt bridge", "pi-stacking", "cation-pi", "hydrophobic contact")

DONORS = {"ARG": ("NE", "NH1", "NH2"), "ASN": ("ND2",), "GLN": ("NE2",), "HIS": ("ND1", "NE2"), "LYS": ("NZ",),
          "SER": ("OG",), "THR": ("OG1",), "TYR": ("OH",), "TRP": ("NE1",), "CYS": ("SG",)}
ACCEPTORS = {"ASP": ("OD1", "OD2"), "GLU": ("OE1", "OE2"), "ASN": ("OD1",), "GLN": ("OE1",), "HIS": ("ND1", "NE2"),
             "SER": ("OG",), "THR": ("OG1",), "TYR": ("OH",), "MET": ("SD",)}
CATIONS = {"ARG": ("NE", "NH1", "NH2"), "LYS": ("NZ",), "HIS": ("ND1", "NE2")}
ANIONS = {"ASP": ("OD1", "OD2"), "GLU": ("OE1", "OE2")}
RINGS = {"PHE": ("CG", "CD1", "CD2", "CE1", "CE2", "CZ"), "TYR": ("CG", "CD1", "CD2", "CE1", "CE2", "CZ"),
         "TRP": ("CD2", "CE2", "CE3", "CZ2", "CZ3", "CH2"), "HIS": ("CG", "ND1", "CD2", "CE1", "NE2")}
HYDROPHOBIC = {"ALA": ("CB",), "VAL": ("CB", "CG1", "CG2"), "LEU": ("CB", "CG", "CD1", "CD2"),
               "ILE": ("CB", "CG1", "CG2", "CD1"), "MET": ("CB", "CG", "SD", "CE"), "PRO": ("CB", "CG"),
               "PHE": ("CB", "CG", "CD1", "CD2", "CE1", "CE2", "CZ"), "TRP": ("CB", "CG", "CD2", "CE3", "CZ2", "CZ3", "CH2"),
               "TYR": ("CB", "CG", "CD1", "CD2", "CE1", "CE2"), "THR": ("CG2",), "LYS": ("CB", "CG", "CD")}

# Ligand groups named in docking text: the first SMARTS (in this order) whose match holds the atom.
GROUPS = (("carboxylate", "[CX3](=O)[OX1H0-,OX2H1]"), ("sulfonamide", "S(=O)(=O)N"), ("guanidine", "NC(=N)N"),
          ("amidine", "[CX3](=[NX2])[NX3]"), ("amide", "[CX3](=O)[NX3]"), ("ester", "[CX3](=O)[OX2][#6]"),
          ("primary amine", "[NX3;H2;!$(NC=O)]"), ("hydroxyl", "[OX2H]"), ("carbonyl", "[CX3]=[OX1]"),
          ("furan", "o1cccc1"), ("thiophene", "s1cccc1"), ("imidazole", "n1cncc1"), ("triazole", "[n]1[n][c,n][c,n][c,n]1"),
          ("pyridine", "n1ccccc1"), ("benzene ring", "c1ccccc1"), ("aromatic ring", "[a]"), ("ether", "[OD2]([#6])[#6]"),
          ("amine", "[NX3;!$(NC=O)]"), ("halogen", "[F,Cl,Br,I]"), ("alkyl chain", "[CX4]"))


@dataclass(frozen=True)
class Interaction:
    """One stated constraint: the pocket residue, the kind of contact and the ligand group it touches."""

    kind: str
    residue: str  # key, e.g. "A253"
    residue_name: str  # three-letter, e.g. "ASN"
    number: int
    ligand_group: str
    distance: float

    @property
    def label(self) -> str:
        return f"{self.residue_name.capitalize()}{self.number}"

    def as_dict(self) -> dict:
        return asdict(self)


class LigandFeatures:
    """RDKit pharmacophore features (BaseFeatures.fdef) and group names of a posed ligand."""

    def __init__(self, mol):
        import os

        from rdkit import Chem, RDConfig
        from rdkit.Chem import ChemicalFeatures

        factory = _feature_factory(os.path.join(RDConfig.RDDataDir, "BaseFeatures.fdef"))
        self.xyz = mol.GetConformer().GetPositions()
        self.atoms: dict[str, set[int]] = {}
        for feature in factory.GetFeaturesForMol(mol):
            self.atoms.setdefault(feature.GetFamily(), set()).update(feature.GetAtomIds())
        self.rings = [list(ring) for ring in mol.GetRingInfo().AtomRings()
                      if all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring)]
        self.carbons = {a.GetIdx() for a in mol.GetAtoms() if a.GetSymbol() in ("C", "Cl", "Br", "I", "S")}
        self.group = ["ligand"] * mol.GetNumAtoms()
        for name, smarts in reversed(GROUPS):  # earlier groups overwrite later ones
            for match in mol.GetSubstructMatches(Chem.MolFromSmarts(smarts)):
                for i in match:
                    self.group[i] = name

    def indices(self, *families: str) -> list[int]:
        return sorted(set().union(*(self.atoms.get(f, set()) for f in families)))


_FACTORIES: dict = {}


def _feature_factory(path: str):
    from rdkit.Chem import ChemicalFeatures

    if path not in _FACTORIES:
        _FACTORIES[path] = ChemicalFeatures.BuildFeatureFactory(path)
    return _FACTORIES[path]


def _closest(residue: Residue, names: tuple[str, ...], xyz: np.ndarray, ligand_atoms: list[int]):
    """(distance, ligand atom index) of the closest pair, or None."""
    own = [residue.atoms[n] for n in names if n in residue.atoms]
    if not own or not ligand_atoms:
        return None
    d = np.linalg.norm(np.array(own)[:, None, :] - xyz[ligand_atoms][None, :, :], axis=-1)
    i, j = np.unravel_index(d.argmin(), d.shape)
    return float(d[i, j]), ligand_atoms[j]


def _ring_geometry(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centre = points.mean(axis=0)
    normal = np.linalg.svd(points - centre)[2][-1]
    return centre, normal


def _pi_stack(residue: Residue, features: LigandFeatures):
    names = RINGS.get(residue.name, ())
    if not all(n in residue.atoms for n in names) or not names:
        return None
    centre, normal = _ring_geometry(np.array([residue.atoms[n] for n in names]))
    best = None
    for ring in features.rings:
        ligand_centre, ligand_normal = _ring_geometry(features.xyz[ring])
        distance = float(np.linalg.norm(centre - ligand_centre))
        angle = np.degrees(np.arccos(min(1.0, abs(float(normal @ ligand_normal)))))
        if distance <= PI_STACK_MAX and (angle < 30 or angle > 60) and (best is None or distance < best[0]):
            best = (distance, ring[0])
    return best


def _cation_pi(residue: Residue, features: LigandFeatures):
    best = None
    cations = [residue.atoms[n] for n in CATIONS.get(residue.name, ()) if n in residue.atoms and residue.name != "HIS"]
    for ring in features.rings:  # protein cation over a ligand ring
        centre = features.xyz[ring].mean(axis=0)
        for xyz in cations:
            distance = float(np.linalg.norm(xyz - centre))
            if distance <= CATION_PI_MAX and (best is None or distance < best[0]):
                best = (distance, ring[0])
    names = RINGS.get(residue.name, ())
    if names and all(n in residue.atoms for n in names):  # ligand cation over a protein ring
        centre = np.mean([residue.atoms[n] for n in names], axis=0)
        for i in features.indices("PosIonizable"):
            distance = float(np.linalg.norm(features.xyz[i] - centre))
            if distance <= CATION_PI_MAX and (best is None or distance < best[0]):
                best = (distance, i)
    return best


def _contacts(residue: Residue, features: LigandFeatures) -> list[tuple[str, tuple[float, int] | None, float]]:
    """(kind, closest qualifying contact, cut-off) for each kind of interaction."""
    name, xyz = residue.name, features.xyz
    donors = DONORS.get(name, ()) + (("N",) if name != "PRO" else ())
    acceptors = ACCEPTORS.get(name, ()) + ("O",)
    hbonds = [c for c in (_closest(residue, donors, xyz, features.indices("Acceptor")),
                          _closest(residue, acceptors, xyz, features.indices("Donor"))) if c]
    salt = [c for c in (_closest(residue, CATIONS.get(name, ()), xyz, features.indices("NegIonizable")),
                        _closest(residue, ANIONS.get(name, ()), xyz, features.indices("PosIonizable"))) if c]
    return [("hydrogen bond", min(hbonds) if hbonds else None, HBOND_MAX),
            ("salt bridge", min(salt) if salt else None, SALT_BRIDGE_MAX),
            ("pi-stacking", _pi_stack(residue, features), PI_STACK_MAX),
            ("cation-pi", _cation_pi(residue, features), CATION_PI_MAX),
            ("hydrophobic contact", _closest(residue, HYDROPHOBIC.get(name, ()), xyz, sorted(features.carbons)),
             HYDROPHOBIC_MAX)]


def profile(complex_: Complex, ligand_mol, residues: list[str] | None = None) -> list[Interaction]:
    """Every interaction between the posed ligand and the given residues (default: the pocket)."""
    features = LigandFeatures(ligand_mol)
    found = []
    for key in residues if residues is not None else complex_.pocket():
        residue = complex_.residue(key)
        for kind, contact, cutoff in _contacts(residue, features):
            if contact is not None and contact[0] <= cutoff:
                found.append(Interaction(kind, residue.key, residue.name, residue.number,
                                         features.group[contact[1]], round(contact[0], 2)))
    return found


def satisfied(stated: list[Interaction], found: list[Interaction]) -> list[bool]:
    """Is each stated interaction re-detected (same residue position and kind) in a profiled complex?"""
    present = {(i.residue, i.kind) for i in found}
    return [(s.residue, s.kind) in present for s in stated]


def backbone_made(stated: list[Interaction], complex_: Complex, ligand_mol, pocket: list[str]) -> list[bool]:
    """Which stated interactions the pocket's backbone alone already makes (every pocket residue cut to
    glycine): backbone N-H / C=O hydrogen bonds. On a fixed backbone every design keeps them (a proline's
    missing N-H aside), so they say nothing about a design's side chains."""
    cut = {key: _glycine(complex_.residue(key)) for key in pocket}
    backbone = replace(complex_, residues=[cut.get(r.key, r) for r in complex_.residues])
    return satisfied(stated, profile(backbone, ligand_mol, pocket))


def _glycine(residue: Residue) -> Residue:
    kept = [name for name in BACKBONE if name in residue.atoms]
    return Residue(residue.chain, residue.number, "GLY", {n: residue.atoms[n] for n in kept},
                   {n: residue.elements[n] for n in kept if n in residue.elements})
