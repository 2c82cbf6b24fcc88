"""DockWizard: docking-language multimodal protein generation, as fixed-backbone pocket design.

An encoder (function text, docking text, ligand description, SMILES, ligand 3D) -> router (global,
binding and local memories) -> decoder (prefix guidance + gated cross-attention to every memory)
writes the pocket sequence of a protein for a ligand; LigandMPNN's packer, AutoDock Vina and an
interaction profiler judge the designs. Public names: `DockWizard`, `ModelConfig`, `profile`,
`docking_text`, `evaluate`; `proceedings dockwizard --help` for the verbs.
"""

from proceedings.core.lazy import lazy_exports
from proceedings.dockwizard.docking_text import docking_text
from proceedings.dockwizard.interactions import profile

# torch-heavy names load on first use, so `proceedings list` stays fast.
_LAZY = {"DockWizard": "model", "ModelConfig": "model", "evaluate": "evaluation"}
__all__ = ["DockWizard", "ModelConfig", "docking_text", "evaluate", "profile"]
__getattr__ = lazy_exports(__name__, _LAZY)
