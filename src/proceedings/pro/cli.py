"""`proceedings pro ...`: train, generate, detect, calibrate, attack, eval.

Heavy libraries are imported inside the commands, so `proceedings --help` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="PRO: precise and robust watermarks embedded in open LLM weights.", no_args_is_help=True,
                  add_completion=False)
console = Console()

MODEL_HELP = "A model directory, a Hugging Face id, 'smollm2-135m', or 'tiny' (random 2-layer Llama)."
DEVICE_HELP = "auto (this process's GPU if there is one, else the CPU), cpu, cuda or cuda:N."


def _load(model: str, device: str = "cpu"):
    from proceedings.pro.release import load_model_dir
    from proceedings.pro.tiny_world import tiny_model

    return tiny_model() if model == "tiny" else load_model_dir(model, device=device)


def _device(device: str) -> str:
    """The device this process works on; `auto` is its own GPU under `accelerate launch`."""
    import torch

    from proceedings.core.runtime import choose_device

    if device != "auto" or not torch.cuda.is_available():
        return str(choose_device(device))  # on the CPU the trainer's Accelerator(cpu=True) sets up the processes
    from accelerate import PartialState

    return str(PartialState().device)


def _tokenizer(spec: str):
    from proceedings.core.models import load_tokenizer
    from proceedings.pro.tiny_world import tiny_tokenizer

    return tiny_tokenizer() if spec == "tiny" else load_tokenizer(spec)


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise ProceedingsError(f"input file '{path}' does not exist")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                raise ProceedingsError(f"{path}:{number} is not valid JSON") from None
    return rows


@app.command()
def train(
    out: Path = typer.Option(..., help="Run directory: metrics.jsonl, checkpoints/, model/ (release), key/ (secret)."),
    model: str = typer.Option("smollm2-135m", help=MODEL_HELP),
    method: str = typer.Option("pro", help="pro or kgw-distill."),
    no_fpl: bool = typer.Option(False, "--no-fpl", help="PRO without the perturbation-aware regularizer."),
    freeze_policy: bool = typer.Option(False, "--freeze-policy", help="PRO with a frozen random policy."),
    steps: int = typer.Option(100), batch_size: int = typer.Option(4), seq_len: int = typer.Option(96),
    train_layers: str = typer.Option("4", help="Top decoder layers to train, or 'all'."),
    lr: float = typer.Option(1e-4, help="Learning rate of the model."),
    corpus: str = typer.Option("pydoc", help="'pydoc' (built in), a .txt/.jsonl file or a folder of .txt."),
    gamma: Optional[float] = typer.Option(None, help="Green fraction (default: 0.5 PRO, 0.25 KGW)."),
    delta: float = typer.Option(2.0), context: int = typer.Option(2, help="PRO context width n / KGW k."),
    resume: bool = typer.Option(False, "--resume", help="Continue from the run directory's last checkpoint."),
    seed: int = typer.Option(0),
    device: str = typer.Option("auto", help=DEVICE_HELP + " Several GPUs: `accelerate launch -m proceedings pro "
                                                          "train ...` (data parallel)."),
    mixed_precision: Optional[str] = typer.Option(None, help="no, or bf16 (fp32 weights, bf16 compute); default: "
                                                             "Accelerate's setting."),
) -> None:
    """Embed a watermark in a model's weights (KGW distillation or PRO)."""
    from proceedings.core.runtime import set_threads
    from proceedings.pro.config import KGWConfig, PolicyConfig, TrainConfig
    from proceedings.pro.data import read_documents, token_blocks
    from proceedings.pro.training import WatermarkTrainer

    set_threads()
    layers = None if train_layers == "all" else int(train_layers)
    config = TrainConfig(method=method, steps=steps, batch_size=batch_size, seq_len=seq_len, train_layers=layers,
                         lr_model=lr, fpl=not no_fpl, freeze_policy=freeze_policy, mixed_precision=mixed_precision,
                         seed=seed)
    policy = PolicyConfig(n=context, delta=delta, gamma=gamma or 0.5, seed=seed)
    kgw = KGWConfig(gamma=gamma or 0.25, delta=delta, k=context)
    lm, tokenizer = _load(model, _device(device))
    blocks = token_blocks(read_documents(corpus), tokenizer, seq_len)
    trainer = WatermarkTrainer(lm, tokenizer, config, policy=policy, kgw=kgw)
    trainer.fit(blocks, out, resume=resume)
    console.print(f"released model: {out / 'model'}   secret key: {out / 'key'} (keep it apart from the model)")


@app.command()
def generate(
    model: str = typer.Option(..., help=MODEL_HELP),
    prompts: Path = typer.Option(..., help="JSONL with a 'prompt' field per line."),
    out: Path = typer.Option(..., help="JSONL: prompt, completion."),
    max_new_tokens: int = typer.Option(96), seed: int = typer.Option(0),
    decoding_watermark: Optional[Path] = typer.Option(None, help="A KGW key dir: watermark while decoding "
                                                                  "(the closed-source reference)."),
    device: str = typer.Option("auto", help=DEVICE_HELP),
) -> None:
    """Sample completions (temperature 1, no top-k) for each prompt."""
    import torch

    from proceedings.pro.generation import sample

    lm, tokenizer = _load(model, _device(device))
    processor = None
    if decoding_watermark is not None:
        from proceedings.pro.detector import Detector
        from proceedings.pro.kgw import KGWLogitsProcessor, KGWWatermark

        key = Detector.load(decoding_watermark, tokenizer).key
        if key.kind != "kgw":
            raise ProceedingsError("--decoding-watermark needs a KGW key (train --method kgw-distill writes one)")
        processor = KGWLogitsProcessor(KGWWatermark(key.kgw, key.vocab_size))
    rows = []
    for number, row in enumerate(_read_jsonl(prompts)):
        ids = torch.tensor([tokenizer(row["prompt"], add_special_tokens=False)["input_ids"]])
        completion = sample(lm, ids, max_new_tokens, 1, seed + number, logits_processor=processor)[0]
        rows.append({"prompt": row["prompt"], "completion": tokenizer.decode(completion, skip_special_tokens=True)})
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    console.print(f"{len(rows)} completions written to {out}")


def _detector(key: Path, tokenizer: str, gamma, delta, context):
    from proceedings.pro.detector import Detector

    detector = Detector.load(key, _tokenizer(tokenizer))
    detector.check_params(gamma=gamma, delta=delta, n=context)
    return detector


def _texts(text: Optional[str], input: Optional[Path]) -> list[dict]:
    if (text is None) == (input is None):
        raise ProceedingsError("give exactly one of --text or --input (JSONL with 'text' and optional 'prompt')")
    rows = [{"text": text}] if text is not None else _read_jsonl(input)
    for number, row in enumerate(rows, 1):
        if "text" not in row and "completion" not in row:
            raise ProceedingsError(f"line {number} of the input has no 'text' (or 'completion') field")
    return rows


@app.command()
def detect(
    key: Path = typer.Option(..., help="The key/ directory written by train."),
    tokenizer: str = typer.Option(..., help="Tokenizer of the text: the model dir, HF id, 'smollm2-135m' or 'tiny'."),
    text: Optional[str] = typer.Option(None), input: Optional[Path] = typer.Option(None),
    thresholds: Optional[Path] = typer.Option(None, help="File from `calibrate`: adds a watermarked yes/no."),
    fpr: Optional[float] = typer.Option(None, help="Which calibrated FPR threshold to apply."),
    gamma: Optional[float] = typer.Option(None, help="Assert the key's gamma (error on mismatch)."),
    delta: Optional[float] = typer.Option(None, help="Assert the key's delta (error on mismatch)."),
    context: Optional[int] = typer.Option(None, "--n", help="Assert the key's context width (error on mismatch)."),
) -> None:
    """Score texts: z, p-value, green fraction, mean score, scored tokens (prompt excluded)."""
    from dataclasses import asdict

    detector = _detector(key, tokenizer, gamma, delta, context)
    if thresholds is not None:
        detector.load_thresholds(thresholds, fpr)
    for row in _texts(text, input):
        score = detector.score(row.get("text", row.get("completion")), prompt=row.get("prompt"))
        console.print_json(json.dumps(asdict(score)))


@app.command()
def calibrate(
    key: Path = typer.Option(...), tokenizer: str = typer.Option(...),
    input: Path = typer.Option(..., help="JSONL of un-watermarked texts (the null set)."),
    out: Path = typer.Option(..., help="Thresholds file for `detect --thresholds`."),
) -> None:
    """Empirical z thresholds at 1% and 5% FPR from un-watermarked texts."""
    detector = _detector(key, tokenizer, None, None, None)
    scores = [detector.score(r.get("text", r.get("completion")), prompt=r.get("prompt")) for r in _texts(None, input)]
    found = detector.calibrate(scores)
    detector.save_thresholds(out)
    console.print(f"thresholds {found} from {sum(s.z is not None for s in scores)} texts written to {out}")


@app.command()
def attack(
    kind: str = typer.Argument(..., help="finetune, merge, quantize, prune or noise."),
    source: Path = typer.Argument(..., help="Model directory to attack (never modified)."),
    other: Optional[Path] = typer.Argument(None, help="Second model (merge only)."),
    out: Path = typer.Option(..., help="New model directory."),
    alpha: float = typer.Option(0.5, help="merge: weight of OTHER."), bits: int = typer.Option(8, help="quantize"),
    fraction: float = typer.Option(0.5, help="prune"), std: float = typer.Option(0.01, help="noise"),
    steps: int = typer.Option(50, help="finetune"), lr: float = typer.Option(1e-5, help="finetune"),
    corpus: str = typer.Option("pydoc", help="finetune: clean text"),
) -> None:
    """Modify released weights the way a user might; writes a new directory with a manifest."""
    from proceedings.pro.attacks import attack_dir

    params = {"merge": {"alpha": alpha}, "quantize": {"bits": bits}, "prune": {"fraction": fraction},
              "noise": {"relative_std": std}, "finetune": {"steps": steps, "lr": lr}}.get(kind, {})
    attack_dir(kind, source, out, other=other, corpus=corpus, **params)
    console.print(f"{kind}: {source} -> {out}")


@app.command("eval")
def evaluate(
    preset: Optional[str] = typer.Option(None, help="tiny|small|paper: run the headline reproduction."),
    model: Optional[str] = typer.Option(None, help="A watermarked model dir (with --key and --original)."),
    key: Optional[Path] = typer.Option(None), original: Optional[str] = typer.Option(None, help=MODEL_HELP),
    prompts: int = typer.Option(32), new_tokens: int = typer.Option(96), seed: int = typer.Option(0),
    device: str = typer.Option("auto", help=DEVICE_HELP + " (with --model; a preset picks its own)"),
) -> None:
    """The table: AUC, TPR@5%/1%, PPL, and AUC after merge 0.5 / int8 / fine-tuning."""
    if preset is not None:
        from proceedings.registry import get_system

        result = get_system("pro").reproduce(preset, seeds=(seed,))
        rows = {"pro": result.metrics, "kgw-distill": result.baseline, **result.metrics["ablations"]}
    elif model and key and original:
        rows = {model: _evaluate_user_model(model, key, original, prompts, new_tokens, seed, _device(device))}
    else:
        raise ProceedingsError("give --preset, or all of --model, --key and --original")
    table = Table(title="PRO evaluation")
    columns = ("auc", "tpr_at_5fpr", "tpr_at_1fpr", "ppl", "auc_merge", "auc_int8", "auc_finetune")
    table.add_column("method")
    for column in columns:
        table.add_column(column)
    for name, row in rows.items():
        table.add_row(name, *(f"{row[c]:.3f}" if c in row else "-" for c in columns))
    console.print(table)


def _evaluate_user_model(model: str, key: Path, original: str, prompts: int, new_tokens: int, seed: int,
                         device: str) -> dict:
    from functools import partial

    from proceedings.pro import attacks
    from proceedings.pro.data import read_documents, split_corpus
    from proceedings.pro.detector import Detector
    from proceedings.pro.evaluation import EvalSet, evaluate_under_attacks
    from proceedings.pro.experiment import summarise
    from proceedings.pro.generation import sample

    marked, tokenizer = _load(model, device)
    base, _ = _load(original, device)
    split = split_corpus(read_documents(), tokenizer, 128, 32, new_tokens, prompts, seed)
    data = EvalSet(split.prompts, split.human, sample(base, split.prompts, new_tokens, seed=seed), new_tokens, seed=seed)
    checks = {"merge": lambda m: attacks.merge(m, base, 0.5), "int8": partial(attacks.quantize, bits=8),
              "finetune": partial(attacks.finetune, blocks=split.train, steps=20, lr=1e-5, seed=seed)}
    return summarise(evaluate_under_attacks(marked, Detector.load(key, tokenizer), base, data, model, checks), {})
