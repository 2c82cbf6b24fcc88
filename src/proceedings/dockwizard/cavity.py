"""Pockets of ligand-free scaffolds: a LIGSITE grid cavity finder (spec §4.1 step 1).

LIGSITE (Hendlich, Rippmann & Barnickel, J. Mol. Graph. Model. 15:359, 1997): put the protein on a
1 Å grid; a grid point is protein when a heavy atom lies within ATOM_REACH, else solvent.
Along 7 lines through a solvent point (the 3 axes and the 4 cube diagonals) count the lines that meet
protein on *both* sides within SCAN_STEPS ("protein-solvent-protein" events, PSP). Points with PSP >= MIN_PSP are
buried; buried points that touch (26-neighbours) form one cavity, ranked by size (LIGSITE's ranking).
On any convex or flat protein no line through an outside point meets protein twice, so it has no pocket.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.structures import Complex, Ligand, Residue, _min_distance

GRID = 1.0  # Å, LIGSITE's spacing
# The next three were set after a first rule (1.8 Å, PSP >= 5, lines across the whole grid) merged every surface
# groove of 6WQA, 4CUP and 7CFN into one cavity; chosen on those three (native ligands removed), see the README.
ATOM_REACH = 3.0  # Å: grid points closer to a heavy atom are protein (a ligand atom's centre sits >= ~3 Å away)
MIN_PSP = 6  # of 7 lines meet protein on both sides
SCAN_STEPS = 8  # grid steps along each line (a power of two): protein farther away does not bury a point
MIN_POINTS = 20  # Å^3 at 1 Å spacing: smaller buried clusters are packing voids, not ligand pockets
LINING = 4.0  # Å: residues with a heavy atom this close to a cavity point line it
PEPTIDE = 30  # residues: a shorter chain is a bound peptide (a ligand), taken out of a ligand-free scaffold
DIRECTIONS = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1), (1, 1, -1), (1, -1, 1), (-1, 1, 1))


@dataclass
class Cavity:
    """One buried cluster of grid points: its points (n, 3) Å, their centre, the residues lining it."""

    points: np.ndarray
    residues: list[str]

    @property
    def centre(self) -> np.ndarray:
        return self.points.mean(axis=0)


def find_cavities(residues: list[Residue], top: int = 3) -> list[Cavity]:
    """The `top` largest LIGSITE cavities of a protein, largest first (none on a flat or convex surface)."""
    from scipy import ndimage

    xyz = np.concatenate([r.coords() for r in residues])
    origin = xyz.min(0) - ATOM_REACH
    protein = _occupancy(xyz, origin)
    psp = sum((_seen(protein, d, -1) & _seen(protein, d, +1)).astype(np.int8) for d in DIRECTIONS)
    labels, n = ndimage.label(~protein & (psp >= MIN_PSP), structure=np.ones((3, 3, 3)))
    sizes = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    ranked = [i + 1 for i in np.argsort(-sizes, kind="stable") if sizes[i] >= MIN_POINTS][:top]
    cavities = []
    for label in ranked:
        points = origin + GRID * np.argwhere(labels == label)
        cavities.append(Cavity(points, [r.key for r in residues if _min_distance(r.coords(), points) <= LINING]))
    return cavities


def cavity_complex(scaffold: Complex) -> Complex:
    """A ligand-free scaffold posed for the builder: bound peptides taken out, its largest cavity's points
    standing in for the ligand (they centre the docking box and the 12 Å shell), named '<id>-cav1'."""
    lengths = Counter(r.chain for r in scaffold.residues)
    residues = [r for r in scaffold.residues if lengths[r.chain] >= PEPTIDE]
    cavities = find_cavities(residues, top=1)
    if not cavities:
        raise ProceedingsError(f"scaffold {scaffold.name} has no buried cavity (LIGSITE, PSP >= {MIN_PSP}) to dock into")
    return Complex(f"{scaffold.name}-cav1", residues, Ligand("", [], [], cavities[0].points))


def _occupancy(xyz: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """(nx, ny, nz) bool grid: True where a heavy atom is within ATOM_REACH."""
    shape = np.ceil((xyz.max(0) + ATOM_REACH - origin) / GRID).astype(int) + 1
    grid = np.zeros(shape, dtype=bool)
    reach = int(np.ceil(ATOM_REACH / GRID))
    offsets = np.array([(i, j, k) for i in range(-reach, reach + 1) for j in range(-reach, reach + 1)
                        for k in range(-reach, reach + 1)])
    nearest = np.round((xyz - origin) / GRID).astype(int)
    cells = (nearest[:, None, :] + offsets[None]).reshape(-1, 3)  # (atoms * offsets, 3)
    atoms = np.repeat(xyz, len(offsets), 0)
    keep = ((cells >= 0) & (cells < shape)).all(1)
    cells, atoms = cells[keep], atoms[keep]
    near = np.linalg.norm(origin + GRID * cells - atoms, axis=1) <= ATOM_REACH
    grid[tuple(cells[near].T)] = True
    return grid


def _seen(protein: np.ndarray, direction: tuple, sign: int) -> np.ndarray:
    """True where protein lies along `sign * direction` within SCAN_STEPS steps of the point (the point
    excluded): OR over shifts 1..SCAN_STEPS, built by doubling (shift 1, then 1-2, 1-4, 1-8)."""
    step = np.array(direction) * sign
    seen, reach = _shifted(protein, step), 1
    while reach < SCAN_STEPS:
        seen |= _shifted(seen, step * reach)
        reach *= 2
    return seen


def _shifted(a: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """out[p] = a[p + offset], False outside the grid."""
    out = np.zeros_like(a)
    src, dst = [], []
    for o, n in zip(offset, a.shape):
        o = int(o)
        if abs(o) >= n:
            return out
        src.append(slice(max(o, 0), n + min(o, 0)))
        dst.append(slice(max(-o, 0), n - max(o, 0)))
    out[tuple(dst)] = a[tuple(src)]
    return out
