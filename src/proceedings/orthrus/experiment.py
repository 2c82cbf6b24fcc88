"""reproduce(scale): Orthrus against plain AR decoding and prompt lookup, lossless, on the same frozen model.

The paper's headline (abstract): a frozen LLM with a lightweight trainable diffusion view on its own KV
cache decodes losslessly up to 7.8x faster with O(1) extra cache memory. Here: a frozen base; its own
greedy responses as training data; the diffusion view trained at B=8 (checkpointed halfway, resumed);
then one benchmark run, arms rotated, fp32, one thread: AR (the reference), HF prompt lookup (7 drafts),
Orthrus B=8 and B=4 (same weights). The verdict gates first (training raised tau over the untrained view;
slot 0 is accepted at least 60 % of the time), then checks issue 20's five conditions: exactness, tau on
prompts that do not loop, tau growing over training, a flat extra cache, and the cost model.
On a CPU a round is two full-depth passes, so tokens/s is reported as measured and judged only against
the cost model; tau is the hardware-independent number.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import resource
import shutil
import statistics
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch

from proceedings.core.bench import BenchmarkReport, decoder, run_benchmark
from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.core.results import Result, artifact_dir, results_root
from proceedings.core.runtime import check_scale, load_checkpoint, save_checkpoint, seed_everything
from proceedings.core.speculative import greedy_decoder, speculative_decode
from proceedings.core.verdict import interval_end
from proceedings.orthrus.audit import audit, compare
from proceedings.orthrus.baselines import prompt_lookup_decode
from proceedings.orthrus.consensus import DiffusionDrafter
from proceedings.orthrus.costs import cost_table, expected_extra_bytes, extra_cache_bytes
from proceedings.orthrus.data import Workload, loops, mixed_prompts, tiny_base
from proceedings.orthrus.dual_view import DiffusionView, parameter_counts
from proceedings.orthrus.training import ADDED_DEFAULTS, TrainConfig, TrainRecord, stable_settings, train_view

CLAIM = ("A frozen LLM with a lightweight trainable diffusion view on its own KV cache decodes losslessly, "
         "several tokens per round, with O(1) extra cache memory (up to 7.8x faster on GPUs).")
PAPER = {"max_speedup": 7.8, "new_parameter_share": 0.16}
GATE_TAU_GAIN, GATE_SLOT0 = 0.3, 0.6
TAU_MIN, COST_MODEL_TOLERANCE = 2.0, 0.15
CONTEXTS = (128, 512, 1024)
PAPER_BASE, PAPER_BASE_ENV = "local Qwen3", "PROCEEDINGS_ORTHRUS_BASE"


@dataclass
class ExperimentConfig:
    base: str  # "tiny" (the mixed-grammar Llama) or a model spec for core.models.load_causal_lm
    train_prompts: int
    bench_prompts: int  # held out
    response_tokens: int  # self-distillation: max new tokens per response
    new_tokens: int  # benchmark: greedy tokens per prompt
    train: TrainConfig
    block_size: int = 8  # trained and headline B
    other_block: int = 4  # the same weights at a smaller B
    repeats: int = 1
    prompt_len: int = 16  # tiny: grammar prompt length
    audit_bf16_prompts: int = 5
    cost_repeats: int = 10
    max_prompt_chars: int = 600  # ShareGPT first turns up to this length
    resumable: bool = True  # a killed run resumes its training checkpoint (tiny always trains afresh)
    device: str = "cpu"


CONFIGS = {
    # issue 20 tiny: the mixed-grammar Llama (4 layers), 48 sequences, 200 steps of 4 at B=8; 12 prompts x 48 tokens.
    # Probed (seed 0, tau on the non-looping prompts, gain over the untrained view): batch 2 with lr 3e-3 x 60
    # steps +0.16 (the loss blew up), 1e-3 x 120 +0.34, 1e-3 x 200 +0.67 and, in the recorded run, +0.23 (gate
    # failed: the batch-2 loss is noisy); batch 4, 1e-3 x 200: +1.24.
    "tiny": ExperimentConfig(
        base="tiny", train_prompts=48, bench_prompts=12, response_tokens=48, new_tokens=48,
        train=TrainConfig(steps=200, batch=4, seq_len=64, lr=1e-3, checkpoint_every=20), audit_bf16_prompts=4,
        cost_repeats=5, resumable=False),
    # SmolLM2-135M, ShareGPT prompts with its own responses (P-EAGLE's cached file: same prompts, 96 tokens):
    # ~8 min of training at B=8, length <= 384, batch 2 (issue 20), then 20 held-out prompts x 64 tokens.
    "small": ExperimentConfig(
        base="smollm2-135m", train_prompts=160, bench_prompts=20, response_tokens=96, new_tokens=64,
        train=TrainConfig(steps=120, batch=2, seq_len=384, lr=2e-4, checkpoint_every=10)),
    # The paper's shape at GPU scale (spec §2.3): a Qwen3 base from a local directory ($PROCEEDINGS_ORTHRUS_BASE),
    # B=16, sequences of 2048, bf16 compute through Accelerate, the dual-pass mask as a FlexAttention BlockMask.
    "paper": ExperimentConfig(
        base=PAPER_BASE, train_prompts=10_000, bench_prompts=80, response_tokens=1024, new_tokens=256,
        train=TrainConfig(steps=20_000, batch=8, seq_len=2048, lr=1e-4, checkpoint_every=500, precision="bf16",
                          attention="flex"),
        block_size=16, other_block=8, repeats=2, device="cuda"),
}


def experiment_config(scale: str, seed: int = 0) -> ExperimentConfig:
    cfg = CONFIGS[check_scale(scale)]
    return replace(cfg, train=replace(cfg.train, seed=seed))


def paper_base(cfg: ExperimentConfig) -> str:
    """The paper scale's base directory, or one line saying what this machine lacks (local weights, a GPU)."""
    directory = os.environ.get(PAPER_BASE_ENV, "")
    missing = []
    if not (Path(directory) / "config.json").is_file():
        missing.append(f"a local Qwen3 base (set {PAPER_BASE_ENV} to a directory with config.json and safetensors, "
                       f"e.g. Qwen3-1.7B; now {directory or 'unset'})")
    if cfg.device == "cuda" and not torch.cuda.is_available():
        missing.append("a CUDA GPU (bf16 training with FlexAttention masks; this torch has no FlexAttention "
                       "backward on the CPU)")
    if missing:
        raise ProceedingsError(f"the paper scale (B={cfg.block_size}, bf16 through Accelerate, FlexAttention) cannot "
                               f"start here: it needs {' and '.join(missing)}; on the CPU run --scale tiny or small")
    return directory


def load_workload(cfg: ExperimentConfig, seed: int) -> Workload:
    """tiny: the mixed-grammar base and its greedy continuations; else ShareGPT + the base's own responses."""
    if cfg.base == "tiny":
        base = tiny_base()
        prompts = mixed_prompts(cfg.train_prompts, cfg.prompt_len, base.config.vocab_size, seed + 1)
        with torch.inference_mode():  # equal-length prompts: one batched greedy generate, no padding
            rows = base.generate(input_ids=torch.tensor(prompts), max_new_tokens=cfg.response_tokens, do_sample=False,
                                 min_new_tokens=cfg.response_tokens, pad_token_id=0).tolist()
        train = [(row, len(p)) for row, p in zip(rows, prompts)]
        bench = mixed_prompts(cfg.bench_prompts, cfg.prompt_len, base.config.vocab_size, seed + 2)
        return Workload(base, None, None, train, bench)
    from proceedings.core.models import load_causal_lm
    from proceedings.core.selfdistill import chat_prompt_ids, generate_responses, sharegpt_prompts

    spec = paper_base(cfg) if cfg.base == PAPER_BASE else cfg.base
    base, tokenizer = load_causal_lm(spec, device=cfg.device, dtype="float32")
    training, held_out = sharegpt_prompts(cfg.max_prompt_chars)
    train = generate_responses(base, tokenizer, training[:cfg.train_prompts], cfg.response_tokens, progress="responses")
    bench = [chat_prompt_ids(tokenizer, p) for p in held_out[:cfg.bench_prompts]]
    return Workload(base, tokenizer, tokenizer.eos_token_id,
                    [(e.prompt_ids + e.response_ids, len(e.prompt_ids)) for e in train], bench)


@dataclass
class Rounds:
    """Greedy Orthrus decodes of every benchmark prompt with one view: per prompt accepted drafts per round."""

    accepted: list[list[int]] = field(default_factory=list)

    def tau(self, keep: list[bool] | None = None) -> float:
        kept = [a for i, per in enumerate(self.accepted) if keep is None or keep[i] for a in per]
        return statistics.fmean(a + 1 for a in kept) if kept else 0.0

    def slot_acceptance(self, drafts: int) -> list[float]:
        """Share of rounds accepting at least d drafts, d = 1..drafts (slot d-1 right and all before it)."""
        rounds = [a for per in self.accepted for a in per]
        return [sum(a >= d for a in rounds) / len(rounds) for d in range(1, drafts + 1)] if rounds else [0.0] * drafts


def measure_rounds(base, view: DiffusionView, prompts, new_tokens: int, eos: int | None, block: int) -> Rounds:
    drafter = DiffusionDrafter(base, view, block)
    return Rounds([speculative_decode(base, drafter, p, new_tokens, block - 1, eos_token_id=eos).extras["accepted"]
                   for p in prompts])


def run_dir(scale: str, seed: int, cfg: ExperimentConfig):
    """Where a run's training checkpoint lives (one per scale, seed and configuration)."""
    key = hashlib.sha256(json.dumps(stable_settings(cfg), sort_keys=True, default=str).encode()).hexdigest()[:12]
    return cache_root() / "orthrus" / "runs" / f"{scale}-seed{seed}-{key}"


def train_in_two_halves(work: Workload, view: DiffusionView, cfg: ExperimentConfig, scale: str, seed: int):
    """Train to the halfway step (checkpointed), keep that view, resume to the end: (halfway view, record).
    A resumable run killed anywhere continues from its last checkpoint when started again."""
    directory = run_dir(scale, seed, cfg)
    if not cfg.resumable:
        shutil.rmtree(directory, ignore_errors=True)
    checkpoint, half_path = directory / "train.pt", directory / "halfway.pt"
    first = train_view(work.base, view, work.train, cfg.train, checkpoint=checkpoint, resume=True,
                       stop_at=cfg.train.steps // 2, progress="train (first half)")
    _stop_if_terminated(first, checkpoint)
    if not half_path.exists():
        save_checkpoint(half_path, view.state_dict())
    halfway = copy.deepcopy(view)
    halfway.load_state_dict(load_checkpoint(half_path))
    record = train_view(work.base, view, work.train, cfg.train, checkpoint=checkpoint, resume=True,
                        progress="train (second half)")
    _stop_if_terminated(record, checkpoint)
    return halfway.eval(), record


def _stop_if_terminated(record: TrainRecord, checkpoint) -> None:
    if record.stopped:
        raise ProceedingsError(f"training stopped by SIGTERM at step {record.steps}; the state is saved in "
                               f"'{checkpoint}': run the same command again to resume")


def benchmark(work: Workload, view: DiffusionView, cfg: ExperimentConfig, seed: int) -> BenchmarkReport:
    """AR first (the reference), prompt lookup, Orthrus at B and the smaller B; one run, arms rotated."""
    base, eos = work.base, work.eos
    arms = [greedy_decoder(base, eos),
            decoder("prompt-lookup", lambda p, n, s: prompt_lookup_decode(base, p, n, cfg.block_size - 1, eos))]
    for block in (cfg.block_size, cfg.other_block):
        drafter = DiffusionDrafter(base, view, block)
        arms.append(decoder(drafter.name, lambda p, n, s, d=drafter, b=block:
                            _with_cache_bytes(speculative_decode(base, d, p, n, b - 1, eos_token_id=eos), d)))
    return run_benchmark(arms, work.bench_prompts, cfg.new_tokens, seed=seed, repeats=cfg.repeats, progress=True)


def _with_cache_bytes(trace, drafter: DiffusionDrafter):
    trace.extras["extra_cache_bytes"] = drafter.extra_cache_bytes
    return trace


def arm_numbers(bench: BenchmarkReport, name: str) -> dict:
    """tokens/s (median/min wall, CPU), speed-up over AR, exactness; for Orthrus arms tau, the diffusion and
    verify ms per round (wall and CPU), and the cost model tau * T(1) / (T_diff(B) + T_AR(B)) beside the CPU
    speed-up it predicts. Both sides are process CPU time and means over the same run: T(1) is the AR arm's CPU
    seconds per token, T_diff + T_AR the Orthrus arm's CPU seconds per round. (Until round 14 the prediction took
    the AR arm's *median* wall step against *mean* wall rounds and a wall speed-up: on a loaded host the step
    times are right-skewed, so the prediction fell below the measurement on every arm of seeds 0-2.)"""
    arm = bench.arms[name]
    row = {"tokens_per_s": arm.tokens_per_s, "tokens_per_s_min_wall": arm.tokens / arm.wall_min_s,
           "tokens_per_cpu_s": arm.tokens / arm.cpu_s, "speedup": bench.speedup(name),
           "speedup_cpu": bench.speedup(name, "cpu"), "exact_prompts": arm.exact_prompts, "prompts": arm.prompts}
    traces = [t.extras for t in arm.traces if t.extras]
    if traces:
        rounds = sum(t["rounds"] for t in traces)
        tau = statistics.fmean(a + 1 for t in traces for a in t["accepted"])
        per_round = {key: 1e3 * sum(t[key] for t in traces) / rounds
                     for key in ("draft_s", "verify_s", "draft_cpu_s", "verify_cpu_s")}
        ar = bench.arms["ar"]
        t1_cpu_ms = 1e3 * ar.cpu_s / ar.tokens
        row.update({"tau": tau, "rounds": rounds, "diffusion_ms": per_round["draft_s"],
                    "verify_ms": per_round["verify_s"], "diffusion_cpu_ms": per_round["draft_cpu_s"],
                    "verify_cpu_ms": per_round["verify_cpu_s"], "ar_cpu_ms_per_token": t1_cpu_ms,
                    "predicted_speedup": tau * t1_cpu_ms / (per_round["draft_cpu_s"] + per_round["verify_cpu_s"])})
    return row


def reproduce(scale: str, seed: int = 0) -> Result:
    """Data -> untrained view -> training (halfway kept) -> one benchmark -> audit, costs, memory -> verdict."""
    cfg = experiment_config(scale, seed)
    seed_everything(seed)
    work = load_workload(cfg, seed)
    base, eos, b, b_small = work.base, work.eos, cfg.block_size, cfg.other_block
    view = DiffusionView(base, b)
    untrained = copy.deepcopy(view).eval()
    halfway, record = train_in_two_halves(work, view, cfg, scale, seed)

    bench = benchmark(work, view, cfg, seed)
    arms = {name: arm_numbers(bench, name) for name in bench.arms}
    references = [t.tokens for t in bench.arms["ar"].traces]
    looping = [loops(tokens) for tokens in references]
    keep = [not x for x in looping]
    rounds = {"untrained": measure_rounds(base, untrained, work.bench_prompts, cfg.new_tokens, eos, b),
              "halfway": measure_rounds(base, halfway, work.bench_prompts, cfg.new_tokens, eos, b),
              "final": Rounds([t.extras["accepted"] for t in bench.arms[f"orthrus-b{b}"].traces])}
    audits = {f"b{block}": compare(base, work.bench_prompts, references,
                                   [t.tokens for t in bench.arms[f"orthrus-b{block}"].traces]).summary()
              for block in (b, b_small)}
    from proceedings.orthrus.model import OrthrusModel

    bf16 = audit(OrthrusModel(base, work.tokenizer, view), work.bench_prompts[:cfg.audit_bf16_prompts],
                 cfg.new_tokens, "bf16").summary()
    costs = cost_table(base, view, blocks=sorted({2, b_small, b, 16}), repeats=cfg.cost_repeats)
    memory = extra_cache_bytes(base, view, b, CONTEXTS)

    final, other = arms[f"orthrus-b{b}"], arms[f"orthrus-b{b_small}"]
    metrics = {
        "block_size": b, "other_block": b_small,
        "tau": rounds["final"].tau(keep), "tau_halfway": rounds["halfway"].tau(keep),
        "tau_all_prompts": rounds["final"].tau(), "tau_other_block": other["tau"],
        "slot0_acceptance": rounds["final"].slot_acceptance(b - 1)[0],
        "acceptance_by_slot": rounds["final"].slot_acceptance(b - 1),
        "nonlooping_prompts": sum(keep), "looping_prompts_left_out": sum(looping), "prompts": len(work.bench_prompts),
        "exact_prompts": final["exact_prompts"], "exact_prompts_other_block": other["exact_prompts"],
        "audit_fp32_divergences": sum(len(a["divergences"]) for a in audits.values()),
        "audit_fp32_prompts": sum(a["prompts"] for a in audits.values()),
        "audit_bf16_match_rate": bf16["match_rate"],
        **{f"extra_cache_bytes_ctx{c}": memory[c]["extra_bytes"] for c in CONTEXTS},
        "expected_extra_cache_bytes": expected_extra_bytes(base, b),
        "cost_model_max_rel_error": max(abs(a["speedup_cpu"] / a["predicted_speedup"] - 1) for a in (final, other)),
        "tokens_per_s": final["tokens_per_s"], "speedup": final["speedup"], "speedup_cpu": final["speedup_cpu"],
        "diffusion_ms": final["diffusion_ms"], "verify_ms": final["verify_ms"],
        **parameter_counts(base, view),
        "train_steps": record.steps, "train_cpu_s": record.cpu_s, "train_wall_s": record.wall_s,
        "train_tokens_per_s": record.tokens / max(record.wall_s, 1e-9),
        "train_s_per_step": record.wall_s / max(record.steps, 1), "train_final_loss": record.losses[-1],
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "arms": arms, "costs": costs, "memory": {str(c): v for c, v in memory.items()}, "audit_fp32": audits,
        "audit_bf16": bf16, "loss_curve": record.losses,
        "parameters_added": {"orthrus": parameter_counts(base, view)["new_parameters"], "prompt-lookup": 0},
        "training_cpu_s": {"orthrus": record.cpu_s, "prompt-lookup": 0.0},
    }
    baseline = {"name": "the untrained view (copied projections, mean-embedding mask), same prompts and B",
                "tau": rounds["untrained"].tau(keep), "tau_all_prompts": rounds["untrained"].tau(),
                "slot0_acceptance": rounds["untrained"].slot_acceptance(b - 1)[0],
                "acceptance_by_slot": rounds["untrained"].slot_acceptance(b - 1),
                "ar_tokens_per_s": arms["ar"]["tokens_per_s"],
                "prompt_lookup_speedup": arms["prompt-lookup"]["speedup"],
                "prompt_lookup_exact_prompts": arms["prompt-lookup"]["exact_prompts"]}
    out = artifact_dir("orthrus", scale)
    artifacts = [plot_rounds(rounds, costs, b, out / "tau.png"), *bench.write(out)]
    return Result(
        system="orthrus", scale=scale, claim=CLAIM, metrics=metrics, baseline=baseline,
        checks=verdict(metrics, baseline), paper=PAPER,
        paper_source="abstract: up to 7.8x speed-up, O(1) cache overhead; spec §1: ~16 % of parameters added",
        predicted={"cost_model_speedup": {f"b{k}": arms[f"orthrus-b{k}"]["predicted_speedup"] for k in (b, b_small)},
                   "break_even_tau": {str(k): row["break_even_tau"] for k, row in costs["blocks"].items()},
                   "ceiling": {str(k): row["ceiling"] for k, row in costs["blocks"].items()}},
        config={**asdict(cfg), "matched": "all arms decode the same held-out prompts with the same frozen base in one "
                                          "run, arms rotated, fp32, one thread; B=4 uses the B=8 weights",
                "peagle_k7": "absent: no P-EAGLE drafter from a small run is saved, and no package-level "
                             "`proceedings bench decoding` exists yet; the verdict never uses it"},
        seed=seed, notes=notes(arms, metrics, baseline, record, bench, cfg),
        artifacts=[str(p.relative_to(results_root())) for p in artifacts], device="cpu",
    )


MEASUREMENTS = ("arms", "costs", "memory", "audit_fp32", "audit_bf16", "loss_curve", "parameters_added",
                "training_cpu_s")  # measured per run: in `metrics`, never in `config` (what defines the run)


def migrate_record(record: dict) -> dict:
    """A record written before round 3 in today's layout, no number changed: the measurements it kept in `config`
    moved into `metrics`, and the fields added after round 1 that an older config lacks filled with the values its
    run used (`ADDED_DEFAULTS`), so two seeds of one preset have equal configs and `proceedings combine` joins them."""
    migrated = copy.deepcopy(record)
    config, metrics = migrated["config"], migrated["metrics"]
    for key in MEASUREMENTS:
        if key in config:
            if key in metrics:
                raise ProceedingsError(f"record holds '{key}' in both config and metrics; it was edited by hand")
            metrics[key] = config.pop(key)
    config.setdefault("device", ADDED_DEFAULTS["device"])
    for key in ("precision", "attention", "schedule"):
        config["train"].setdefault(key, ADDED_DEFAULTS[key])
    return migrated


def verdict(metrics: dict, baseline: dict, intervals: dict | None = None) -> dict[str, bool]:
    """Gates (training raised tau; slot 0 is mostly accepted), then issue 20's conditions (1)-(5) at the trained B.
    With seeds (`intervals`), every margin must hold between the far ends of the 95 % seed intervals."""
    tau = interval_end(intervals, "metrics.tau", metrics["tau"], "low")
    untrained = interval_end(intervals, "baseline.tau", baseline["tau"], "high")
    halfway_low = interval_end(intervals, "metrics.tau_halfway", metrics["tau_halfway"], "low")
    halfway_high = interval_end(intervals, "metrics.tau_halfway", metrics["tau_halfway"], "high")
    slot0 = interval_end(intervals, "metrics.slot0_acceptance", metrics["slot0_acceptance"], "low")
    cost_error = interval_end(intervals, "metrics.cost_model_max_rel_error", metrics["cost_model_max_rel_error"], "high")
    contexts = [metrics[f"extra_cache_bytes_ctx{c}"] for c in CONTEXTS]
    return {
        f"gate: trained tau(B) >= untrained tau(B) + {GATE_TAU_GAIN}": tau >= untrained + GATE_TAU_GAIN,
        f"gate: slot-0 acceptance at B >= {GATE_SLOT0}": slot0 >= GATE_SLOT0,
        "(1) Orthrus at B and at the smaller B emits the greedy AR tokens on every prompt and the fp32 audit finds "
        "no divergence":
            metrics["exact_prompts"] == metrics["prompts"] and metrics["exact_prompts_other_block"] == metrics["prompts"]
            and metrics["audit_fp32_divergences"] == 0 and metrics["audit_fp32_prompts"] > 0,
        f"(2) tau(B) >= {TAU_MIN} over the prompts whose AR output does not loop (at least one)":
            tau >= TAU_MIN and metrics["nonlooping_prompts"] >= 1,
        "(3) tau(untrained) < tau(halfway) < tau(final) on the same prompts":
            untrained < halfway_low and halfway_high < tau,
        "(4) extra cache bytes equal at contexts 128, 512, 1024 and equal to B*L*2*kv_heads*head_dim*bytes":
            len(set(contexts)) == 1 and contexts[0] == metrics["expected_extra_cache_bytes"],
        f"(5) Orthrus speed-ups over AR within {COST_MODEL_TOLERANCE:.0%} of tau*T(1)/(T_diff(B)+T_AR(B)), the "
        "per-round times and the AR step timed in the same run":
            cost_error <= COST_MODEL_TOLERANCE,
    }


def plot_rounds(rounds: dict[str, Rounds], costs: dict, block: int, path):
    """Acceptance by slot before, halfway and after training, and T(k)/T(1) with the break-even tau per B."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (accept, cost) = plt.subplots(1, 2, figsize=(11, 4))
    for name, r in rounds.items():
        share = r.slot_acceptance(block - 1)
        accept.plot(range(1, block), share, marker="o", label=f"{name} (tau {r.tau():.2f})")
    accept.set_xlabel("draft slot d")
    accept.set_ylabel("rounds accepting >= d drafts")
    accept.set_title(f"acceptance by slot, B={block}")
    accept.legend(fontsize=8)
    ks = sorted(int(k) for k in costs["ratios"])
    cost.plot(ks, [costs["ratios"][k] for k in ks], marker=".", label="T(k)/T(1), AR forward")
    for b, row in costs["blocks"].items():
        cost.scatter([b], [row["break_even_tau"]], label=f"break-even tau B={b}: {row['break_even_tau']:.2f}")
    cost.set_xlabel("k tokens per forward")
    cost.set_title("cost model on this machine")
    cost.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def notes(arms: dict, metrics: dict, baseline: dict, record: TrainRecord, bench: BenchmarkReport,
          cfg: ExperimentConfig) -> str:
    rows = "; ".join(f"{n}: {a['tokens_per_s']:.1f} tok/s ({a['speedup']:.2f}x AR median wall, {a['speedup_cpu']:.2f}x CPU"
                     + (f", tau {a['tau']:.2f}, diffusion {a['diffusion_ms']:.1f} ms + verify {a['verify_ms']:.1f} ms "
                        f"per round, cost model {a['predicted_speedup']:.2f}x" if "tau" in a else "")
                     + f", exact {a['exact_prompts']}/{a['prompts']})" for n, a in arms.items())
    load = ", ".join(f"{x:.2f}" for x in bench.load_average)
    return (f"{rows}. tau at B={cfg.block_size} on {metrics['nonlooping_prompts']} non-looping prompts "
            f"({metrics['looping_prompts_left_out']} left out): untrained {baseline['tau']:.2f}, halfway "
            f"{metrics['tau_halfway']:.2f}, final {metrics['tau']:.2f}; over all prompts final "
            f"{metrics['tau_all_prompts']:.2f}. Training: {record.steps} steps, {record.cpu_s:.0f} CPU-s, "
            f"{record.wall_s:.0f} s wall, final loss {record.losses[-1]:.3f}. bf16 audit match rate "
            f"{metrics['audit_bf16_match_rate']:.2f}. Benchmark load average {load}, {bench.threads} thread(s), "
            f"{bench.repeats} repeat(s).")
