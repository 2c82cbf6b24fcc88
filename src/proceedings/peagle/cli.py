"""`proceedings peagle ...`: the cost model (break-even acceptance length before any training).

torch and the model code are imported inside the commands, so mounting this app costs nothing.
The full pipeline (data, features, both drafters, benchmark) runs as `proceedings reproduce peagle`.
"""

from __future__ import annotations

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
