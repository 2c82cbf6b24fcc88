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


def _loss_weights(pairs: list[str]):
    """['null=5', 'floor=2'] -> LossWeights with those terms changed; unknown names are refused."""
    from dataclasses import fields, replace

    from proceedings.pro.config import LossWeights

    names = [f.name for f in fields(LossWeights)]
    changes = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in names or not value:
            raise ProceedingsError(f"--weight {pair!r}: give NAME=VALUE with NAME one of {', '.join(names)}")
        try:
            changes[name] = float(value)
        except ValueError:
            raise ProceedingsError(f"--weight {pair!r}: '{value}' is not a number") from None
    return replace(LossWeights(), **changes)


@app.command()
def train(
    out: Path = typer.Option(..., help="Run directory: calibration.json, metrics.jsonl, checkpoints/, model/ "
                                       "(release), key/ (secret)."),
    model: str = typer.Option("smollm2-135m", help=MODEL_HELP),
    method: str = typer.Option("pro", help="pro or kgw-distill."),
    no_fpl: bool = typer.Option(False, "--no-fpl", help="PRO without the perturbation-aware regularizer."),
    freeze_policy: bool = typer.Option(False, "--freeze-policy", help="PRO with its policy frozen after the warm start."),
    policy_output: str = typer.Option("full", help="PRO policy output: full (|V| scores, spec) or embedding (ablation)."),
    steps: int = typer.Option(100), batch_size: int = typer.Option(4), seq_len: int = typer.Option(96),
    train_layers: str = typer.Option("4", help="Top decoder layers to train, or 'all'."),
    lr: float = typer.Option(1e-4, help="Learning rate of the model."),
    lr_policy: float = typer.Option(1e-3, help="Learning rate of PRO's policy."),
    warmup: float = typer.Option(0.1, help="Fraction of steps of linear learning-rate warm-up."),
    policy_warmup_steps: int = typer.Option(100, help="PRO: policy-only steps (balance, magnitude) before training."),
    weight: list[str] = typer.Option([], help="A loss weight NAME=VALUE (balance, unbiased, learn, null, floor, "
                                              "magnitude, fpl); repeat for several."),
    fpl_kinds: str = typer.Option("ft,merge,noise", help="Simulated modifications FPL cycles through."),
    fpl_every: int = typer.Option(1, help="Apply FPL every N-th step."),
    floor_fraction: float = typer.Option(1.0, help="PRO: the teacher's green gap stays >= this x its calibrated "
                                                   "gap (0: no floor)."),
    corpus: str = typer.Option("pydoc", help="'pydoc' (built in), a .txt/.jsonl file or a folder of .txt."),
    gamma: Optional[float] = typer.Option(None, help="Green fraction (default: 0.5 PRO, 0.25 KGW)."),
    delta: float = typer.Option(2.0, help="Watermark strength (replaced by the calibrated one with --target-kl)."),
    target_kl: Optional[float] = typer.Option(None, help="Calibrate delta so KL(teacher || original) equals this on "
                                                         "held-out blocks (equal strength across methods)."),
    recalibrate_every: int = typer.Option(5, help="PRO with --target-kl: re-bisect delta to the target every N steps "
                                                  "and after the last, as the policy learns (0: only before step 0)."),
    pro_context: int = typer.Option(2, help="PRO: context width n of the policy."),
    kgw_context: int = typer.Option(1, help="KGW: previous tokens k hashed into the green list."),
    resume: bool = typer.Option(False, "--resume", help="Continue from the last checkpoint (same configuration)."),
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
                         lr_model=lr, lr_policy=lr_policy, warmup=warmup, policy_warmup_steps=policy_warmup_steps,
                         fpl=not no_fpl, fpl_kinds=tuple(k.strip() for k in fpl_kinds.split(",") if k.strip()),
                         fpl_every=fpl_every, freeze_policy=freeze_policy, floor_fraction=floor_fraction,
                         target_kl=target_kl, recalibrate_every=recalibrate_every, weights=_loss_weights(weight),
                         mixed_precision=mixed_precision, seed=seed)
    policy = PolicyConfig(n=pro_context, delta=delta, gamma=gamma or 0.5, output=policy_output, seed=seed)
    kgw = KGWConfig(gamma=gamma or 0.25, delta=delta, k=kgw_context)
    lm, tokenizer = _load(model, _device(device))
    blocks = token_blocks(read_documents(corpus), tokenizer, seq_len)
    if len(blocks) <= 2 * batch_size:
        raise ProceedingsError(f"the corpus gives {len(blocks)} blocks of {seq_len} tokens; need more than "
                               f"{2 * batch_size} (a batch is held out for calibration)")
    trainer = WatermarkTrainer(lm, tokenizer, config, policy=policy, kgw=kgw)
    trainer.fit(blocks[:-batch_size], out, resume=resume, calibration=blocks[-batch_size:])
    console.print(f"delta {trainer.delta:.3f} (KL(teacher || original) {trainer.calibration['teacher_kl']:.4f}); "
                  f"released model: {out / 'model'}   secret key: {out / 'key'} (keep it apart from the model)")


@app.command()
def generate(
    model: str = typer.Option(..., help=MODEL_HELP),
    prompts: Path = typer.Option(..., help="JSONL with a 'prompt' field per line."),
    out: Path = typer.Option(..., help="JSONL: prompt, completion."),
    max_new_tokens: int = typer.Option(96), seed: int = typer.Option(0),
    temperature: float = typer.Option(1.0), top_p: float = typer.Option(1.0, help="Nucleus sampling mass (1: off)."),
    batch_size: int = typer.Option(8, help="Prompts of equal token length sampled together."),
    decoding_watermark: Optional[Path] = typer.Option(None, help="A key dir: add its teacher's bias while decoding "
                                                                  "(the decoding-time reference)."),
    device: str = typer.Option("auto", help=DEVICE_HELP),
) -> None:
    """Sample completions for each prompt (default: temperature 1, no top-k / top-p)."""
    import torch

    from proceedings.pro.generation import sample

    lm, tokenizer = _load(model, _device(device))
    processor = None
    if decoding_watermark is not None:
        from proceedings.pro.detector import Detector
        from proceedings.pro.kgw import KGWLogitsProcessor, KGWWatermark
        from proceedings.pro.policy import PolicyLogitsProcessor

        detector = Detector.load(decoding_watermark, tokenizer)
        key = detector.key
        processor = (PolicyLogitsProcessor(detector.policy, key.policy.delta) if key.kind == "pro"
                     else KGWLogitsProcessor(KGWWatermark(key.kgw, key.vocab_size)))
    rows = _read_jsonl(prompts)
    encoded = [tokenizer(row["prompt"], add_special_tokens=False)["input_ids"] for row in rows]
    completions: dict[int, list[int]] = {}
    by_length: dict[int, list[int]] = {}
    for number, ids in enumerate(encoded):
        by_length.setdefault(len(ids), []).append(number)
    for length, numbers in sorted(by_length.items()):
        for start in range(0, len(numbers), batch_size):
            chunk = numbers[start : start + batch_size]
            batch = torch.tensor([encoded[n] for n in chunk])
            sampled = sample(lm, batch, max_new_tokens, batch_size, seed + chunk[0], logits_processor=processor,
                             temperature=temperature, top_p=top_p)
            completions.update(zip(chunk, sampled.tolist()))
    out.write_text("".join(json.dumps({"prompt": row["prompt"], "completion": tokenizer.decode(
        completions[number], skip_special_tokens=True)}) + "\n" for number, row in enumerate(rows)))
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
    out: Optional[Path] = typer.Option(None, help="Write the scores as one plain JSON list to this file."),
) -> None:
    """Score texts: z, p-value, green fraction, mean score, scored tokens (prompt excluded)."""
    from dataclasses import asdict

    from proceedings.core.runtime import atomic_write_text

    detector = _detector(key, tokenizer, gamma, delta, context)
    if thresholds is not None:
        detector.load_thresholds(thresholds, fpr)
    scores = [asdict(detector.score(row.get("text", row.get("completion")), prompt=row.get("prompt")))
              for row in _texts(text, input)]
    if out is not None:
        atomic_write_text(out, json.dumps(scores, indent=2) + "\n")
        console.print(f"{len(scores)} scores written to {out}")
    else:
        for score in scores:
            console.print_json(json.dumps(score))


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
    corpus: str = typer.Option("pydoc", help="Prompts, human negatives and fine-tuning text: 'pydoc', a .txt/.jsonl "
                                             "file or a folder of .txt."),
    out: Optional[Path] = typer.Option(None, help="Write the table as JSON here, and the ROC plot beside it (.png)."),
    prompts: int = typer.Option(40), new_tokens: int = typer.Option(96), seed: int = typer.Option(0),
    device: str = typer.Option("auto", help=DEVICE_HELP + " (with --model; a preset picks its own)"),
) -> None:
    """The table: AUC, TPR@5%/1%, PPL, and AUC after merge 0.5 / int8 / fine-tuning / pruning."""
    if preset is not None:
        from proceedings.registry import get_system

        result = get_system("pro").reproduce(preset, seeds=(seed,))
        rows = {"pro": result.metrics, "kgw-distill": result.baseline, **result.metrics["ablations"]}
    elif model and key and original:
        rows = {model: _evaluate_user_model(model, key, original, corpus, prompts, new_tokens, seed, _device(device),
                                            out)}
    else:
        raise ProceedingsError("give --preset, or all of --model, --key and --original")
    if out is not None:
        from proceedings.core.runtime import atomic_write_text

        atomic_write_text(out, json.dumps(rows, indent=2, default=str) + "\n")
    table = Table(title="PRO evaluation")
    columns = ("auc", "tpr_at_5fpr", "tpr_at_1fpr", "ppl", "auc_merge", "auc_int8", "auc_finetune", "auc_prune")
    table.add_column("method")
    for column in columns:
        table.add_column(column)
    for name, row in rows.items():
        table.add_row(name, *(f"{row[c]:.3f}" if c in row else "-" for c in columns))
    console.print(table)


def _evaluate_user_model(model: str, key: Path, original: str, corpus: str, prompts: int, new_tokens: int, seed: int,
                         device: str, out: Optional[Path]) -> dict:
    from dataclasses import replace

    from proceedings.pro.data import read_documents, split_corpus
    from proceedings.pro.detector import Detector
    from proceedings.pro.evaluation import EvalSet, evaluate_under_attacks, null_z
    from proceedings.pro.experiment import CONFIGS, attack_suite, summarise
    from proceedings.pro.generation import sample
    from proceedings.pro.metrics import plot_roc

    marked, tokenizer = _load(model, device)
    base, _ = _load(original, device)
    split = split_corpus(read_documents(corpus), tokenizer, 128, 32, new_tokens, prompts, seed)
    data = EvalSet(split.prompts, split.human, sample(base, split.prompts, new_tokens, seed=seed), new_tokens, seed=seed)
    detector = Detector.load(key, tokenizer)
    cfg = replace(CONFIGS["small"], train=replace(CONFIGS["small"].train, train_layers=None), finetune_lr=1e-5)
    conditions = evaluate_under_attacks(marked, detector, base, data, model, attack_suite(base, split.train, cfg, seed))
    if out is not None:
        plot_roc({model: (conditions["clean"].z, null_z(detector, data))}, out.with_suffix(".png"),
                 f"{model}: watermarked vs clean continuations")
    return summarise(conditions, {})
