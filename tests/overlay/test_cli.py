"""The user's verbs end to end on a few images: synth, stats --compare, export (COCO round trip), annotate, viz."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from proceedings.overlay.cli import app
from proceedings.overlay.records import read_records, rle_decode

runner = CliRunner()


@pytest.fixture(scope="module")
def dense_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("dense")
    result = runner.invoke(app, ["synth", "--profile", "dense", "--n", "6", "--size", "48", "--out", str(out),
                                 "--encoder", "bow", "--shard-size", "4"])
    assert result.exit_code == 0, result.output
    return out


def test_synth_writes_images_shards_and_done_markers_and_resume_skips_them(dense_dir):
    assert len(list((dense_dir / "images").glob("*.png"))) == 6
    assert sorted(p.name for p in dense_dir.glob("part-*")) == ["part-00000.done", "part-00000.jsonl",
                                                               "part-00001.done", "part-00001.jsonl"]
    before = (dense_dir / "part-00000.jsonl").stat().st_mtime_ns
    result = runner.invoke(app, ["synth", "--profile", "dense", "--n", "6", "--size", "48", "--out", str(dense_dir),
                                 "--encoder", "bow", "--shard-size", "4", "--resume"])
    assert result.exit_code == 0 and (dense_dir / "part-00000.jsonl").stat().st_mtime_ns == before


def test_stats_compare_prints_the_density_and_caption_ratios(dense_dir, tmp_path):
    sparse = tmp_path / "sparse"
    runner.invoke(app, ["synth", "--profile", "sparse", "--n", "6", "--size", "48", "--out", str(sparse), "--encoder", "bow"])
    result = runner.invoke(app, ["stats", "--in", str(dense_dir / "annotations.jsonl"), "--compare",
                                 str(sparse / "annotations.jsonl")])
    assert result.exit_code == 0, result.output
    stats = json.loads((dense_dir / "stats.json").read_text())
    assert stats["compare"]["caption_words_ratio"] > 4 and "density_ratio" in stats["compare"]


def test_coco_export_read_back_by_pycocotools_keeps_boxes_and_mask_areas(dense_dir, tmp_path):
    from pycocotools import mask as coco_mask
    from pycocotools.coco import COCO

    out = tmp_path / "coco.json"
    assert runner.invoke(app, ["export", "--in", str(dense_dir / "annotations.jsonl"), "--format", "coco",
                               "--out", str(out)]).exit_code == 0
    coco = COCO(str(out))
    records = read_records(dense_dir / "annotations.jsonl")
    objects = [o for r in records for o in r["objects"]]
    annotations = coco.loadAnns(coco.getAnnIds())
    assert len(annotations) == len(objects)
    for ann, obj in zip(annotations, objects):
        x, y, w, h = ann["bbox"]
        assert [x, y, x + w, y + h] == obj["bbox"]
        rle = coco.annToRLE(ann)
        assert int(coco_mask.area(rle)) == int(rle_decode(obj["mask_visible"]).sum()) == ann["area"]


def test_overlaybench_export_has_the_meters_keys(dense_dir, tmp_path):
    out = tmp_path / "olb.json"
    runner.invoke(app, ["export", "--in", str(dense_dir), "--format", "overlaybench", "--out", str(out)])
    entry = next(iter(json.loads(out.read_text()).values()))
    assert set(entry) == {"annotations", "relations", "valid_overlap"}


def test_annotate_writes_a_report_and_skips_unreadable_images(dense_dir, tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    for png in sorted((dense_dir / "images").glob("*.png"))[:2]:
        (images / png.name).write_bytes(png.read_bytes())
    (images / "broken.png").write_bytes(b"not a png")
    out = tmp_path / "annotated"
    result = runner.invoke(app, ["annotate", "--images", str(images), "--out", str(out), "--truth",
                                 str(dense_dir / "annotations.jsonl")])
    assert result.exit_code == 0, result.output
    assert len(read_records(out)) == 2
    assert json.loads((out / "errors.jsonl").read_text().splitlines()[0])["file"] == "broken.png"
    report = json.loads((out / "report.json").read_text())
    assert report["images"] == 2 and 0 <= report["pipeline"]["front_accuracy"] <= 1


def test_viz_draws_a_record(dense_dir, tmp_path):
    record = read_records(dense_dir / "annotations.jsonl")[0]
    out = tmp_path / "viz.png"
    result = runner.invoke(app, ["viz", "--in", str(dense_dir / "annotations.jsonl"), "--id", record["image_id"],
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 1000


def test_train_l2i_resumes_from_its_checkpoint_and_sample_writes_one_image_per_layout(dense_dir, tmp_path):
    ckpt = tmp_path / "model.pt"
    common = ["train-l2i", "--data", str(dense_dir / "annotations.jsonl"), "--out", str(ckpt), "--size", "16",
              "--batch", "4", "--channels", "8,16,16"]
    assert runner.invoke(app, [*common, "--steps", "3"]).exit_code == 0
    again = runner.invoke(app, [*common, "--steps", "3"])
    assert again.exit_code != 0 and "--resume" in str(again.exception)
    result = runner.invoke(app, [*common, "--steps", "5", "--resume"])
    assert result.exit_code == 0 and "step 5:" in result.output
    out = tmp_path / "samples"
    result = runner.invoke(app, ["sample", "--ckpt", str(ckpt), "--layouts", str(dense_dir / "annotations.jsonl"),
                                 "--out", str(out), "--steps", "2"])
    assert result.exit_code == 0, result.output
    assert len(list(out.glob("*.png"))) == 6


@pytest.mark.parametrize("args, message", [
    (["synth", "--profile", "crowded", "--n", "2", "--encoder", "bow"], "unknown profile 'crowded'"),
    (["train-l2i", "--steps", "1", "--channels", "8,x"], "--channels '8,x': give three comma-separated multiples of 8"),
    (["train-l2i", "--steps", "1", "--channels", "8,16"], "--channels '8,16'"),
    (["train-l2i", "--steps", "1", "--size", "18"], "--size 18: the UNet halves it twice"),
])
def test_bad_options_stop_in_one_line_naming_the_option(dense_dir, tmp_path, args, message):
    from proceedings.core.errors import ProceedingsError

    where = ["--out", str(tmp_path / "out")] + (["--data", str(dense_dir / "annotations.jsonl")] if args[0] == "train-l2i" else [])
    result = runner.invoke(app, [*args, *where])
    assert isinstance(result.exception, ProceedingsError) and message in str(result.exception)
    assert "\n" not in str(result.exception) and not (tmp_path / "out").exists()
