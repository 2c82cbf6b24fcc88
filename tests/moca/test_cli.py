"""The user's verbs: grammar samples to .glb, train -> sample -> eval -> render, the attention benchmark."""

import trimesh
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.moca.cli import app
from proceedings.moca.model import CompositionalDiT, DiTConfig

runner = CliRunner()


def test_data_writes_one_glb_per_sample_with_one_named_node_per_part(tmp_path):
    result = runner.invoke(app, ["data", "--kind", "table", "--n", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.glb"))
    assert len(files) == 2
    nodes = trimesh.load(files[0], force="scene").graph.nodes_geometry
    assert "top" in nodes and len(nodes) == int(result.output.split(": ")[1].split()[0])


def test_sample_writes_the_requested_component_count_and_eval_and_render_read_it(tmp_path):
    CompositionalDiT(DiTConfig(points=8, dim=16, heads=2, depth=1, k=1, sigma=4)).save_pretrained(tmp_path / "m")
    out = tmp_path / "chair.glb"
    result = runner.invoke(app, ["sample", "--model", str(tmp_path / "m"), "--n", "7", "--steps", "2", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(trimesh.load(out, force="scene").graph.nodes_geometry) == 7
    result = runner.invoke(app, ["eval", str(out), "--references", "4"])
    assert result.exit_code == 0, result.output
    assert '"violation_rate"' in result.output
    assert runner.invoke(app, ["render", str(out), "-o", str(tmp_path / "v.png")]).exit_code == 0
    assert (tmp_path / "v.png").stat().st_size > 0


def test_bench_attn_prints_counted_flops_per_n_and_arm():
    result = runner.invoke(app, ["bench-attn", "--n", "4,8", "--L", "8", "--dim", "8", "--heads", "2",
                                 "--k", "2", "--sigma", "4", "--repeats", "1"])
    assert result.exit_code == 0, result.output
    assert "attention FLOP slope" in result.output


def test_bad_sweep_arguments_are_one_line_errors():
    for args, message in ((["--n", "0,8"], "N = 0"), (["--L", "12", "--sigma", "8"], "must divide")):
        result = runner.invoke(app, ["bench-attn", *args])
        assert isinstance(result.exception, ProceedingsError) and message in str(result.exception)


def test_eval_scores_a_mesh_file_with_named_parts_and_merges_when_asked(tmp_path):
    scene = trimesh.Scene()
    for i, (lo, hi) in enumerate([((-0.3, -0.3, 0.0), (0.3, 0.3, 0.05)), ((-0.3, -0.3, -1.0), (-0.25, -0.25, 0.0)),
                                  ((0.25, -0.3, -1.0), (0.3, -0.25, 0.0))]):  # a seat on two legs, as meshes
        box = trimesh.creation.box(bounds=(lo, hi))
        scene.add_geometry(box, node_name=f"part_{i}", geom_name=f"part_{i}")
    path = tmp_path / "other_generator.glb"
    scene.export(path)
    result = runner.invoke(app, ["eval", str(path), "--references", "4", "--max-components", "2"])
    assert isinstance(result.exception, ProceedingsError) and "--merge-small-parts" in str(result.exception)
    result = runner.invoke(app, ["eval", str(path), "--references", "4", "--max-components", "2", "--merge-small-parts"])
    assert result.exit_code == 0, result.output
    assert '"part_iou"' in result.output
