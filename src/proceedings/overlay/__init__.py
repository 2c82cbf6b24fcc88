"""OverLay++: dense, overlap-aware, caption-rich layout data for layout-to-image training (issue 28).

The data side: a seeded sprite renderer with exact masks and two profiles (`sparse`, LayoutSAM-like;
`dense`, OverLay++-like), the spec's JSONL record with exact overlaps and occlusion order, an annotate
pipeline checked against that truth, OverLayScore, statistics and exports. The model side: a small
GLIGEN-style layout-to-image UNet trained by flow matching, scored by frozen probes
(mIoU, O-mIoU, SR_E, SR_R).

Public names are imported lazily, so `proceedings list` does not load numpy.
"""

from importlib import import_module

_NAMES = {"generate": "synth", "make_record": "synth", "overlayscore": "score"}
__all__ = list(_NAMES)


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module 'proceedings.overlay' has no attribute '{name}'")
    return getattr(import_module(f"proceedings.overlay.{_NAMES[name]}"), name)
