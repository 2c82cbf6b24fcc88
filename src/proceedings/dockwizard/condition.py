"""A user's condition (a complex, its ligand, texts) as a sample the model and evaluator read."""

from __future__ import annotations

import numpy as np

from proceedings.dockwizard.data import Sample
from proceedings.dockwizard.docking_text import docking_text as write_docking_text
from proceedings.dockwizard.interactions import Interaction
from proceedings.dockwizard.ligands import ligand_description, ligand_info
from proceedings.dockwizard.structures import Complex


def condition_sample(complex_: Complex, pocket: list[str], found: list[Interaction], function_text: str,
                     docking_text: str | None) -> Sample:
    """The condition of designing `complex_`'s pocket; docking text defaults to the profiler's (masked
    and full). The target is the native pocket (used only for recovery)."""
    code = complex_.ligand.code
    native = complex_.sequence(pocket)
    return Sample(id=f"{complex_.name}", scaffold=complex_.name, ligand_code=code, cluster=-1, pocket=pocket,
                  target=native, native=native, distilled=False, function_text=function_text,
                  docking_full=docking_text or write_docking_text(found, len(pocket)),
                  docking_masked=docking_text or write_docking_text(found, len(pocket), masked=True),
                  ligand_description=ligand_description(code), smiles=ligand_info(code).smiles,
                  interactions=[i.as_dict() for i in found],
                  pose={"names": complex_.ligand.names, "elements": complex_.ligand.elements,
                        "xyz": np.round(complex_.ligand.xyz, 3).tolist()})
