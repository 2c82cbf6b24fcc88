"""Norm-Anchor Scaling (NAS) for sequential locate-and-edit model editing.

Sequential ROME / MEMIT / AlphaEdit editing collapses after many edits through a norm-feedback loop:
edited MLP weights grow, so the solved value vectors v* grow, so the next update grows the weights
again. NAS (paper: arXiv 2602.02543, "Norm-Anchor Scaling") rescales every solved value vector to a
reference norm rho measured on the unedited model, which breaks the loop. Here NAS is one flag on
each editor.

    from proceedings.nas import Editor, EditRequest, EditHparams
    editor = Editor(model, tok, EditHparams.for_model(model, method="memit", nas=True))
    editor.prepare()                      # C_0, null-space projector, rho (cached)
    record = editor.edit([EditRequest("The capital of {} is", "France", " Lyon", " Paris")])
"""

from proceedings.nas.editing import BatchRecord, Editor
from proceedings.nas.hparams import EditHparams
from proceedings.nas.requests import EditRequest

__all__ = ["BatchRecord", "EditHparams", "EditRequest", "Editor"]
