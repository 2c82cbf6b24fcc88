"""Docking-language samples: what one condition holds, the committed fixture, splits and batches.

A sample is one pocket on a fixed backbone with one ligand pose: its function text, docking text
(full and masked), ligand description, SMILES, 3-D pose, the stated interaction records, and the
target pocket sequence (the native one, or a distilled LigandMPNN design for docked ligands). The
builder (`builder.py`) writes samples as JSON lines beside the shell PDBs of their scaffolds; the
committed fixture (`fixture/`) is such a build, small enough for tests that need no tools.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.structures import AMINO_ACIDS, Complex, Ligand, read_complex

FIXTURE = Path(__file__).parent / "fixture"


@dataclass
class Sample:
    id: str
    scaffold: str  # name of the scaffold's shell PDB in the build folder
    ligand_code: str
    cluster: int  # Morgan-fingerprint cluster of the ligand (held-out split)
    pocket: list[str]  # residue keys in order; the designed slots
    target: str  # the pocket sequence to learn
    native: str  # the scaffold's own residues at those slots
    distilled: bool  # target is a LigandMPNN design (docked ligand), not the native pocket
    function_text: str
    docking_full: str
    docking_masked: str
    ligand_description: str
    smiles: str
    interactions: list[dict]
    pose: dict  # {"names", "elements", "xyz"} of the ligand's heavy atoms
    vina: float | None = None  # Vina energy of the target complex's pose after local optimisation
    extra: dict = field(default_factory=dict)

    @property
    def ligand(self) -> Ligand:
        return Ligand(self.ligand_code, list(self.pose["names"]), list(self.pose["elements"]),
                      np.array(self.pose["xyz"], dtype=float))

    def scaffold_complex(self, root: Path) -> Complex:
        """The scaffold's shell (native side chains) with this sample's ligand pose."""
        shell = read_complex(root / "scaffolds" / f"{self.scaffold}.pdb", None, name=self.scaffold)
        shell.ligand = self.ligand
        return shell


def load_samples(root: Path | str = FIXTURE) -> list[Sample]:
    root = Path(root)
    path = root / "samples.jsonl"
    if not path.is_file():
        raise ProceedingsError(f"no samples at '{path}'; build them with `proceedings dockwizard data-build`")
    samples = [Sample(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
    for s in samples:
        if not set(s.target) <= set(AMINO_ACIDS) or len(s.target) != len(s.pocket):
            raise ProceedingsError(f"sample {s.id} in '{path}' has a target that is not a pocket sequence")
    return samples


def save_samples(samples: list[Sample], root: Path | str) -> Path:
    from proceedings.core.runtime import atomic_write_text

    text = "".join(json.dumps(asdict(s), sort_keys=True) + "\n" for s in samples)
    return atomic_write_text(Path(root) / "samples.jsonl", text)


def split_by_cluster(samples: list[Sample], test_clusters: int, seed: int = 0) -> tuple[list[Sample], list[Sample]]:
    """Held out by ligand cluster (issue): whole Morgan clusters go to the test side."""
    clusters = sorted({s.cluster for s in samples if s.distilled})
    random.Random(seed).shuffle(clusters)
    held = set(clusters[:test_clusters])
    return [s for s in samples if s.cluster not in held], [s for s in samples if s.cluster in held]
