"""Generated assemblies as files: a `.glb` with one named node per component (its points), and a PNG view.

The `.glb` is written to a temporary file in the target folder and renamed, so a reader never sees half
a file. Each node holds the component's L points as a glTF point cloud; `trimesh.load` gives them back.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError


def component_names(n: int, names: list[str] | None = None) -> list[str]:
    names = list(names) if names else [f"component_{i:03d}" for i in range(n)]
    if len(names) != n or len(set(names)) != n:
        raise ProceedingsError(f"need {n} distinct component names, got {len(names)} ({len(set(names))} distinct)")
    return names


def to_scene(points: np.ndarray, names: list[str] | None = None):
    """A trimesh Scene with one named point-cloud node per component of (N, L, 3) points."""
    import trimesh

    scene = trimesh.Scene()
    for name, cloud in zip(component_names(len(points), names), np.asarray(points, np.float32)):
        scene.add_geometry(trimesh.PointCloud(cloud), node_name=name, geom_name=name)
    return scene


def export_glb(points: np.ndarray, path: Path | str, names: list[str] | None = None) -> Path:
    """Write the assembly as a `.glb` (temp file + rename)."""
    path = Path(path)
    if path.suffix.lower() != ".glb":
        raise ProceedingsError(f"'{path}' does not end in .glb")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = to_scene(points, names).export(file_type="glb")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_glb_points(path: Path | str) -> tuple[list[str], np.ndarray]:
    """Names and (N, L, 3) points of a `.glb` written by `export_glb` (node order preserved by name)."""
    import trimesh

    scene = trimesh.load(str(path), force="scene")
    names = sorted(scene.graph.nodes_geometry)
    clouds = []
    for name in names:
        transform, geometry = scene.graph[name]
        vertices = np.asarray(scene.geometry[geometry].vertices, float)
        clouds.append(vertices @ transform[:3, :3].T + transform[:3, 3])
    if len({len(c) for c in clouds}) != 1:
        raise ProceedingsError(f"'{path}': components have different point counts; not a MoCA assembly")
    return names, np.stack(clouds).astype(np.float32)


def render(points: np.ndarray, path: Path | str, title: str = "") -> Path:
    """A matplotlib 3-D scatter, one colour per component."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(5, 5))
    ax = fig.add_subplot(projection="3d")
    colours = plt.get_cmap("tab20")
    for i, cloud in enumerate(np.asarray(points)):
        ax.scatter(cloud[:, 0], cloud[:, 1], cloud[:, 2], s=4, color=colours(i % 20))
    ax.set_title(title)
    ax.set_box_aspect((1, 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
