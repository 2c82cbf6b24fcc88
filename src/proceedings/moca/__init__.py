"""MoCA: component-level sparse attention for compositional 3D generation (Li et al., arXiv 2512.07628).

Public names (imported lazily, so `proceedings list` does not load torch): `MoCAttention`,
`CompositionalDiT`, `DiTConfig`, `sample`, `ComponentVAE` and `VAEConfig` (the latent path), `generate`
(the part grammar), `from_mesh_file`, `export_glb`.
"""

from proceedings.core.lazy import lazy_exports

_NAMES = {"MoCAttention": "attention", "CompositionalDiT": "model", "DiTConfig": "model", "sample": "flow",
          "generate": "data.procedural", "from_mesh_file": "data.meshes", "export_glb": "assembly",
          "ComponentVAE": "vae", "VAEConfig": "vae"}
__all__ = list(_NAMES)
__getattr__ = lazy_exports(__name__, _NAMES)
