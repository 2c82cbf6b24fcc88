"""A cut of the PDB Chemical Component Dictionary that biotite ships (wwPDB; see the fixture's ATTRIBUTION.md):
the records of the components the fast tests read, unchanged. Loading the whole 63 MB file costs ~5 CPU-s a test
session; this one, milliseconds. `python tests/dockwizard/ccd_subset.py` writes it again from the whole file."""

from pathlib import Path

import numpy as np

COMPONENTS = ("ZMA", "ZYB", "FX0", "27Q", "N0T", "LOW", "HDT")  # the natives' ligands and the fixture's docked ones
SUBSET = Path(__file__).parent / "data" / "ccd_subset.bcif"
_ID_COLUMN = {"chem_comp": "id", "chem_comp_atom": "comp_id", "chem_comp_bond": "comp_id"}


def cut(block, components=COMPONENTS):
    """The rows of `components` in each category of a CCD BinaryCIF block, as a new block."""
    from biotite.structure.io.pdbx import BinaryCIFBlock, BinaryCIFCategory, BinaryCIFColumn

    categories = {}
    for name, id_column in _ID_COLUMN.items():
        category = block[name]
        keep = np.isin(category[id_column].as_array(), components)
        categories[name] = BinaryCIFCategory({
            column: BinaryCIFColumn(category[column].data.array[keep],
                                    None if category[column].mask is None else category[column].mask.array[keep])
            for column in category.keys()})
    return BinaryCIFBlock(categories)


if __name__ == "__main__":
    from biotite.structure.info.ccd import get_ccd
    from biotite.structure.io.pdbx import BinaryCIFFile, compress

    file = compress(BinaryCIFFile({"components": cut(get_ccd())}))
    SUBSET.parent.mkdir(exist_ok=True)
    file.write(SUBSET)
