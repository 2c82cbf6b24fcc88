"""DockWizard: docking-language multimodal protein generation, as fixed-backbone pocket design.

An encoder (function text, docking text, ligand description, SMILES, ligand 3D) -> router (global,
binding and local memories) -> decoder (prefix guidance + gated cross-attention to every memory)
writes the pocket sequence of a protein for a ligand; LigandMPNN's packer, AutoDock Vina and an
interaction profiler judge the designs. Public names: `DockWizard`, `ModelConfig`, `profile`,
`docking_text`, `evaluate`; `proceedings dockwizard --help` for the verbs.
"""

from proceedings.dockwizard.docking_text import docking_text
from proceedings.dockwizard.interactions import profile

__all__ = ["DockWizard", "ModelConfig", "docking_text", "evaluate", "profile"]


def __getattr__(name: str):
    """torch-heavy names load lazily, so `proceedings list` stays fast."""
    if name in ("DockWizard", "ModelConfig"):
        from proceedings.dockwizard import model

        return getattr(model, name)
    if name == "evaluate":
        from proceedings.dockwizard.evaluate import evaluate

        return evaluate
    raise AttributeError(name)
