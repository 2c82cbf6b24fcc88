"""The frozen evaluators meet gate G1 on ground truth and fail on perturbed videos (issue 30, round 2)."""

import numpy as np
import pytest
import torch

from proceedings.motionforcing import drive_world as dw
from proceedings.motionforcing import evaluators as ev
from proceedings.motionforcing.dataset import ClipSet
from proceedings.motionforcing.ego_flow import ego_epe
from proceedings.motionforcing.experiment import G1_EGO_EPE, G1_HIT, G1_LOCALISER_PX
from proceedings.motionforcing.training import TrainConfig


@pytest.fixture(scope="module")
def clips() -> ClipSet:
    return ClipSet.from_clips([dw.sample(4000 + i, 6, 32) for i in range(36)])


def _shifted(video: np.ndarray, pixels: int) -> np.ndarray:
    """Frames 1.. rolled `pixels` to the right (frame 0 kept)."""
    out = video.copy()
    out[:, 1:] = np.roll(video[:, 1:], pixels, axis=-1)
    return out


def test_registered_ego_flow_meets_the_gate_on_gt_and_fails_on_copy_i0_and_on_a_shifted_video(clips):
    few = clips.subset(np.arange(4))
    assert np.nanmean(ego_epe(few.rgb, few)) <= G1_EGO_EPE
    assert np.nanmean(ego_epe(np.repeat(few.rgb[:, :1], few.frames, 1), few)) > 2 * G1_EGO_EPE
    assert np.nanmean(ego_epe(_shifted(few.rgb, 1), few)) > G1_EGO_EPE


def test_scorable_agents_are_visible_whole_and_unoccluded(clips):
    scored, seen = ev.scorable(clips), ev.visible(clips)
    assert not (scored & ~seen).any() and 0.5 < scored.sum() / seen.sum() < 1
    n, a, t = np.nonzero(scored)
    silhouettes = clips.ids[n, t] == (a + 1)[:, None, None]
    assert not silhouettes[:, [0, -1]].any() and not silhouettes[:, :, [0, -1]].any()


def test_the_moment_readout_of_exact_masks_meets_the_localiser_gate_on_held_out_clips(clips):
    """The readout half of the localiser: fitted on 28 clips' true instance masks, scored on 8 others."""
    def moments(data):
        n, a, t = np.nonzero(ev.scorable(data))
        masks = torch.from_numpy(data.ids[n, t] == (a + 1)[:, None, None]).double()
        return ev.mask_moments(masks), torch.from_numpy(data.centres[n, a, t])

    fit, held = clips.subset(np.arange(28)), clips.subset(np.arange(28, 36))
    features, target = moments(fit)
    readout = torch.linalg.lstsq(features, target).solution
    features, target = moments(held)
    errors = (features @ readout - target).norm(dim=1)
    assert errors.mean() <= G1_LOCALISER_PX and (errors <= ev.HIT_PX).double().mean() >= G1_HIT
    shifted = (features @ readout + torch.tensor([2.0, 0.0]) - target).norm(dim=1)
    assert shifted.mean() > G1_LOCALISER_PX


@pytest.mark.slow
def test_the_trained_localiser_meets_the_gate_on_gt_and_misses_on_copy_i0(clips):
    train, held = clips.subset(np.arange(28)), clips.subset(np.arange(28, 36))
    localiser, _ = ev.train_localiser(train, TrainConfig(300, 64, 3e-3, 0), width=16)
    scored = ev.scorable(held)
    errors = ev.placement_errors(ev.localise(localiser, held.rgb, held.colours, held.present), held, scored)[scored]
    assert errors.mean() <= G1_LOCALISER_PX and (errors <= ev.HIT_PX).mean() >= G1_HIT
    scored[:, :, 0] = False
    copy = np.repeat(held.rgb[:, :1], held.frames, 1)
    missed = ev.placement_errors(ev.localise(localiser, copy, held.colours, held.present), held, scored)[scored]
    assert missed.mean() > 2 * G1_LOCALISER_PX
