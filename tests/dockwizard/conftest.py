import pytest

from proceedings.core.errors import ProceedingsError


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
