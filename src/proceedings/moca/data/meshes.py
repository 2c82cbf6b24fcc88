"""Real inputs: a user's `.glb`/`.obj` whose named sub-meshes are the components (spec §4, §7).

Each named part becomes one component with L points sampled on its surface in the scene's frame. Files
over 200 MB or 1M faces are refused; so are parts with fewer than 3 distinct points, and files with
more parts than `max_components` unless `merge_small_parts` folds the smallest into their nearest part.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.moca.data.procedural import Assembly, Part

MAX_BYTES, MAX_FACES = 200 * 2**20, 1_000_000


def named_meshes(path: Path | str) -> list[tuple[str, "object"]]:
    """(name, trimesh.Trimesh in world coordinates) per part of a mesh file."""
    import trimesh

    path = Path(path)
    if not path.exists():
        raise ProceedingsError(f"mesh file '{path}' does not exist")
    if path.stat().st_size > MAX_BYTES:
        raise ProceedingsError(f"'{path}' is larger than 200 MB; split it or simplify the meshes")
    try:
        scene = trimesh.load(str(path), force="scene")
    except Exception as err:
        raise ProceedingsError(f"'{path}' cannot be read as a mesh ({err})") from err
    parts = []
    for node in sorted(scene.graph.nodes_geometry):
        transform, geometry = scene.graph[node]
        mesh = scene.geometry[geometry]
        if not hasattr(mesh, "faces"):
            continue
        parts.append((node, mesh.copy().apply_transform(transform)))
    if sum(len(m.faces) for _, m in parts) > MAX_FACES:
        raise ProceedingsError(f"'{path}' has more than 1M faces; simplify it first")
    if not parts:
        raise ProceedingsError(f"'{path}' has no named mesh parts")
    return parts


def merge_smallest(parts: list[tuple[str, "object"]], limit: int) -> list[tuple[str, "object"]]:
    """Fold the smallest part (by area) into the part with the nearest centroid until `limit` remain."""
    import trimesh

    parts = list(parts)
    while len(parts) > limit:
        small = min(range(len(parts)), key=lambda i: parts[i][1].area)
        name, mesh = parts.pop(small)
        near = min(range(len(parts)), key=lambda i: np.linalg.norm(parts[i][1].centroid - mesh.centroid))
        parts[near] = (f"{parts[near][0]}+{name}", trimesh.util.concatenate([parts[near][1], mesh]))
    return parts


def from_mesh_file(path: Path | str, points_per_component: int = 16, max_components: int = 64,
                   merge_small_parts: bool = False, kind: str = "mesh", seed: int = 0) -> Assembly:
    """One Assembly from a mesh file, L surface points per named part."""
    import trimesh

    parts = named_meshes(path)
    if len(parts) > max_components:
        if not merge_small_parts:
            raise ProceedingsError(f"'{path}' has {len(parts)} named parts, more than max_components={max_components}; "
                                   "pass --merge-small-parts to fold the smallest ones together")
        parts = merge_smallest(parts, max_components)
    clouds, records = [], []
    for name, mesh in parts:
        if len(np.unique(np.round(mesh.vertices, 9), axis=0)) < 3 or mesh.area <= 0:
            raise ProceedingsError(f"{Path(path).name}: part '{name}' has fewer than 3 distinct points; remove or merge it")
        cloud, _ = trimesh.sample.sample_surface(mesh, points_per_component, seed=seed)
        clouds.append(cloud)
        lo, hi = mesh.bounds
        records.append(Part(name, (lo + hi) / 2, (hi - lo) / 2, primitive="mesh"))
    return Assembly(kind, records, np.stack(clouds).astype(np.float32), Path(path).stem)


def assembly_points(path: Path | str, points_per_component: int = 16, max_components: int = 64,
                    merge_small_parts: bool = False) -> np.ndarray:
    """(N, L, 3) points of a file to score: a `.glb` of point clouds as `sample` writes it is read as stored;
    a mesh file with named parts (any part-aware generator's output) is sampled part by part."""
    import trimesh

    from proceedings.moca.assembly import read_glb_points

    path = Path(path)
    if not path.exists():
        raise ProceedingsError(f"'{path}' does not exist")
    scene = trimesh.load(str(path), force="scene")
    if scene.geometry and not any(hasattr(g, "faces") for g in scene.geometry.values()):
        return read_glb_points(path)[1]
    return from_mesh_file(path, points_per_component, max_components, merge_small_parts).points


def from_meshes(folder: Path | str, **kwargs) -> list[Assembly]:
    """Every `.glb`/`.obj` in a folder, sorted by name."""
    files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in (".glb", ".obj"))
    if not files:
        raise ProceedingsError(f"'{folder}' holds no .glb or .obj files")
    return [from_mesh_file(p, **kwargs) for p in files]
