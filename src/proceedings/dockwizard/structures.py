"""Protein-ligand complexes: read with gemmi, pockets by distance, shells for fast tools, PDB out.

The reduced task of the spec (§2.4) designs the *pocket* of a fixed backbone: the residues with a
heavy atom within 5 Å of the ligand. The tools that judge a design (LigandMPNN, Vina) only need the
protein near the ligand, so a complex is cropped to a shell (whole residues within 12 Å of the
ligand) once, and every later stage works on that shell.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
THREE_TO_ONE = {"ALA": "A", "CYS": "C", "ASP": "D", "GLU": "E", "PHE": "F", "GLY": "G", "HIS": "H", "ILE": "I",
                "LYS": "K", "LEU": "L", "MET": "M", "ASN": "N", "PRO": "P", "GLN": "Q", "ARG": "R", "SER": "S",
                "THR": "T", "VAL": "V", "TRP": "W", "TYR": "Y"}
ONE_TO_THREE = {one: three for three, one in THREE_TO_ONE.items()}
BACKBONE = ("N", "CA", "C", "O")
POCKET_RADIUS = 5.0  # Å, issue: "pockets (<= 5 Å of the native ligand)"
SHELL_RADIUS = 12.0  # Å: the receptor the judges see


@dataclass
class Residue:
    """One amino-acid residue: chain, number, three-letter name and heavy atoms by name."""

    chain: str
    number: int
    name: str
    atoms: dict[str, np.ndarray] = field(default_factory=dict)  # atom name -> (3,) Å
    elements: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.chain}{self.number}"

    @property
    def letter(self) -> str:
        return THREE_TO_ONE[self.name]

    @property
    def label(self) -> str:
        """'Asn253': the way docking text names a residue."""
        return f"{self.name.capitalize()}{self.number}"

    def coords(self) -> np.ndarray:
        return np.array(list(self.atoms.values()), dtype=float).reshape(-1, 3)


@dataclass
class Ligand:
    """A ligand's heavy atoms in a pose: CCD code, atom names (the CCD's), elements, coordinates."""

    code: str
    names: list[str]
    elements: list[str]
    xyz: np.ndarray  # (n_atoms, 3) Å

    @property
    def centre(self) -> np.ndarray:
        return self.xyz.mean(axis=0)


@dataclass
class Complex:
    """A protein (list of residues) and one ligand pose."""

    name: str
    residues: list[Residue]
    ligand: Ligand

    def residue(self, key: str) -> Residue:
        for residue in self.residues:
            if residue.key == key:
                return residue
        raise ProceedingsError(f"{self.name} has no residue {key}")

    def pocket(self, radius: float = POCKET_RADIUS) -> list[str]:
        """Keys of residues with a heavy atom within `radius` Å of a ligand heavy atom (spec §2.4)."""
        return [r.key for r in self.residues if _min_distance(r.coords(), self.ligand.xyz) <= radius]

    def shell(self, radius: float = SHELL_RADIUS) -> "Complex":
        """The complex cropped to whole residues within `radius` Å of the ligand."""
        kept = [r for r in self.residues if _min_distance(r.coords(), self.ligand.xyz) <= radius]
        return replace(self, residues=kept)

    def sequence(self, keys: list[str]) -> str:
        return "".join(self.residue(key).letter for key in keys)


def _min_distance(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) == 0 or len(b) == 0:
        return float("inf")
    return float(np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)).min())


def read_complex(path: Path | str, ligand_code: str | None, copy: int = 0, name: str | None = None) -> Complex:
    """Read the first model of a PDB/mmCIF file: standard residues as protein, one copy of `ligand_code`.

    `ligand_code=None` reads a ligand-free scaffold (the ligand is then empty). Waters, ions and other
    hetero groups are dropped; hydrogens and alternate locations beyond the first are ignored.
    """
    import gemmi

    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"structure file '{path}' does not exist")
    structure = gemmi.read_structure(str(path))
    structure.remove_hydrogens()
    residues, copies = [], []
    for chain in structure[0]:
        for res in chain:
            if res.name in THREE_TO_ONE and res.het_flag != "H":
                residue = Residue(chain.name, res.seqid.num, res.name)
                for atom in res:
                    if atom.name not in residue.atoms:
                        residue.atoms[atom.name] = np.array(atom.pos.tolist())
                        residue.elements[atom.name] = atom.element.name.upper()
                if all(name in residue.atoms for name in BACKBONE[:3]):
                    residues.append(residue)
            elif ligand_code and res.name == ligand_code.upper():
                copies.append(Ligand(res.name, [a.name for a in res], [a.element.name.upper() for a in res],
                                     np.array([a.pos.tolist() for a in res], dtype=float)))
    if ligand_code is None:
        return Complex(name or path.stem, residues, Ligand("", [], [], np.zeros((0, 3))))
    if copy >= len(copies):
        raise ProceedingsError(f"'{path.name}' has {len(copies)} copies of ligand {ligand_code!r}, not {copy + 1}")
    return Complex(name or f"{path.stem}_{ligand_code.upper()}", residues, copies[copy])


def pdb_lines(residues: list[Residue], ligand: Ligand | None = None) -> list[str]:
    """Fixed-column PDB ATOM/HETATM records (heavy atoms); the format LigandMPNN and openbabel read."""
    lines, serial = [], 1
    for residue in residues:
        for name, xyz in residue.atoms.items():
            element = residue.elements.get(name, name[0])
            lines.append(_atom_line("ATOM  ", serial, name, residue.name, residue.chain, residue.number, xyz, element))
            serial += 1
    if ligand is not None and len(ligand.names):
        code = ligand.code if len(ligand.code) <= 3 else "LIG"  # 5-character CCD codes (A1BQJ) overflow columns 18-20
        for name, element, xyz in zip(ligand.names, ligand.elements, ligand.xyz):
            lines.append(_atom_line("HETATM", serial, name, code, "L", 1, xyz, element))
            serial += 1
    return lines + ["END"]


def _atom_line(record: str, serial: int, name: str, res_name: str, chain: str, number: int,
               xyz: np.ndarray, element: str) -> str:
    padded = f" {name:<3}" if len(name) < 4 else name[:4]
    return (f"{record}{serial:5d} {padded} {res_name:>3} {chain[:1]}{number:4d}    "
            f"{xyz[0]:8.3f}{xyz[1]:8.3f}{xyz[2]:8.3f}  1.00  0.00          {element:>2}")


def write_pdb(path: Path | str, residues: list[Residue], ligand: Ligand | None = None) -> Path:
    path = Path(path)
    path.write_text("\n".join(pdb_lines(residues, ligand)) + "\n")
    return path
