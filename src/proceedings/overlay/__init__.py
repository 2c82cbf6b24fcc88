"""OverLay++: dense, overlap-aware, caption-rich layout data for layout-to-image training (issue 28).

The data side: a seeded sprite renderer with exact masks and two profiles (`sparse`, LayoutSAM-like;
`dense`, OverLay++-like), the spec's JSONL record with exact overlaps and occlusion order, an annotate
pipeline checked against that truth, OverLayScore, statistics and exports. The model side: a small
GLIGEN-style layout-to-image UNet trained by flow matching, scored by frozen probes
(mIoU, O-mIoU, SR_E, SR_R).

Public names are imported lazily, so `proceedings list` does not load numpy.
"""

from proceedings.core.lazy import lazy_exports

_NAMES = {"generate": "synth", "make_record": "synth", "overlayscore": "score"}
__all__ = list(_NAMES)
__getattr__ = lazy_exports(__name__, _NAMES)
