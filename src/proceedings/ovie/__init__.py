"""OVIE: in-the-wild monocular novel-view synthesis (NeurIPS 2026, issue 29).

A frozen depth estimator lifts each single training image to 3D; splatting it into a sampled pose
gives a pseudo-target and a visibility mask; masked reconstruction losses and an adversarial term
(reals = source images) train a geometry-free network that needs only the source image and the
target pose at inference. Here at laptop scale on procedural worlds with exact depth.

Public names (loaded on first use, so `import proceedings.ovie` stays light): reproduce, verdict,
splat, NovelViewNet, load_estimator, render_set.
"""

from proceedings.core.lazy import lazy_exports

_NAMES = {"reproduce": "experiment", "verdict": "experiment", "splat": "geometry", "NovelViewNet": "networks",
          "load_estimator": "depth", "render_set": "worlds"}
__all__ = list(_NAMES)
__getattr__ = lazy_exports(__name__, _NAMES)
