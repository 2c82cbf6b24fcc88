"""Component-VAE latents as the DiT's tokens: the `paper` preset's representation (spec §2.1 b, after the paper's
frozen vecset shape decoder and TripoSG / 3DShape2VecSet).

A trained `ComponentVAE` is frozen; every component's P surface points are encoded to L × D_z posterior means,
divided by one scale (their standard deviation over the training components, as latent diffusion scales its
latents) so the flow starts from unit-variance data. Generated latents come back as a mesh per component
(marching cubes on the decoded occupancy) and L points sampled on it, which the box-fit metrics read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.moca.data.procedural import Assembly, Part, surface_points
from proceedings.moca.model import load_weights
from proceedings.moca.vae import ComponentVAE, VAEConfig, extract_mesh

CHUNK = 256  # components encoded per forward pass


@dataclass
class LatentCodec:
    vae: ComponentVAE
    scale: float  # std of the encoder means over the training components

    @torch.no_grad()
    def means(self, parts: list[Part], rng: np.random.Generator) -> torch.Tensor:
        """Posterior means (len(parts), L, D_z) on the CPU from P surface points per component, unscaled; encoded
        CHUNK components at a time on the VAE's device."""
        p, device = self.vae.cfg.surface_points, next(self.vae.parameters()).device
        out = []
        for i in range(0, len(parts), CHUNK):
            clouds = np.stack([surface_points(q.center, q.half, q.rotation, p, rng) for q in parts[i : i + CHUNK]])
            out.append(self.vae.encode(torch.from_numpy(clouds.astype(np.float32)).to(device))[0].cpu())
        return torch.cat(out)

    @classmethod
    def fit(cls, vae: ComponentVAE, parts: list[Part], seed: int = 0) -> "LatentCodec":
        """The frozen VAE with its latent scale measured on `parts`."""
        vae = vae.eval().requires_grad_(False)
        return cls(vae, float(cls(vae, 1.0).means(parts, np.random.default_rng(seed)).std()))

    def encode(self, assemblies: list[Assembly], seed: int = 0) -> list[np.ndarray]:
        """Scaled latents, one (N, L, D_z) array per assembly."""
        flat = self.means([p for a in assemblies for p in a.parts], np.random.default_rng(seed)) / self.scale
        cuts = np.cumsum([a.n for a in assemblies])[:-1]
        return [z.numpy() for z in torch.tensor_split(flat, cuts.tolist())]

    def decode(self, latents: np.ndarray, points: int, resolution: int = 64, seed: int = 0) -> np.ndarray:
        """(N, points, 3) surface points of the meshes decoded from one assembly's scaled latents (N, L, D_z)."""
        out = []
        device = next(self.vae.parameters()).device
        for i, z in enumerate(torch.as_tensor(latents, dtype=torch.float32, device=device) * self.scale):
            try:
                mesh = extract_mesh(self.vae, z, resolution)
            except ProceedingsError as err:
                raise ProceedingsError(f"component {i}: {err}") from None
            out.append(mesh.sample(points, seed=seed + i))
        return np.stack(out).astype(np.float32)

    def save_pretrained(self, path: Path | str) -> Path:
        """safetensors weights + config.json (the VAE's configuration and the latent scale)."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous().cpu() for k, v in self.vae.state_dict().items()}, path / "vae.safetensors")
        (path / "config.json").write_text(json.dumps({"vae": asdict(self.vae.cfg), "scale": self.scale}, indent=2) + "\n")
        return path

    @classmethod
    def from_pretrained(cls, path: Path | str) -> "LatentCodec":
        from safetensors.torch import load_file

        path = Path(path)
        if not (path / "config.json").exists() or not (path / "vae.safetensors").exists():
            raise ProceedingsError(f"no trained component VAE in '{path}': the latent path needs one; train it with "
                                   "`proceedings moca train-vae --scale paper` first")
        config = json.loads((path / "config.json").read_text())
        vae = ComponentVAE(VAEConfig(**config["vae"]))
        load_weights(vae, load_file(path / "vae.safetensors"), str(path))
        return cls(vae.eval().requires_grad_(False), float(config["scale"]))
