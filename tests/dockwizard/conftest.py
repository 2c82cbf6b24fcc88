import pytest

from proceedings.core.errors import ProceedingsError

from .ccd_subset import SUBSET


@pytest.fixture(scope="module", autouse=True)
def ccd_subset():
    """Each module reads the CCD cut of `ccd_subset.py` (the same records) and gives biotite its whole CCD back;
    the whole CCD's path is the fixture's value."""
    from biotite.structure.info import ccd

    whole = ccd._CCD_FILE  # biotite keeps the path only here
    ccd.set_ccd_path(SUBSET)
    yield whole
    ccd.set_ccd_path(whole)


@pytest.fixture(scope="session")
def pdb_folder():
    from proceedings.dockwizard.assets import pdb_folder

    try:
        return pdb_folder()
    except ProceedingsError as err:
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def a2a(pdb_folder):
    """6WQA (A2A receptor) with ZMA, cropped to its 12 Å shell, and the posed ligand molecule."""
    from proceedings.dockwizard.ligands import posed_molecule
    from proceedings.dockwizard.structures import read_complex

    complex_ = read_complex(pdb_folder / "6WQA.cif", "ZMA").shell()
    return complex_, posed_molecule(complex_.ligand)
