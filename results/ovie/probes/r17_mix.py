"""Round 17 (issue 29): which of B and C costs OVIE on A. `python r17_mix.py SEED` trains the A+B and A+C rows
(`mix_rows`) into the run folder of the seed's round-16b/16c ablation run (the small preset with ablations=True),
whose finished MV, OVIE and A-only checkpoints are scored again beside them (never retrained: missing ones stop the
run); SIGTERM checkpoints, a rerun resumes. Then it scores the rows, bootstraps the differences the README's rule
reads, applies that rule (`experiment.which_world_hurts`, fixed before the run) and writes
results/ovie/small/round17_mix_seed{SEED}.json."""
import json
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path

from proceedings.core.runtime import load_checkpoint, seed_everything
from proceedings.ovie import experiment as e
from proceedings.ovie.depth import load_estimator
from proceedings.ovie.metrics import paired_bootstrap

start_wall, start_cpu = time.time(), time.process_time()
seed = int(sys.argv[1])
cfg = replace(e.experiment_config("small", seed), ablations=True, mix_rows=("AB", "AC"))
folder = e.run_folder(cfg, seed)

arms = {arm: e.finished_arm(cfg, seed, arm) for arm in ("mv", "ovie", "ovie_A_only")}
seed_everything(seed)
sets = e.datasets(cfg, seed)
estimator = load_estimator(cfg.depth, cfg.estimator)
arms.update(e.mix_arms(cfg, sets, estimator, estimator.features, seed))
table, _ = e.evaluate(cfg, sets, arms, estimator, estimator.features)
rows = {w: {r: {k: v for k, v in s.items() if k != "per_pair_psnr"} if isinstance(s, dict) else s
            for r, s in table[w].items()} for w in "AB"}
pairs = [(r, base) for r in ("ovie_AB", "ovie_AC") for base in ("ovie_A_only", "ovie", "mv", "copy")]
pairs += [("ovie_AB", "ovie_AC"), ("ovie_A_only", "ovie")]
out = {"seed": seed, "run_folder": str(folder), "margin_db": e.MIX_MARGIN_DB, "table": rows,
       "bootstrap_95": {f"{r} - {base} on {w}": paired_bootstrap(table[w][r]["per_pair_psnr"], table[w][base]["per_pair_psnr"],
                                                                 cfg.bootstrap, seed) for w in "AB" for r, base in pairs},
       "case": {w: e.which_world_hurts({r: s["psnr"] for r, s in rows[w].items() if isinstance(s, dict)}) for w in "AB"},
       "gate_like_rows_A": {r: table["A"][r]["psnr"] >= table["A"]["copy"]["psnr"] + e.OVIE_OVER_COPY_DB
                            for r in ("ovie", "ovie_A_only", "ovie_AB", "ovie_AC")},
       "training": {arm: {k: load_checkpoint(folder / f"{arm}.pt")["log"][k] for k in ("wall_s", "cpu_s", "skipped_nonfinite")}
                    for arm in ("ovie_AB", "ovie_AC")},
       "this_process": {"wall_s": time.time() - start_wall, "cpu_s": time.process_time() - start_cpu,
                        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}
path = Path(__file__).parents[1] / "small" / f"round17_mix_seed{seed}.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps({k: out[k] for k in ("case", "gate_like_rows_A", "training", "this_process")}, indent=1))
print({w: {r: round(s["psnr"], 2) for r, s in rows[w].items() if isinstance(s, dict)} for w in "AB"})
