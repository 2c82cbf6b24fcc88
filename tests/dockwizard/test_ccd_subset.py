"""The CCD cut the fast tests read holds the whole dictionary's records of its components, unchanged."""

import pytest

from .ccd_subset import COMPONENTS, SUBSET


@pytest.mark.slow  # loads the whole 63 MB CCD: ~5 CPU-s
def test_the_ccd_cut_holds_the_whole_dictionarys_records_of_its_components(ccd_subset):
    import numpy as np
    from biotite.structure.io.pdbx import BinaryCIFFile

    whole, cut = BinaryCIFFile.read(ccd_subset).block, BinaryCIFFile.read(SUBSET).block
    assert len(whole["chem_comp"]["id"].as_array()) > 40_000
    assert sorted(cut["chem_comp"]["id"].as_array()) == sorted(COMPONENTS)
    for category in ("chem_comp", "chem_comp_atom", "chem_comp_bond"):
        ids = "id" if category == "chem_comp" else "comp_id"
        for code in COMPONENTS:
            rows = whole[category][ids].as_array() == code
            ours = cut[category][ids].as_array() == code
            for column in whole[category].keys():
                assert np.array_equal(whole[category][column].as_array()[rows], cut[category][column].as_array()[ours])
