"""`proceedings bench decoding`: the package's faster decoders on one target, in one run (issue 19).

Plain greedy decoding (the reference), prompt lookup, EAGLE-3 and P-EAGLE drafters (`proceedings peagle
train`), Orthrus diffusion views (`proceedings orthrus train`) and N-vium retrofitted on the same model
(`proceedings nvium retrofit --out`) decode the same held-out ShareGPT prompts through `core/bench.py`:
arms take turns prompt by prompt, so a busy machine slows them alike, and every greedy arm's tokens are
compared with plain greedy decoding's. N-vium samples its own mixture over exits, so it is not lossless
with respect to greedy decoding: its tokens are compared with nothing (`UNCOMPARED`), and its speed-up
is over greedy decoding of the same network at full depth.

Systems never import each other; this package-level module is where they meet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="Benchmarks that race several systems on one workload.", no_args_is_help=True)
console = Console()


def decoding_arms(target, eos_token_id: int | None, drafters: dict | None = None, views: dict | None = None,
                  nvium: dict | None = None, ks=(3, 7), blocks=(8,), nvium_temperature: float = 1.0) -> list:
    """Benchmark arms on `target`: plain greedy first (the reference); prompt lookup and each named P-EAGLE /
    EAGLE-3 drafter at each K; each named Orthrus view at each block size B (B - 1 drafts per round); each
    named N-vium model, sampled at `nvium_temperature` and compared with nothing."""
    from proceedings.core.bench import UNCOMPARED
    from proceedings.core.speculative import greedy_decoder, speculative_decoder
    from proceedings.nvium.speed import deferred_decoder
    from proceedings.orthrus.consensus import DiffusionDrafter
    from proceedings.peagle.proposer import drafting_arms

    arms = [greedy_decoder(target, eos_token_id), *drafting_arms(target, drafters or {}, ks, eos_token_id)]
    for name, view in (views or {}).items():
        for block in blocks:
            drafter = DiffusionDrafter(target, view, block, name=f"{name}-b{block}")
            arms.append(speculative_decoder(drafter.name, target, drafter, block - 1, eos_token_id))
    for name, model in (nvium or {}).items():
        arms.append(deferred_decoder(name, model, temperature=nvium_temperature, reference=UNCOMPARED))
    return arms


def check_nvium_tokenizer(path: Path, tokenizer_spec: str, target: str) -> None:
    """An N-vium checkpoint must read the target's tokens: same prompts, same vocabulary."""
    if tokenizer_spec != target:
        raise ProceedingsError(f"the N-vium checkpoint '{path}' reads the tokens of '{tokenizer_spec}', not of the "
                               f"target '{target}'; retrofit the target with `proceedings nvium retrofit --model "
                               f"{target} --out DIR`")


@app.command()
def decoding(
    target: str = typer.Option("smollm2-135m", help="Target model: alias, local directory, .gguf file or HF id."),
    drafter: list[Path] = typer.Option([], help="P-EAGLE or EAGLE-3 drafter file from `proceedings peagle train` "
                                                "(repeat the option)."),
    orthrus_view: list[Path] = typer.Option([], help="Orthrus view folder from `proceedings orthrus train` "
                                                     "(repeat the option)."),
    nvium: list[Path] = typer.Option([], help="N-vium checkpoint folder retrofitted on the target, from "
                                              "`proceedings nvium retrofit --out` (repeat the option)."),
    k: list[int] = typer.Option([3, 7], help="Drafts per round for prompt lookup and the drafters (repeat)."),
    block: list[int] = typer.Option([8], help="Orthrus block size B (repeat the option)."),
    nvium_temperature: float = typer.Option(1.0, help="N-vium's sampling temperature (> 0)."),
    prompts: int = typer.Option(10, help="Held-out ShareGPT prompts."),
    new_tokens: int = typer.Option(64, help="New tokens per prompt."),
    repeats: int = typer.Option(1, help="Timed repeats per prompt and arm."),
    max_prompt_chars: int = typer.Option(600, help="Skip ShareGPT first turns longer than this many characters."),
    out: Optional[Path] = typer.Option(None, help="Write bench.json and bench.md here."),
) -> None:
    """Greedy, prompt lookup, EAGLE-3 / P-EAGLE, Orthrus and N-vium on one target and the same prompts, arms
    rotated: tokens/s, speed-up over greedy, exactness, tau."""
    from proceedings.core.bench import run_benchmark
    from proceedings.core.models import load_causal_lm
    from proceedings.core.runtime import set_threads
    from proceedings.core.selfdistill import chat_prompt_ids, sharegpt_prompts
    from proceedings.core.speculative import tau_cell
    from proceedings.nvium.model import NviumForCausalLM
    from proceedings.orthrus.model import OrthrusModel
    from proceedings.peagle.checkpoints import load_drafter

    set_threads()
    if nvium and nvium_temperature <= 0:
        raise ProceedingsError(f"--nvium-temperature must be > 0 (N-vium samples), got {nvium_temperature}")
    _, held_out = sharegpt_prompts(max_prompt_chars)
    if not 1 <= prompts <= len(held_out):
        raise ProceedingsError(f"--prompts must be between 1 and {len(held_out)} (the held-out split), got {prompts}")
    models = {path: NviumForCausalLM.from_pretrained(path) for path in nvium}
    for path, model in models.items():
        check_nvium_tokenizer(path, model.config.tokenizer, target)
    model, tokenizer = load_causal_lm(target, device="cpu", dtype="float32")
    drafters = {}
    for path in drafter:
        loaded = load_drafter(path, model)
        drafters[f"{loaded.cfg.method}:{path.stem}"] = loaded
    views = {f"orthrus:{path.name}": OrthrusModel.from_base(model, max(block), tokenizer=tokenizer).load_view(path).view
             for path in orthrus_view}
    arms = decoding_arms(model, tokenizer.eos_token_id, drafters, views,
                         {f"nvium:{path.name}": m for path, m in models.items()}, k, block, nvium_temperature)
    report = run_benchmark(arms, [chat_prompt_ids(tokenizer, p) for p in held_out[:prompts]], new_tokens,
                           repeats=repeats, progress=True)
    console.print(report.markdown({"tau": tau_cell}), markup=False, highlight=False)
    if out is not None:
        report.write(out)
