"""The LIGSITE cavity finder: a made structure with a known pocket, surfaces that have none, and 4ZHL's S1 pocket."""

import numpy as np
import pytest

from proceedings.dockwizard.cavity import cavity_complex, find_cavities
from proceedings.dockwizard.structures import Residue

SPACING = 2.0  # Å between made atoms (closer than 2 * ATOM_REACH: no gaps in the made protein)


def _protein(points) -> list[Residue]:
    """One glycine-named residue per made atom."""
    return [Residue("A", i + 1, "GLY", {"CA": np.array(p, dtype=float)}, {"CA": "C"}) for i, p in enumerate(points)]


def _block(drill: bool):
    """A 20 Å cube of atoms; with `drill`, a well 10 Å across and 12 Å deep bored into its top face at x = y = 10."""
    axis = np.arange(0.0, 20.0 + 1e-9, SPACING)
    cube = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
    in_well = (np.hypot(cube[:, 0] - 10, cube[:, 1] - 10) < 5.0) & (cube[:, 2] > 8.0)
    return cube[~in_well] if drill else cube


def test_the_pocket_of_a_made_structure_is_found_where_it_was_bored():
    (top, *rest) = find_cavities(_protein(_block(drill=True)))
    assert np.hypot(*(top.centre[:2] - 10)) < 1.0 and 8.0 < top.centre[2] < 20.0
    assert (np.hypot(top.points[:, 0] - 10, top.points[:, 1] - 10) < 5.0).all()  # every point inside the well
    assert not rest


@pytest.mark.parametrize("surface", ["flat sheet", "undrilled block", "ball"])
def test_a_flat_or_convex_surface_has_no_pocket(surface):
    axis = np.arange(-14.0, 14.0 + 1e-9, SPACING)
    if surface == "flat sheet":
        points = np.stack(np.meshgrid(axis, axis, [0.0], indexing="ij"), -1).reshape(-1, 3)
    elif surface == "undrilled block":
        points = _block(drill=False)
    else:
        grid = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
        points = grid[np.linalg.norm(grid, axis=1) <= 12.0]
    assert find_cavities(_protein(points)) == []


def test_4zhl_without_its_peptide_is_docked_into_the_s1_pocket_of_upa(pdb_folder):
    """uPA's S1 pocket (Asp189 at its floor, Ser195 of the catalytic triad, Gly216/Gly226 walls; chymotrypsin
    numbering) holds the arginine of the bound peptide mupain-1 (chain P)."""
    from proceedings.dockwizard.structures import read_complex

    scaffold = read_complex(pdb_folder / "4ZHL.cif", None)
    assert find_cavities(scaffold.residues) == []  # with its peptide bound the pocket is full
    posed = cavity_complex(scaffold).shell()
    assert posed.name == "4ZHL-cav1" and {r.chain for r in posed.residues} == {"U"}
    assert {"U189", "U195", "U216", "U226"} <= set(posed.pocket())
    peptide = np.concatenate([r.coords() for r in scaffold.residues if r.chain == "P"])
    assert np.linalg.norm(peptide - posed.ligand.centre, axis=1).min() < 3.0  # the peptide sat in it
