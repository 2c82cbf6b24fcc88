"""The schema probe readers pass gate G1: GT video is read right (change >= 0.95, anchor >= 0.97), a
frozen-first-frame video is read wrong on dynamic ops and judged static, a recoloured frame fails
exactly the colour probe of that object, and a recolour is read as changed on GT and as unchanged while the old colour stays."""

import numpy as np
import pytest

from proceedings.oopsworld.data import build_episodes
from proceedings.oopsworld.evaluate import frozen_first_frame, gt_videos, score_videos
from proceedings.oopsworld.probes import SchemaReaders
from proceedings.oopsworld.training import segment_data
from proceedings.oopsworld.world import render


@pytest.fixture(scope="module")
def bench():
    episodes = build_episodes(range(10_000_000, 10_000_004), segments=6, stage=4)
    return episodes, segment_data(episodes, "structured")


def test_probe_readers_pass_gate_g1_on_gt_and_reject_a_frozen_video(bench):
    episodes, data = bench
    readers = SchemaReaders()
    gt = score_videos(gt_videos(data), episodes, readers, with_quality=False)
    frozen = score_videos(frozen_first_frame(data), episodes, readers, with_quality=False)
    assert np.nanmean(gt.change) >= 0.95 and np.nanmean(gt.anchor) >= 0.97
    assert np.nanmean(frozen.dd_dynamic_ops_change) <= 0.3 and np.nanmean(frozen.dd) == 0
    assert np.nanmean(gt.dd) > 0


def test_a_wrong_colour_fails_only_that_objects_colour_probe(bench):
    episodes, _ = bench
    ep = next(e for e in episodes if any(p.reader == "color" for p in e.probes if p.segment == 0))
    probes = [p for p in ep.probes if p.segment == 0]
    end = ep.scenes[1]
    index, target = next((i, p) for i, p in enumerate(probes) if p.reader == "color")
    oid = target.slot.split(".")[1]
    wrong = {**end, "local": [{**o, "color": "green" if o["color"] != "green" else "red"} if o["id"] == oid else o
                              for o in end["local"]]}
    frame = render(wrong, 1 + ep.programs[0].frames, ep.seed)
    right = SchemaReaders().answer([frame], [(ep, 0)], [probes])[0]
    assert not right[index]
    assert right[[i for i, p in enumerate(probes) if p.reader in ("weather", "environment")]].all()


def test_a_recolour_reads_changed_on_gt_and_unchanged_while_the_old_colour_stays():
    """Round 14's first question: recolor reads 0.00-0.04 in every trained model; the judge is not why."""
    episodes = build_episodes(range(20_000_000, 20_000_006), segments=2, stage=4, max_objects=2, depths=(1,),
                              operators=("recolor",))
    readers, reads = SchemaReaders(), {"gt": [], "old colour": []}
    for ep in episodes:
        for s in range(ep.segments):
            probes = [p for p in ep.probes if p.segment == s]
            index = next(i for i, p in enumerate(probes) if p.kind == "change" and p.reader == "color")
            end = ep.frames[2 + (s + 1) * 8 - 1].astype(np.float32) / 255
            for name, frame in (("gt", end), ("old colour", ep.frames[2 + s * 8 - 1].astype(np.float32) / 255)):
                reads[name].append(readers.read(frame, ep, s, index, probes[index]))
    assert all(reads["gt"]) and not any(reads["old colour"])
