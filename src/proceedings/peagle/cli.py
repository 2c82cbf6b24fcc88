"""`proceedings peagle ...`: the user's pipeline, one verb per stage, each resumable, plus the cost model.

    costmodel   break-even acceptance length on this machine, before any training
    gen-data    the target's greedy responses to ShareGPT first turns (cached JSONL, resumable)
    extract     their features (safetensors shards, resumable)
    train       an EAGLE-3 or P-EAGLE drafter on the shards (checkpointed; SIGTERM saves and stops)
    generate    lossless speculative decoding of one prompt with a trained drafter
    bench       plain greedy, prompt lookup and drafters side by side on held-out prompts
    export      a trained drafter in vLLM's EAGLE-3 layout

torch and the model code are imported inside the commands, so mounting this app costs nothing.
The whole comparison (data, features, both drafters, benchmark, verdict) runs as `proceedings reproduce peagle`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="P-EAGLE: parallel drafting for lossless speculative decoding.", no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """P-EAGLE's own verbs; `proceedings reproduce peagle --scale tiny|small` runs the comparison."""


@app.command()
def costmodel(
    target: str = typer.Option("smollm2-135m", help="Target model: alias, local directory, .gguf file or HF id."),
    k: int = typer.Option(7, help="Drafts per round K (verification runs K + 1 positions)."),
    draft_vocab: int = typer.Option(8192, help="Draft vocabulary V_d (the LM head rows the drafter computes)."),
    layers: int = typer.Option(1, help="Drafter decoder layers."),
    context: int = typer.Option(64, help="Cached tokens before the timed forwards."),
    repeats: int = typer.Option(5, help="Timed repeats per size (median kept)."),
) -> None:
    """Measure T(k)/T(1) of the target and one drafting round of each drafter on this machine, and print
    the acceptance length tau each needs to break even with plain decoding: (T_draft + T(K+1)) / T(1)."""
    import statistics
    import time

    import torch

    from proceedings.core.bench import measure_forward_costs
    from proceedings.core.models import load_causal_lm
    from proceedings.core.speculative import Verified
    from proceedings.peagle.drafter import init_drafter
    from proceedings.peagle.proposer import DrafterProposer
    from proceedings.peagle.target import default_feature_layers

    if k < 1:
        raise ProceedingsError(f"K must be at least 1, got {k}")
    model, _ = load_causal_lm(target, device="cpu", dtype="float32")
    if draft_vocab > model.config.vocab_size:
        raise ProceedingsError(f"draft vocabulary {draft_vocab} is larger than the target's {model.config.vocab_size}")
    costs = measure_forward_costs(model, ks=tuple(range(1, k + 2)), context=context, repeats=repeats)
    t1, verify = costs.seconds[1], costs.seconds[k + 1]
    console.print(f"T(1) = {1e3 * t1:.1f} ms; T(K+1)/T(1) = {costs.ratio(k + 1):.2f} at K = {k}")
    features = default_feature_layers(model.config.num_hidden_layers)
    with torch.inference_mode():
        hidden = model(input_ids=torch.arange(context)[None], output_hidden_states=True).hidden_states
    for method in ("eagle3", "peagle"):
        drafter = init_drafter(model, method, layers, max(k, 1), torch.arange(draft_vocab), features)
        proposer = DrafterProposer(drafter, model)
        times = []
        for _ in range(repeats + 1):
            proposer.reset()
            proposer.propose(Verified(tuple(h[:, :context - 1] for h in hidden), list(range(1, context)), 0), k)
            start = time.perf_counter()
            proposer.propose(Verified(tuple(h[:, context - 1:] for h in hidden), [0], context - 1), k)
            times.append(time.perf_counter() - start)
        draft = statistics.median(times[1:])
        console.print(f"{method}: draft {1e3 * draft:.1f} ms per round (c = {draft / t1:.2f} T(1)); break-even "
                      f"tau = {(draft + verify) / t1:.2f}")


TARGET = typer.Option("smollm2-135m", help="Target model: alias, local directory, .gguf file or HF id.")
PROMPTS = typer.Option(256, help="ShareGPT first turns (training split: not among the 80 held out).")
MAX_NEW = typer.Option(128, help="Greedy response tokens per prompt.")
MAX_CHARS = typer.Option(600, help="Skip ShareGPT first turns longer than this many characters.")


def _load_target(target: str):
    from proceedings.core.models import load_causal_lm

    return load_causal_lm(target, device="cpu", dtype="float32")


def _responses(model, tokenizer, prompts: int, max_new_tokens: int, max_prompt_chars: int):
    from proceedings.core.selfdistill import generate_responses, sharegpt_prompts

    training, _ = sharegpt_prompts(max_prompt_chars)
    if not 1 <= prompts <= len(training):
        raise ProceedingsError(f"--prompts must be between 1 and {len(training)} (the training split), got {prompts}")
    return generate_responses(model, tokenizer, training[:prompts], max_new_tokens, progress="responses")


@app.command("gen-data")
def gen_data(target: str = TARGET, prompts: int = PROMPTS, max_new_tokens: int = MAX_NEW,
             max_prompt_chars: int = MAX_CHARS) -> None:
    """The target's greedy chat responses to ShareGPT first turns, cached under $PROCEEDINGS_CACHE/selfdistill
    (an interrupted run keeps what it wrote and resumes)."""
    model, tokenizer = _load_target(target)
    examples = _responses(model, tokenizer, prompts, max_new_tokens, max_prompt_chars)
    tokens = sum(len(e.response_ids) for e in examples)
    console.print(f"{len(examples)} responses, {tokens} response tokens (prompts over 256 tokens skipped)")


@app.command()
def extract(out: Path = typer.Option(..., help="Directory for the feature shards."), target: str = TARGET,
            prompts: int = PROMPTS, max_new_tokens: int = MAX_NEW, max_prompt_chars: int = MAX_CHARS,
            shard_size: int = typer.Option(32, help="Sequences per shard.")) -> None:
    """Features of the target's responses (layers 2, L//2, L-3 + the final normed hidden state, float16) as
    safetensors shards; shards already written are kept, so an interrupted run resumes."""
    from proceedings.peagle.target import default_feature_layers, extract_feature_shards

    if shard_size < 1:
        raise ProceedingsError(f"--shard-size must be at least 1, got {shard_size}")
    model, tokenizer = _load_target(target)
    examples = _responses(model, tokenizer, prompts, max_new_tokens, max_prompt_chars)
    layers = default_feature_layers(model.config.num_hidden_layers)
    paths = extract_feature_shards(model, [(e.prompt_ids + e.response_ids, len(e.prompt_ids)) for e in examples],
                                   layers, out, shard_size, progress="features")
    console.print(f"{len(examples)} sequences in {len(paths)} shards under {out} (layers {layers})")


@app.command()
def train(features: Path = typer.Option(..., help="Directory written by `extract`."),
          out: Path = typer.Option(..., help="The trained drafter (.safetensors)."),
          method: str = typer.Option("peagle", help="peagle (parallel drafting) or eagle3 (one forward per draft)."),
          target: str = TARGET, layers: int = typer.Option(1, help="Drafter decoder layers (the paper: 4)."),
          k_train: int = typer.Option(8, help="P-EAGLE parallel positions / EAGLE-3 training-time-test steps."),
          draft_vocab: int = typer.Option(8192, help="Draft vocabulary V_d: the most frequent response tokens."),
          steps: int = typer.Option(200, help="Optimiser steps (with --cpu-seconds: the most steps)."),
          cpu_seconds: Optional[float] = typer.Option(None, help="Train for this many CPU-seconds (to match two "
                                                      "drafters on compute); the schedule runs over them."), lr: float = typer.Option(1e-3, help="Peak learning rate."),
          sequences_per_step: int = typer.Option(2, help="Sequences per optimiser step."),
          partitions: int = typer.Option(2, help="P-EAGLE: segments per sequence (gradient accumulated inside it)."),
          checkpoint_every: int = typer.Option(25, help="Steps between training checkpoints."),
          seed: int = typer.Option(0, help="Initialisation and COD sampling seed.")) -> None:
    """Train a drafter; the training state is checkpointed beside --out (<out>.train.pt) every few steps and on
    SIGTERM/SIGINT, and the same command resumes from it."""
    from proceedings.peagle.checkpoints import save_drafter
    from proceedings.peagle.drafter import init_drafter
    from proceedings.peagle.target import draft_vocabulary, load_feature_shards
    from proceedings.peagle.training import TrainConfig, train_drafter

    model, _ = _load_target(target)
    sequences, feature_layers = load_feature_shards(features, model)
    d2t = draft_vocabulary(sequences, draft_vocab, model.config.vocab_size)
    drafter = init_drafter(model, method, layers, k_train, d2t, feature_layers, seed)
    cfg = TrainConfig(steps=steps, sequences_per_step=sequences_per_step, lr=lr, ttt_steps=k_train,
                      partitions=partitions, seed=seed, cpu_seconds=cpu_seconds)
    state = out.with_name(out.name + ".train.pt")
    record = train_drafter(drafter, sequences, cfg, progress=f"train {method}", checkpoint=state,
                           checkpoint_every=checkpoint_every)
    if record.interrupted:
        console.print(f"stopped after step {record.steps} ({record.cpu_s:.0f} CPU-s); the state is in {state}: run the same "
                      "command again to resume")
        raise typer.Exit(143)
    save_drafter(drafter, out)
    console.print(f"{method} drafter: {record.steps} steps, final loss {record.losses[-1]:.3f}, "
                  f"{record.cpu_s:.0f} CPU-s; saved to {out}")


@app.command()
def generate(drafter: Path = typer.Option(..., help="A drafter file written by `train`."),
             prompt: str = typer.Option(..., help="The user's message (the chat template is applied)."),
             target: str = TARGET, k: int = typer.Option(3, help="Drafts per round."),
             max_new_tokens: int = typer.Option(64, help="New tokens at most."),
             temperature: float = typer.Option(0.0, help="0: greedy (identical to plain greedy decoding); > 0: "
                                                         "sampling with the target's distribution.")) -> None:
    """Lossless speculative decoding of one prompt; prints the answer and the acceptance length tau."""
    from proceedings.core.selfdistill import chat_prompt_ids
    from proceedings.core.speculative import speculative_decode
    from proceedings.peagle.checkpoints import load_drafter
    from proceedings.peagle.proposer import DrafterProposer

    model, tokenizer = _load_target(target)
    proposer = DrafterProposer(load_drafter(drafter, model), model, temperature=temperature)
    trace = speculative_decode(model, proposer, chat_prompt_ids(tokenizer, prompt), max_new_tokens, k,
                               temperature=temperature, eos_token_id=tokenizer.eos_token_id)
    console.print(tokenizer.decode(trace.tokens, skip_special_tokens=True), markup=False, highlight=False)
    console.print(f"[dim]{len(trace.tokens)} tokens in {trace.extras['rounds']} target calls (tau "
                  f"{trace.extras['tau']:.2f}), {len(trace.tokens) / trace.total_seconds:.1f} tokens/s[/dim]")


@app.command()
def bench(drafter: list[Path] = typer.Option([], help="Drafter files to race (repeat the option); none: AR and "
                                                      "prompt lookup only."),
          target: str = TARGET, k: list[int] = typer.Option([3, 7], help="Drafts per round (repeat the option)."),
          prompts: int = typer.Option(10, help="Held-out ShareGPT prompts."),
          new_tokens: int = typer.Option(64, help="Greedy tokens per prompt."),
          repeats: int = typer.Option(1, help="Timed repeats per prompt and arm."),
          max_prompt_chars: int = MAX_CHARS) -> None:
    """Plain greedy, prompt lookup and each drafter at each K on held-out prompts, arms rotated, every arm's
    tokens compared with plain greedy: tokens/s, speed-up, tau."""
    from proceedings.core.bench import run_benchmark
    from proceedings.core.selfdistill import chat_prompt_ids, sharegpt_prompts
    from proceedings.core.speculative import greedy_decoder, tau_cell
    from proceedings.peagle.checkpoints import load_drafter
    from proceedings.peagle.proposer import drafting_arms

    model, tokenizer = _load_target(target)
    _, held_out = sharegpt_prompts(max_prompt_chars)
    if not 1 <= prompts <= len(held_out):
        raise ProceedingsError(f"--prompts must be between 1 and {len(held_out)} (the held-out split), got {prompts}")
    eos = tokenizer.eos_token_id
    drafters = {}
    for path in drafter:
        loaded = load_drafter(path, model)
        drafters[f"{loaded.cfg.method}:{path.stem}"] = loaded
    arms = [greedy_decoder(model, eos), *drafting_arms(model, drafters, k, eos)]
    report = run_benchmark(arms, [chat_prompt_ids(tokenizer, p) for p in held_out[:prompts]], new_tokens,
                           repeats=repeats, progress=True)
    console.print(report.markdown({"tau": tau_cell}), markup=False, highlight=False)


@app.command()
def export(drafter: Path = typer.Option(..., help="A drafter file written by `train`."),
           out: Path = typer.Option(..., help="Directory for config.json + model.safetensors."),
           target: str = TARGET) -> None:
    """A trained drafter in vLLM's EAGLE-3 layout (speculators names; P-EAGLE's mask inputs beside them)."""
    from proceedings.peagle.checkpoints import export_vllm, load_drafter

    model, _ = _load_target(target)
    paths = export_vllm(load_drafter(drafter, model), out, model.config.max_position_embeddings)
    console.print(f"wrote {', '.join(str(p) for p in paths)}")
