"""Round 16b (issue 29): the small preset unchanged (rounds 1-15's sampler) plus the ablation rows
(ablations=True: no GAN, A singles only, no mask); staged (SIGTERM checkpoints, a rerun resumes).
Modes: (none) the run; `key` prints the run folder; `diagnose` the diagnosis with the ablation arms;
`partial` scores the arms that finished, if the staged run stops before its evaluation."""
import json
import sys
from dataclasses import replace

from proceedings.ovie import experiment as e

e.CONFIGS["small"] = replace(e.CONFIGS["small"], ablations=True)
mode = sys.argv[1:]
if mode == ["key"]:
    print(e.run_folder(e.experiment_config("small", 0), 0))
elif mode == ["diagnose"]:
    from proceedings.ovie.diagnostics import diagnose
    print(json.dumps(diagnose("small"), indent=1))
elif mode == ["partial"]:
    from proceedings.core.runtime import load_checkpoint
    from proceedings.ovie.camera import intrinsics
    from proceedings.ovie.depth import load_estimator
    from proceedings.ovie.networks import NovelViewNet
    cfg = e.experiment_config("small", 0)
    arms = {}
    for arm in ("mv", "ovie", "ovie_ft", "ovie_no_gan", "ovie_A_only", "ovie_no_mask"):
        state = load_checkpoint(e.run_folder(cfg, 0) / f"{arm}.pt")
        steps = round(e.FINETUNE_FRACTION * cfg.train.steps) if arm == "ovie_ft" else cfg.train.steps
        if state is not None and state["step"] == steps:  # finished arms only
            arms[arm] = NovelViewNet(cfg.size, intrinsics(cfg.size), cfg.arch)
            arms[arm].load_state_dict(state["ema"])
    estimator = load_estimator(cfg.depth, cfg.estimator)
    table, _ = e.evaluate(cfg, e.datasets(cfg, 0), arms, estimator, estimator.features)
    from proceedings.ovie.metrics import paired_bootstrap
    out = {w: {r: {k: v for k, v in s.items() if k != "per_pair_psnr"} if isinstance(s, dict) else s
               for r, s in table[w].items()} for w in "AB"}
    out["bootstrap_95"] = {f"{r} - {base} on {w}": paired_bootstrap(table[w][r]["per_pair_psnr"],
                                                                 table[w][base]["per_pair_psnr"], cfg.bootstrap, 0)
                           for w in "AB" for base in ("ovie", "mv", "copy") for r in arms if r.startswith("ovie_")}
    print(json.dumps(out, indent=1))
else:
    from proceedings.cli import app
    app(["reproduce", "ovie", "--scale", "small"])
