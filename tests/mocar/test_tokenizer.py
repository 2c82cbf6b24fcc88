"""The motion tokenizer: frame perturbation is exact geometry; pre-training teaches it the frame transition."""

import numpy as np
import torch

from proceedings.mocar.batch import make_batch
from proceedings.mocar.frames import compose, to_global
from proceedings.mocar.tokenizer import PretrainConfig, Tokenizer, pretrain, seen_from_perturbed_frame


def _segments(scenes):
    points, headings, transitions = make_batch(scenes, np.arange(len(scenes))).segments()
    return points.reshape(-1, 5, 2), headings.reshape(-1, 5), transitions.reshape(-1, 3)


def test_a_segment_seen_from_a_perturbed_frame_is_the_same_motion(scenes):
    points, headings, transitions = _segments(scenes)
    moved_points, moved_headings, moved_transitions = seen_from_perturbed_frame(points, headings, transitions,
                                                                                torch.Generator().manual_seed(0))
    # the perturbed frame, recovered from the end pose seen from both frames: F' = T ∘ T'^-1
    identity = torch.zeros_like(transitions)
    end = compose(identity, transitions)
    frame = torch.stack((end[:, 0], end[:, 1], end[:, 2] - moved_transitions[:, 2]), dim=-1)
    frame[:, :2] -= to_global(moved_transitions[:, None, :2], torch.cat((0 * frame[:, :2], frame[:, 2:]), -1))[:, 0]
    assert torch.allclose(to_global(moved_points, frame), points, atol=1e-4)
    assert not torch.allclose(moved_points, points, atol=1e-2)
    assert torch.allclose(torch.remainder(moved_headings + frame[:, None, 2] - headings + np.pi, 2 * np.pi) - np.pi,
                          torch.zeros_like(headings), atol=1e-5)


def test_pre_training_teaches_the_tokenizer_each_segments_heading_change(scenes):
    points, headings, transitions = _segments(scenes)
    torch.manual_seed(0)
    tokenizer = Tokenizer(code_dim=8, hidden=32)
    record = pretrain(tokenizer, points, headings, transitions, 1e-3, PretrainConfig(steps=300, batch=128, lr=3e-3))
    with torch.no_grad():
        _, decoded = tokenizer.decode(tokenizer.encode(points, headings)[0])
    constant = (transitions[:, 2] - transitions[:, 2].median()).abs().mean()  # the best a constant dθ does
    assert record["steps"] == 300 and constant > 0.02
    assert (decoded[:, 2] - transitions[:, 2]).abs().mean() < 0.6 * constant  # each segment's own heading change
