"""OverLay++: dense, overlap-aware, caption-rich layout data for layout-to-image training (issue 28).

The data side: a seeded sprite renderer with exact masks and two profiles (`sparse`, LayoutSAM-like;
`dense`, OverLay++-like), the spec's JSONL record with exact overlaps and occlusion order, an annotate
pipeline checked against that truth, OverLayScore, statistics and exports. The model side: a small
GLIGEN-style layout-to-image UNet trained by flow matching, scored by frozen probes
(mIoU, O-mIoU, SR_E, SR_R).
"""

from proceedings.overlay.score import overlayscore
from proceedings.overlay.synth import generate, make_record

__all__ = ["generate", "make_record", "overlayscore"]
