"""MoCA: component-level sparse attention for compositional 3D generation (Li et al., arXiv 2512.07628).

Public names (imported lazily, so `proceedings list` does not load torch): `MoCAttention`,
`CompositionalDiT`, `DiTConfig`, `sample`, `ComponentVAE` and `VAEConfig` (the latent path), `generate`
(the part grammar), `from_mesh_file`, `export_glb`.
"""

from importlib import import_module

_NAMES = {"MoCAttention": "attention", "CompositionalDiT": "model", "DiTConfig": "model", "sample": "flow",
          "generate": "data.procedural", "from_mesh_file": "data.meshes", "export_glb": "assembly",
          "ComponentVAE": "vae", "VAEConfig": "vae"}


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module 'proceedings.moca' has no attribute '{name}'")
    return getattr(import_module(f"proceedings.moca.{_NAMES[name]}"), name)
