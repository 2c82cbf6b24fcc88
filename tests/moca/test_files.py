"""Files in and out: sampled assemblies as .glb with named nodes, user meshes with named parts."""

import numpy as np
import pytest
import trimesh

from proceedings.core.errors import ProceedingsError
from proceedings.moca.assembly import export_glb, read_glb_points
from proceedings.moca.data.meshes import from_mesh_file, from_meshes
from proceedings.moca.flow import sample
from proceedings.moca.model import CompositionalDiT, DiTConfig


def test_a_sampled_assembly_round_trips_through_glb_with_n_named_nodes_and_the_same_points(tmp_path):
    model = CompositionalDiT(DiTConfig(points=8, dim=16, heads=2, depth=1, k=1, sigma=4))
    points = sample(model, 0, 6, steps=2, seed=0)[0].numpy()
    path = export_glb(points, tmp_path / "chair.glb")
    scene = trimesh.load(path, force="scene")
    assert len(scene.graph.nodes_geometry) == 6
    names, back = read_glb_points(path)
    assert names == [f"component_{i:03d}" for i in range(6)]
    assert np.allclose(back, points, atol=1e-6)
    assert not list(tmp_path.glob(".*.tmp"))


def write_parts(path, count):
    scene = trimesh.Scene()
    for i in range(count):
        box = trimesh.creation.box(extents=(0.2 + 0.1 * i, 0.3, 0.1))
        box.apply_translation((i, 0, 0))
        scene.add_geometry(box, node_name=f"part_{i}", geom_name=f"part_{i}")
    scene.export(path)
    return path


def test_a_mesh_file_with_named_parts_becomes_one_component_per_part(tmp_path):
    a = from_mesh_file(write_parts(tmp_path / "three.glb", 3), points_per_component=12)
    assert a.points.shape == (3, 12, 3) and [p.name for p in a.parts] == ["part_0", "part_1", "part_2"]
    for i in range(3):  # points lie on the part's surface, placed where the scene put it
        assert np.allclose(a.points[i].mean(0)[1:], 0, atol=0.2) and abs(a.points[i, :, 0].mean() - i) < 0.2
    assert len(from_meshes(tmp_path)) == 1


def test_more_parts_than_max_components_suggests_merging_and_merging_works(tmp_path):
    path = write_parts(tmp_path / "five.glb", 5)
    with pytest.raises(ProceedingsError, match="--merge-small-parts"):
        from_mesh_file(path, max_components=3)
    assert from_mesh_file(path, max_components=3, merge_small_parts=True).n == 3
