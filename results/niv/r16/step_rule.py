"""Round-16 step and seed rule for `small`, from the training-font gate's numbers only (NIV and B0 on each seed's
seeded 200-glyph training sample; no held-out number is read). Run from the repository root:
`python results/niv/r16/step_rule.py results/niv/r16/step-rule.json`.

Needed: over n fresh seeds the gate holds when mean + t(0.975, n-1) * s / sqrt(n) < 0, s the seed sd of the gate
contrast NIV - 0.5 x B0, pooled within step counts (the spread is the glyph sample's, which steps do not move).
Predicted: the mean NIV / B0 ratio at N steps, a power law c + a N^-alpha through the three step counts recorded with
several seeds (800, 1,300, 2,000), times the mean B0 over every recorded sample. For each N the fewest seeds whose
predicted mean clears the need by at least s / 4 (fixed before any fresh seed ran); the N with the least lane time
(seeds x minutes a seed) is chosen."""
import json
import math
import subprocess
import sys

from scipy.optimize import brentq
from scipy.stats import t as student_t

RECORDS = {  # step count -> (commit, path) of the committed records that hold its seeds
    800: [("3b06038", "results/niv/small.json")],
    1300: [("cf80d5f", "results/niv/small.json"), ("780f7bb", "results/niv/small.json")],
    2000: [("HEAD", f"results/niv/r14/seed{n}-corner.json") for n in (8, 9, 10)] + [("HEAD", "results/niv/r14/seed11.json")],
}
CANDIDATES = (2000, 2500, 3000)
MINUTES_A_SEED = {n: (2 * n * 0.35 + 100) / 60 for n in CANDIDATES}  # both arms at 0.35 s/step (seed 8) + scoring


def gate_numbers(commit: str, path: str) -> list[dict]:
    record = json.loads(subprocess.run(["git", "show", f"{commit}:{path}"], capture_output=True, text=True,
                                       check=True).stdout)
    seeds = (record.get("seeds") or {}).get("per_seed") or [record]
    return [{"seed": s["seed"], "niv": s["metrics"]["train_error"], "b0": s["baseline"]["b0_train_error"]}
            for s in seeds]


def main(out: str) -> None:
    seen = {n: [g for c, p in RECORDS[n] for g in gate_numbers(c, p)] for n in RECORDS}
    contrast = {n: [g["niv"] - 0.5 * g["b0"] for g in gs] for n, gs in seen.items()}
    ratio = {n: sum(g["niv"] / g["b0"] for g in gs) / len(gs) for n, gs in seen.items()}
    ss = sum(sum((c - sum(cs) / len(cs)) ** 2 for c in cs) for cs in contrast.values())
    s = math.sqrt(ss / sum(len(cs) - 1 for cs in contrast.values()))
    b0 = {g["seed"]: g["b0"] for gs in seen.values() for g in gs}  # one sample per seed
    b0_mean = sum(b0.values()) / len(b0)

    n0, n1, n2 = sorted(ratio)
    y0, y1, y2 = ratio[n0], ratio[n1], ratio[n2]
    shape = lambda al: (y0 - y1) / (n0 ** -al - n1 ** -al) - (y1 - y2) / (n1 ** -al - n2 ** -al)
    alpha = brentq(shape, 0.05, 20)
    a = (y0 - y1) / (n0 ** -alpha - n1 ** -alpha)
    c = y0 - a * n0 ** -alpha
    predicted = {n: (c + a * n ** -alpha - 0.5) * b0_mean for n in CANDIDATES}

    need = lambda k: -student_t.ppf(0.975, k - 1) * s / math.sqrt(k)
    plans = {}
    for n in CANDIDATES:
        k = next(k for k in range(3, 13) if predicted[n] <= need(k) - s / 4)
        plans[n] = {"seeds": k, "need": need(k), "predicted": predicted[n], "margin": need(k) - predicted[n],
                    "lane_minutes": k * MINUTES_A_SEED[n]}
    chosen = min(plans, key=lambda n: plans[n]["lane_minutes"])
    result = {"per_seed": seen, "mean_ratio": ratio, "pooled_sd": s, "df": sum(len(cs) - 1 for cs in contrast.values()),
              "b0_mean": b0_mean, "power_law": {"c": c, "a": a, "alpha": alpha}, "need_three_seeds": need(3),
              "plans": plans, "chosen_steps": chosen, "chosen_seeds": plans[chosen]["seeds"]}
    print(json.dumps({k: v for k, v in result.items() if k != "per_seed"}, indent=1))
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
