"""`proceedings orthrus ...`: info, costs, train, generate, bench, audit, merge-export (issue 20).

torch and the model code are imported inside the commands, so mounting this app costs nothing. The full
comparison (data, training with a halfway checkpoint, benchmark, audit, costs, memory) runs as
`proceedings reproduce orthrus --scale tiny|small`.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="Orthrus: a frozen LLM with a diffusion view on its own KV cache, lossless by consensus.",
                  no_args_is_help=True)
console = Console()

BASE = typer.Option("smollm2-135m", help="Base model: alias, local directory, .gguf file or HF id (Llama, Qwen2, "
                                         "Qwen3), or a `merge-export` folder (base and view).")
VIEW = typer.Option(None, help="Directory of a saved diffusion view (from `orthrus train`); none: an untrained view.")


@app.callback()
def main() -> None:
    """Orthrus's own verbs; `proceedings reproduce orthrus --scale tiny|small` runs the comparison.
    torch runs on $PROCEEDINGS_THREADS threads (default 1)."""
    from proceedings.core.runtime import set_threads

    set_threads()


def _model(base: str, view: Path | None, block_size: int, device: str = "cpu"):
    """The base with a fresh view, or the view saved in --view, or both from a `merge-export` folder."""
    from proceedings.orthrus.model import VIEW_FILE, OrthrusModel

    if view is None and (Path(base) / VIEW_FILE).is_file():
        return OrthrusModel.from_pretrained(base, device=device)
    model = OrthrusModel.from_base(base, block_size=block_size, device=device)
    return model.load_view(view) if view is not None else model


def read_prompts(path: Path) -> list[str]:
    """One prompt per line, or JSON lines with a "prompt" field."""
    if not path.exists():
        raise ProceedingsError(f"prompt file '{path}' does not exist")
    prompts = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                prompts.append(str(json.loads(line)["prompt"]))
            except (json.JSONDecodeError, KeyError) as err:
                raise ProceedingsError(f"{path}: line {number} is not JSON with a \"prompt\" field") from err
        else:
            prompts.append(line.strip())
    if not prompts:
        raise ProceedingsError(f"prompt file '{path}' holds no prompt")
    return prompts


@app.command()
def info(base: str = BASE, block_size: int = typer.Option(8, help="Block size B.")) -> None:
    """Parameters the diffusion view adds (q', k', v', o' per layer + the mask embedding) and the base's share."""
    from proceedings.orthrus.model import OrthrusModel

    facts = OrthrusModel.from_base(base, block_size=block_size).info()
    console.print(f"{facts['family']} base, {facts['layers']} layers, hidden {facts['hidden']}, {facts['kv_heads']} KV heads, "
                  f"hash {facts['base_hash']}")
    console.print(f"new weights: {facts['new_parameters']:,} ({facts['new_share']:.1%} of the combined model; base "
                  f"{facts['base_parameters']:,}); trainable base weights: {facts['trainable_base_parameters']:,}")


@app.command()
def costs(
    base: str = BASE, blocks: str = typer.Option("2,4,8,16", help="Block sizes B, comma-separated."),
    context: int = typer.Option(64, help="Cached tokens before the timed forwards."),
    repeats: int = typer.Option(10, help="Timed repeats per size (median kept)."),
) -> None:
    """On this machine: T(k)/T(1) of the AR view, T_diff(B), and per B the break-even tau and the ceiling
    (every draft accepted) of the speed-up tau * T(1) / (T_diff(B) + T_AR(B)); no training needed."""
    import os

    from proceedings.orthrus.costs import cost_table
    from proceedings.orthrus.model import OrthrusModel

    sizes = sorted({int(b) for b in blocks.split(",") if b.strip()})
    if not sizes or sizes[0] < 1 or sizes[-1] > 16:
        raise ProceedingsError(f"block sizes must lie in 1..16 for the cost table, got {blocks}")
    model = OrthrusModel.from_base(base, block_size=max(2, sizes[-1]))
    table = cost_table(model.base, model.view, sizes, context, repeats)
    ratios = ", ".join(f"{k}: {r:.2f}" for k, r in table["ratios"].items())
    console.print(f"T(1) = {table['t1_ms']:.1f} ms; T(k)/T(1): {ratios}")
    for b, row in table["blocks"].items():
        console.print(f"B={b}: T_diff {row['t_diff_ms']:.1f} ms + T_AR {row['t_ar_ms']:.1f} ms per round; break-even "
                      f"tau {row['break_even_tau']:.2f}; ceiling {row['ceiling']:.2f}x")
    console.print(f"[dim]load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}[/dim]")


@app.command()
def train(
    base: str = BASE,
    out: Path = typer.Option(..., help="Directory for the saved view and the training checkpoint."),
    block_size: int = typer.Option(8, help="Block size B."),
    steps: int = typer.Option(120, help="Optimiser steps."),
    batch: int = typer.Option(2, help="Sequences per step."),
    seq_len: int = typer.Option(384, help="Longest training sequence (prompt + response)."),
    lr: float = typer.Option(2e-4, help="AdamW learning rate."),
    kl_weight: float = typer.Option(1.0, help="Weight of the KL to the AR view's distribution (0: cross-entropy alone)."),
    gamma: float = typer.Option(0.8, help="Slot weight gamma^i (1: every slot alike)."),
    schedule: str = typer.Option("cosine", help="Learning rate after the warm-up: cosine (decay to 0) or constant."),
    seed: int = typer.Option(0, help="Seed of the random anchor offsets."),
    prompts: int = typer.Option(160, help="ShareGPT training prompts (responses self-distilled and cached)."),
    response_tokens: int = typer.Option(128, help="Greedy response tokens per prompt."),
    data: Path = typer.Option(None, help="A self-distillation responses file (JSON lines, e.g. from `peagle gen-data`) "
                                         "made with this base; none: self-distil (cached)."),
    precision: str = typer.Option("fp32", help="fp32, or bf16 (Accelerate mixed precision: bf16 compute, fp32 "
                                                "weights)."),
    attention: str = typer.Option("sdpa", help="sdpa (dense dual-pass mask), or flex (FlexAttention BlockMask; GPU)."),
    device: str = typer.Option("cpu", help="cpu, cuda or cuda:N."),
    first_slot_causal: bool = typer.Option(False, help="Slot 0 attends to the cache and x_n only, not to the masks "
                                                       "after it (a departure from the paper's bidirectional block; "
                                                       "saved with the view, used at inference too)."),
    first_slot_ar: bool = typer.Option(False, help="Slot 0 is causal and also computed with the frozen AR "
                                                   "projections: the AR step itself, untouched by training (a "
                                                   "departure from the paper; saved with the view)."),
    resume: bool = typer.Option(False, help="Continue from the checkpoint in --out."),
) -> None:
    """Self-distil the base's responses (cached), train the view (checkpoints every 10 steps and on SIGTERM), save it.
    The paper's setting on a GPU: --block-size 16 --precision bf16 --attention flex."""
    from proceedings.core.selfdistill import base_fingerprint, generate_responses, read_examples, sharegpt_prompts
    from proceedings.core.runtime import choose_device
    from proceedings.orthrus.training import TrainConfig, check_train_config, train_view

    cfg = TrainConfig(steps=steps, batch=batch, seq_len=seq_len, lr=lr, gamma=gamma, kl_weight=kl_weight,
                      schedule=schedule, checkpoint_every=10, seed=seed, precision=precision, attention=attention)
    check_train_config(cfg, choose_device(device))
    if data is not None and not data.is_file():
        raise ProceedingsError(f"data file '{data}' does not exist")
    model = _model(base, None, block_size, device)
    model.view.first_slot_causal, model.view.first_slot_ar = first_slot_causal or first_slot_ar, first_slot_ar
    if data is not None:  # refused line by line when another base made it
        examples = read_examples(data, base=base_fingerprint(model.base))
    else:
        training, _ = sharegpt_prompts(600)
        examples = generate_responses(model.base, model.tokenizer, training[:prompts], response_tokens,
                                      progress="responses")
    record = train_view(model.base, model.view, [(e.prompt_ids + e.response_ids, len(e.prompt_ids)) for e in examples],
                        cfg, checkpoint=out / "train.pt", resume=resume, progress="train")
    path = model.save_view(out)
    state = "stopped by SIGTERM (resume with --resume)" if record.stopped else "done"
    console.print(f"{state}: {record.steps} steps, loss {record.losses[-1]:.3f}, {record.cpu_s:.0f} CPU-s; view saved to {path}")


@app.command()
def generate(
    prompt: str = typer.Argument(..., help="The user's message (the chat template is applied)."),
    base: str = BASE, view: Path = VIEW,
    block_size: int = typer.Option(8, help="Block size B (a saved view sets its own)."),
    max_new_tokens: int = typer.Option(64), mode: str = typer.Option("orthrus", help="orthrus or ar."),
    temperature: float = typer.Option(0.0), top_k: int = typer.Option(None), top_p: float = typer.Option(None),
    seed: int = typer.Option(0),
) -> None:
    """Generate with Orthrus rounds (or plain AR); prints the text and the round statistics."""
    model = _model(base, view, block_size)
    out = model.generate(prompt, max_new_tokens, mode, temperature, top_k, top_p, seed)
    console.print(out.text)
    if out.stats:
        console.print(f"[dim]{out.stats['rounds']} rounds, tau {out.stats['tau']:.2f}, diffusion "
                      f"{out.stats['draft_s']:.2f} s, verify {out.stats['verify_s']:.2f} s, extra cache "
                      f"{out.stats['extra_cache_bytes']:,} bytes[/dim]")


@app.command()
def bench(
    prompts: Path = typer.Option(..., help="Prompt file: one per line, or JSON lines with \"prompt\"."),
    base: str = BASE, view: Path = VIEW,
    blocks: str = typer.Option("8,4", help="Orthrus block sizes, comma-separated."),
    new_tokens: int = typer.Option(64), repeats: int = typer.Option(1),
) -> None:
    """AR, prompt lookup and Orthrus at each B in one run, arms rotated: tokens/s, speed-up, exactness, tau."""
    from proceedings.core.bench import decoder, run_benchmark
    from proceedings.core.speculative import greedy_decoder, speculative_decoder, tau_cell
    from proceedings.orthrus.baselines import prompt_lookup_decode
    from proceedings.orthrus.consensus import DiffusionDrafter

    sizes = [int(b) for b in blocks.split(",") if b.strip()]
    texts = read_prompts(prompts)
    model = _model(base, view, max(sizes))
    ids = [model.prompt_ids(p) for p in texts]
    eos = model.tokenizer.eos_token_id
    arms = [greedy_decoder(model.base, eos),
            decoder("prompt-lookup", lambda p, n, s: prompt_lookup_decode(model.base, p, n, max(sizes) - 1, eos))]
    for b in sizes:
        drafter = DiffusionDrafter(model.base, model.view, b)
        arms.append(speculative_decoder(drafter.name, model.base, drafter, b - 1, eos))
    report = run_benchmark(arms, ids, new_tokens, repeats=repeats, progress=True)
    console.print(report.markdown({"tau": tau_cell}))


@app.command(name="audit")
def audit_command(
    prompts: Path = typer.Option(..., help="Prompt file: one per line, or JSON lines with \"prompt\"."),
    base: str = BASE, view: Path = VIEW,
    block_size: int = typer.Option(8), new_tokens: int = typer.Option(64),
    precision: str = typer.Option("fp32", help="fp32 or bf16 (both views converted)."),
) -> None:
    """Match rate of Orthrus against greedy AR; per divergence its position, the two tokens and the AR top-2 margin."""
    from proceedings.orthrus.audit import DTYPES, audit

    if precision not in DTYPES:
        raise ProceedingsError(f"unknown precision '{precision}'; choose one of: {', '.join(DTYPES)}")
    texts = read_prompts(prompts)
    model = _model(base, view, block_size)
    report = audit(model, [model.prompt_ids(p) for p in texts], new_tokens, precision, block_size)
    verdict = "exact" if report.exact else "NOT exact"
    console.print(f"{precision}: {report.matched}/{report.prompts} prompts match greedy AR ({report.match_rate:.0%}, {verdict})")
    for d in report.divergences:
        console.print(f"  prompt {d.prompt}: first divergence at new token {d.position}: AR {d.ar_token} vs Orthrus "
                      f"{d.orthrus_token}, AR top-2 logit margin {d.margin:.2e}")


@app.command("merge-export")
def merge_export(
    out: Path = typer.Option(..., help="New folder for the checkpoint (must not exist or be empty)."),
    base: str = BASE, view: Path = typer.Option(..., help="Directory of the trained view (from `orthrus train`)."),
) -> None:
    """A standalone Hugging Face checkpoint folder: the base (config, safetensors, tokenizer) with the view beside
    it; any HF loader reads the AR model from it, `OrthrusModel.from_pretrained` (or --base) reads both."""
    from proceedings.orthrus.model import check_export_target

    target = check_export_target(out)  # before the model loads
    path = _model(base, view, 8).merge_export(target)
    console.print(f"wrote {', '.join(sorted(p.name for p in path.iterdir()))} to {path}")
