"""Round 16 (issue 29): the full small preset with one change, the pose sampler's pitch law
PoseSampler(pitch_deg=experiment.TRAINING_PITCH_DEG); staged (SIGTERM checkpoints, a rerun resumes)."""
import sys
from dataclasses import replace

from proceedings.ovie import experiment as e
from proceedings.ovie.geometry import PoseSampler

e.CONFIGS["small"] = replace(e.CONFIGS["small"], sampler=PoseSampler(pitch_deg=e.TRAINING_PITCH_DEG))
if sys.argv[1:] == ["diagnose"]:
    import json
    from proceedings.ovie.diagnostics import diagnose
    print(json.dumps(diagnose("small"), indent=1))
else:
    from proceedings.cli import app
    app(["reproduce", "ovie", "--scale", "small"])
