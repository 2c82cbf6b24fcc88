"""Round 20 (issue 29, lead): the ablation rows (no GAN, A singles only, no mask) at the small preset's 1,200 steps.
`python r20_ablations.py SEED` runs `proceedings reproduce ovie --scale small --seed SEED` with `ablations=True`; its
record goes to $PROCEEDINGS_RESULTS/ovie/small.json. The flag keys a run folder of its own, so MV, OVIE and FT, whose
training reads no ablation setting, are first copied from the plain small run folder of the same seed (finished arms
only: round 16b's shortcut, checked here by the two configurations differing in `ablations` alone). SIGTERM
checkpoints the arm in training; a rerun resumes. `python r20_ablations.py read DIR0 DIR1 DIR2` prints the reading
fixed in the README before the run (each row minus OVIE per seed, the mean and its Student-t 95 % interval)."""
import json
import shutil
import sys
from dataclasses import asdict, replace

from proceedings.core.runtime import load_checkpoint
from proceedings.core.seeds import Spread
from proceedings.ovie import experiment as e

ROWS = ("ovie_no_gan", "ovie_A_only", "ovie_no_mask", "mv", "ovie_ft", "copy")


def copy_shared_arms(seed: int) -> None:
    plain = e.experiment_config("small", seed)
    ablated = replace(plain, ablations=True)
    differing = {k for k, v in asdict(plain).items() if asdict(ablated)[k] != v}
    assert differing == {"ablations"}, differing
    source, target = e.run_folder(plain, seed), e.run_folder(ablated, seed)
    target.mkdir(parents=True, exist_ok=True)
    for arm, steps in (("mv", plain.train.steps), ("ovie", plain.train.steps),
                       ("ovie_ft", round(e.FINETUNE_FRACTION * plain.train.steps))):
        state = load_checkpoint(source / f"{arm}.pt")
        assert state is not None and state["step"] == steps, f"{arm} is not a finished {steps}-step arm in {source}"
        if not (target / f"{arm}.pt").exists():
            shutil.copy2(source / f"{arm}.pt", target / f"{arm}.pt")
            print(f"copied {arm}.pt {source.name} -> {target.name}")


def mean_interval(values: list[float]) -> list[float]:
    """[mean, low, high]: the Student-t 95 % interval of the mean over seeds (`core.seeds.Spread`)."""
    spread = Spread(tuple(values))
    return [round(v, 3) for v in (spread.mean, *spread.ci95)]


def read(folders: list[str]) -> dict:
    tables = [json.load(open(f"{d}/ovie/small.json"))["metrics"]["table"] for d in folders]
    out = {}
    for w in "AB":
        for row in ROWS:
            diffs = [t[w][row]["psnr"] - t[w]["ovie"]["psnr"] for t in tables]
            out[f"{row} - ovie on {w} (dB)"] = {"per_seed": [round(d, 3) for d in diffs], "mean_95": mean_interval(diffs)}
        out[f"holes FD on {w}"] = {row: [round(t[w][row]["fd_proxy_disoccluded"], 3) for t in tables]
                                   for row in ("ovie", "ovie_no_gan", "ovie_A_only", "ovie_no_mask", "mv")}
    out["psnr_A_minus_copy"] = {row: mean_interval([t["A"][row]["psnr"] - t["A"]["copy"]["psnr"] for t in tables])
                                for row in ("ovie", "ovie_no_gan", "ovie_A_only", "ovie_no_mask")}
    return out


if sys.argv[1] == "read":
    print(json.dumps(read(sys.argv[2:]), indent=1))
else:
    seed = int(sys.argv[1])
    copy_shared_arms(seed)
    e.CONFIGS["small"] = replace(e.CONFIGS["small"], ablations=True)
    from proceedings.cli import app
    app(["reproduce", "ovie", "--scale", "small", "--seed", str(seed)])
