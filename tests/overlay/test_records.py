"""Exact records: regions, fronts and visible fractions follow from the painted masks (issue 28 tests)."""

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.overlay.records import check_record, rle_decode
from proceedings.overlay.synth import make_record
from proceedings.overlay.validate import check_boxes, check_objects


@pytest.fixture(scope="module")
def records():
    return [make_record("dense" if k % 4 else "sparse", 7, k, 32)[0] for k in range(100)]


def test_region_masks_are_the_and_of_amodal_masks_and_front_is_the_z_order_winner(records):
    pairs = 0
    for record in records:
        objects = {o["id"]: o for o in record["objects"]}
        amodal = {i: rle_decode(o["mask_amodal"]) for i, o in objects.items()}
        visible = {i: rle_decode(o["mask_visible"]) for i, o in objects.items()}
        for pair in record["overlaps"]:
            region = rle_decode(pair["region_mask"])
            assert (region != (amodal[pair["i"]] & amodal[pair["j"]])).sum() == 0
            if region.any():
                nearer = max((pair["i"], pair["j"]), key=lambda i: objects[i]["depth_rank"])
                farther = pair["j"] if nearer == pair["i"] else pair["i"]
                assert not (visible[farther] & region).any()  # the farther object never shows in the region
                if (visible[nearer] & region).any():
                    assert pair["front"] == nearer
                pairs += 1
        for o in objects.values():
            assert abs(o["visible_fraction"] - visible[o["id"]].sum() / amodal[o["id"]].sum()) < 1e-6
    assert pairs > 100


def test_visible_masks_partition_the_painted_objects(records):
    for record in records[:20]:
        total = sum(rle_decode(o["mask_visible"]).astype(int) for o in record["objects"])
        assert total.max() <= 1  # no pixel belongs to two objects


def test_a_record_whose_front_disagrees_with_its_masks_is_refused(records):
    record = next(r for r in records if any(o["valid"] for o in r["overlaps"]))
    tampered = {**record, "overlaps": [dict(o) for o in record["overlaps"]]}
    pair = next(o for o in tampered["overlaps"] if o["valid"])
    pair["front"] = pair["i"] if pair["front"] == pair["j"] else pair["j"]
    with pytest.raises(ProceedingsError, match="disagrees with its masks"):
        check_record(tampered)


def test_dense_records_are_denser_with_longer_captions_than_sparse(records):
    dense = [r for k, r in enumerate(records) if k % 4]
    sparse = [r for k, r in enumerate(records) if not k % 4]
    words = lambda rs: np.mean([len(o["caption"].split()) for r in rs for o in r["objects"]])  # noqa: E731
    assert np.mean([len(r["objects"]) for r in dense]) > 1.4 * np.mean([len(r["objects"]) for r in sparse])
    assert words(dense) > 6 * words(sparse)


@pytest.mark.parametrize("boxes, fmt, message", [
    ([[0, 0, float("nan"), 4]], "xyxy", "not four finite numbers"),
    ([[4, 4, 2, 8], [0, 0, 5, 5], [1, 1, 6, 6], [2, 2, 3, 9], [5, 5, 9, 9]], "xyxy", "inverted"),
    ([[0, 0, 5, 5], [1, 1, 6, 6], [4, 4, 2, 3], [3, 3, 1, 2]], "xyxy", "--bbox-format xywh"),
    ([[0, 0, 40, 5]], "xyxy", "more than 1 px outside"),
])
def test_bad_boxes_fail_in_one_line_naming_the_problem(boxes, fmt, message):
    with pytest.raises(ProceedingsError, match=message) as err:
        check_boxes("img", boxes, 32, 32, fmt)
    assert "\n" not in str(err.value)


def test_boxes_within_one_pixel_are_clipped_and_xywh_is_converted():
    assert check_boxes("img", [[-0.5, 0, 32.5, 10]], 32, 32) == [[0.0, 0.0, 32.0, 10.0]]
    assert check_boxes("img", [[2, 3, 4, 5]], 32, 32, "xywh") == [[2.0, 3.0, 6.0, 8.0]]


def test_duplicate_ids_and_wrong_size_masks_are_refused(records):
    record = records[1]
    duplicate = {**record, "objects": [record["objects"][0], record["objects"][0]]}
    with pytest.raises(ProceedingsError, match="duplicate object id"):
        check_objects(duplicate)
    wrong = {**record, "width": 64, "height": 64}
    with pytest.raises(ProceedingsError, match=r"object 0: mask_visible is 32x32, the image 64x64"):
        check_objects(wrong)


@pytest.mark.parametrize("line, message", [
    ("{}", r"bad\.jsonl:2 is not an OverLay\+\+ record"),
    ("[1, 2]", r"bad\.jsonl:2 is not an OverLay\+\+ record"),
    ('{"image_id": "x", "width": 32, "height": 32, "objects": [{"id": 0}]}', "objects with id and bbox"),
    ('{"image_id": "x", "width": 32, "height": 32, "objects": [{"id": 0, "bbox": [9, 9, 2, 2]}]}', "xywh"),
])
def test_a_line_that_is_not_a_valid_record_stops_reading_in_one_line(records, tmp_path, line, message):
    import json

    from proceedings.overlay.records import read_records

    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(records[0]) + "\n" + line + "\n")
    with pytest.raises(ProceedingsError, match=message) as err:
        read_records(path)
    assert "\n" not in str(err.value)
