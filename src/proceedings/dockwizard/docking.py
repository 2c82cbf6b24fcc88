"""AutoDock Vina on a (packed) receptor: the docking stage ("docking confidence") of the evaluation.

Primary score (issue): the Vina energy of the conditioning pose after local optimisation in the
receptor; redocking at exhaustiveness 8 is secondary (it missed native poses by 7-9 Å on
openbabel-prepared receptors). Receptors are prepared by openbabel (polar hydrogens, AutoDock atom
types), ligands by meeko from the RDKit molecule with hydrogens added at their coordinates.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.seeds import tool_seed
from proceedings.dockwizard.structures import Ligand, Residue, pdb_lines

BOX_MARGIN = 10.0  # Å added to the ligand's extent on every axis
MIN_BOX = 20.0  # Å (spec §4.1 step 3: 20 Å box)
CLASH_DISTANCE = 2.2  # Å, heavy atoms (issue: clashes < 2.2 Å)


@dataclass
class VinaScores:
    score: float  # the pose as given, kcal/mol
    optimized: float  # after local optimisation (the primary docking metric)
    drift: float  # heavy-atom RMSD between the pose and its locally optimised form, Å
    redock: float | None = None  # best docked energy (exhaustiveness 8), secondary
    redock_rmsd: float | None = None  # its top pose's RMSD to the conditioning pose, Å
    # the ligand's heavy atoms after local optimisation (left out of ==, which an array cannot answer)
    optimized_xyz: np.ndarray | None = field(default=None, compare=False, repr=False)


def openbabel_modules():
    """openbabel's `openbabel` and `pybel`. Its wheel bundles FreeType 2.8.0 under the soname every
    FreeType user shares, and the first one loaded serves the whole process: NIV's variable-font code
    (freetype-py) needs >= 2.8.1, so freetype-py's newer library is loaded first when it is installed
    (openbabel works with it)."""
    try:
        import freetype  # noqa: F401
    except ImportError:
        pass
    from openbabel import openbabel, pybel

    return openbabel, pybel


def vina_class():
    """AutoDock Vina's `Vina`, imported after openbabel: both are SWIG modules, and openbabel loaded
    second aborts the process (an uncaught swig::stop_iteration), so the order is fixed here."""
    openbabel_modules()  # must precede vina
    from vina import Vina

    return Vina


def receptor_pdbqt(residues: list[Residue]) -> str:
    """Receptor PDBQT text via openbabel: polar hydrogens added, AutoDock atom types assigned."""
    ob, pybel = openbabel_modules()
    ob.obErrorLog.SetOutputLevel(0)
    mol = pybel.readstring("pdb", "\n".join(pdb_lines(residues)))
    mol.OBMol.AddPolarHydrogens()
    text = mol.write("pdbqt", opt={"r": None})
    return "\n".join(line for line in text.splitlines() if line.startswith(("ATOM", "HETATM"))) + "\n"


def ligand_pdbqt(mol) -> str:
    """Ligand PDBQT text via meeko, hydrogens added at their coordinates."""
    from meeko import MoleculePreparation, PDBQTWriterLegacy
    from rdkit import Chem

    with_h = Chem.AddHs(mol, addCoords=True)
    setups = MoleculePreparation().prepare(with_h)
    text, ok, error = PDBQTWriterLegacy.write_string(setups[0])
    if not ok:
        raise ProceedingsError(f"meeko could not prepare the ligand: {error}")
    return text


def pdbqt_heavy_xyz(text: str) -> np.ndarray:
    rows = [line for line in text.splitlines() if line.startswith(("ATOM", "HETATM"))
            and line[77:79].strip() not in ("H", "HD")]
    return np.array([[float(r[30:38]), float(r[38:46]), float(r[46:54])] for r in rows])


def box_for(xyz: np.ndarray) -> tuple[list[float], list[float]]:
    size = np.maximum(xyz.max(0) - xyz.min(0) + BOX_MARGIN, MIN_BOX)
    return xyz.mean(0).tolist(), size.tolist()


def vina_scores(residues: list[Residue], ligand_mol, redock: bool = False, exhaustiveness: int = 8,
                seed: int = 0) -> VinaScores:
    """Score the conditioning pose, locally optimise it, and optionally redock (spec §2.4 stage 3)."""
    Vina = vina_class()

    lig_text = ligand_pdbqt(ligand_mol)
    start = pdbqt_heavy_xyz(lig_text)
    with tempfile.TemporaryDirectory() as tmp:
        receptor = Path(tmp) / "receptor.pdbqt"
        receptor.write_text(receptor_pdbqt(residues))
        v = Vina(sf_name="vina", cpu=1, seed=tool_seed(seed), verbosity=0)
        v.set_receptor(rigid_pdbqt_filename=str(receptor))
        v.set_ligand_from_string(lig_text)
        centre, size = box_for(start)
        v.compute_vina_maps(center=centre, box_size=size)
        score = float(v.score()[0])
        optimized = float(v.optimize()[0])
        pose = Path(tmp) / "opt.pdbqt"
        v.write_pose(str(pose), overwrite=True)
        moved = pdbqt_heavy_xyz(pose.read_text())
        result = VinaScores(score, optimized, _rmsd(start, moved), optimized_xyz=moved)
        if redock:
            v.dock(exhaustiveness=exhaustiveness, n_poses=1)
            result.redock = float(v.energies(n_poses=1)[0][0])
            result.redock_rmsd = _rmsd(start, pdbqt_heavy_xyz(v.poses(n_poses=1)))
    return result


def _rmsd(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        raise ProceedingsError(f"pose atom counts differ ({len(a)} vs {len(b)})")
    return float(np.sqrt(((a - b) ** 2).sum(-1).mean()))


def clashes(residues: list[Residue], ligand_xyz: np.ndarray, cutoff: float = CLASH_DISTANCE) -> int:
    """Protein-ligand heavy-atom pairs closer than `cutoff` Å (the complex stage's steric check)."""
    protein = np.concatenate([r.coords() for r in residues])
    d = np.linalg.norm(protein[:, None, :] - ligand_xyz[None, :, :], axis=-1)
    return int((d < cutoff).sum())


def pose_in_pocket(ligand: Ligand, pocket_residues: list[Residue]) -> bool:
    """Is the pose inside the pocket: at least half its atoms within 6 Å of a pocket atom and its centre
    within 8 Å of one (spec §7: a pose outside the pocket is an error)?"""
    atoms = np.concatenate([r.coords() for r in pocket_residues])
    near = (np.linalg.norm(ligand.xyz[:, None, :] - atoms[None], axis=-1).min(1) <= 6.0).mean()
    centre = np.linalg.norm(atoms - ligand.centre, axis=-1).min()
    return bool(near >= 0.5 and centre <= 8.0)
