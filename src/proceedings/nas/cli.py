"""`proceedings nas ...`: prepare statistics, measure rho, edit, stream, evaluate, plot, make data.

torch and transformers are imported inside the commands, so `proceedings list` stays light.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="NAS: Norm-Anchor Scaling for sequential locate-and-edit model editing.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console()

MODEL = typer.Option("smollm2-135m", "--model", help="Model alias, directory, .gguf file, HF id, or 'tiny'.")
METHOD = typer.Option("memit", "--method", help="memit | alphaedit | rome.")
NAS = typer.Option(True, "--nas/--no-nas", help="Rescale every solved v* to the reference norm rho.")
LAYERS = typer.Option(None, "--layers", help="Comma-separated edit layers (default: the model's preset).")
LAMBDA = typer.Option(None, "--lambda", help="mom2_update_weight (paper 15000).")
MODULE_TMP = typer.Option(None, "--rewrite-module-tmp", help="e.g. 'model.layers.{}.mlp.down_proj'.")
CORPUS = typer.Option(None, "--corpus", help="Text file for C_0 (default: the built-in offline corpus).")
DEVICE = typer.Option("auto", "--device", help="auto | cpu | cuda | cuda:N.")
RHO = typer.Option("auto", "--rho", help="NAS reference norm: a number > 0, or 'auto' (measured and cached).")
PRESET = typer.Option(None, "--preset", help="tiny | small | long | paper: the experiment's edit layers, lambda, "
                      "value solve, batch size and evaluation interval.")


def _model(spec: str, device: str):
    from proceedings.core.runtime import set_threads

    set_threads()
    if spec == "tiny":
        from proceedings.nas.experiment import tiny_editing_model

        return tiny_editing_model()
    from proceedings.core.models import load_causal_lm

    return load_causal_lm(spec, device=device)


def _hparams(model, method: str, nas: bool, layers: Optional[str], lam: Optional[float],
             module_tmp: Optional[str], preset: Optional[dict] = None, **more):
    """EditHparams for `model`: its preset, then the experiment preset's fields, then the CLI flags."""
    from proceedings.core.errors import ProceedingsError
    from proceedings.nas.hparams import EditHparams

    overrides = {**(preset or {}), "method": method, "nas": nas, "rewrite_module_tmp": module_tmp, **more}
    if layers:
        try:
            overrides["layers"] = tuple(int(x) for x in layers.split(","))
        except ValueError:
            raise ProceedingsError(f"--layers '{layers}' is not a comma-separated list of integers") from None
    if lam is not None:
        overrides["mom2_update_weight"] = lam
    return EditHparams.for_model(model, **{k: v for k, v in overrides.items() if v is not None})


def _rho(value: str) -> Optional[float]:
    """--rho: None for 'auto', else a number > 0; checked before any model loads."""
    from proceedings.core.errors import ProceedingsError

    if value == "auto":
        return None
    try:
        rho = float(value)
    except ValueError:
        raise ProceedingsError(f"--rho '{value}' is neither a number nor 'auto'") from None
    if not rho > 0:
        raise ProceedingsError(f"--rho {value}: the reference norm must be > 0 (or 'auto')")
    return rho


@app.command("prepare-stats")
def prepare_stats(model: str = MODEL, layers: Optional[str] = LAYERS, corpus: Optional[Path] = CORPUS,
                  n_tokens: Optional[int] = typer.Option(None, "--n-tokens", help="Corpus tokens for C_0."),
                  module_tmp: Optional[str] = MODULE_TMP, device: str = DEVICE) -> None:
    """Collect C_0 = E[k k^T] per edit layer (resumable; cached under the cache root)."""
    from proceedings.core.runtime import stopwatch
    from proceedings.nas.editing import Editor

    lm, tok = _model(model, device)
    hp = _hparams(lm, "memit", False, layers, None, module_tmp, stats_tokens=n_tokens)
    editor = Editor(lm, tok, hp, corpus=corpus)
    with stopwatch() as took:
        stats = editor.covariances()
    for layer, C in stats.items():
        console.print(f"layer {layer}: C_0 {tuple(C.shape)}, trace {float(C.trace()):.4g}")
    console.print(f"{hp.stats_tokens} tokens, {took.wall_s:.1f} s wall, {took.cpu_s:.1f} CPU-s")


@app.command("reference-norm")
def reference_norm_cmd(model: str = MODEL, method: str = METHOD, layers: Optional[str] = LAYERS,
                       n_ref: Optional[int] = typer.Option(None, "--n-ref", help="Reference requests (paper 1000)."),
                       data: Optional[Path] = typer.Option(None, "--data", help="CounterFact/ZsRE JSON to sample from."),
                       module_tmp: Optional[str] = MODULE_TMP, device: str = DEVICE) -> None:
    """Measure (or read from the cache) the reference norm rho of the last edit layer."""
    from proceedings.nas.datasets import load_requests
    from proceedings.nas.editing import Editor
    from proceedings.nas.prompts import context_templates

    lm, tok = _model(model, device)
    hp = _hparams(lm, method, True, layers, None, module_tmp, nas_n_ref=n_ref)
    editor = Editor(lm, tok, hp)
    editor.templates = context_templates(lm, tok, hp.context_prefixes, hp.context_length)
    rho = editor.reference_norm(load_requests(data) if data else None)
    console.print(f"rho (layer {hp.layers[-1]}, N_ref {hp.nas_n_ref}) = {rho:.6g}")


@app.command()
def edit(prompt: Optional[str] = typer.Option(None, help="Prompt with '{}' for the subject."),
         subject: Optional[str] = typer.Option(None), target_new: Optional[str] = typer.Option(None, "--target-new"),
         target_true: Optional[str] = typer.Option(None, "--target-true"),
         requests_file: Optional[Path] = typer.Option(None, "--requests", help="CounterFact-format JSON: edit its "
                                                      "requests as one batch instead of the flags' single request."),
         model: str = MODEL, method: str = METHOD, nas: bool = NAS, layers: Optional[str] = LAYERS,
         lam: Optional[float] = LAMBDA, rho: str = RHO, module_tmp: Optional[str] = MODULE_TMP,
         corpus: Optional[Path] = CORPUS, device: str = DEVICE,
         check: list[str] = typer.Option([], "--check", help="Filled prompts to complete after the edit."),
         save: Optional[Path] = typer.Option(None, "--save", help="Write the edited model here (save_pretrained).")) -> None:
    """Apply one edit (or a file's requests, as one batch) and show greedy completions before and after.

    C_0 and rho come from the cache when `prepare-stats` / `reference-norm` (or a stream) made them
    with the same model and settings."""
    from proceedings.core.errors import ProceedingsError
    from proceedings.nas.datasets import load_requests
    from proceedings.nas.editing import Editor
    from proceedings.nas.requests import EditRequest

    if requests_file is not None:
        requests = load_requests(requests_file)
    elif prompt is None or subject is None or target_new is None:
        raise ProceedingsError("edit needs --prompt, --subject and --target-new, or --requests FILE")
    else:  # checked before the model loads
        requests = [EditRequest(prompt, subject, target_new, target_true, case_id="cli")]
    nas_rho = _rho(rho)
    lm, tok = _model(model, device)
    hp = _hparams(lm, method, nas, layers, lam, module_tmp, nas_rho=nas_rho)
    prompts = [r.text for r in requests] + list(check)
    before = _complete(lm, tok, prompts)
    record = Editor(lm, tok, hp, corpus=corpus).prepare().edit(requests)
    after = _complete(lm, tok, prompts)
    table = Table(title=f"{method}{'+NAS' if nas else ''}: {record.status}, ||v*|| {record.v_star_norm:.4g}"
                        f" (raw {record.v_star_raw_norm:.4g}, rho {record.rho}), {record.solve_steps:.3g} solve steps")
    for column in ("prompt", "before", "after"):
        table.add_column(column)
    for prompt_text, old, new in zip(prompts, before, after):
        table.add_row(prompt_text, repr(old), repr(new))
    console.print(table)
    if save:
        _save_model(lm, tok, save)


def _save_model(lm, tok, folder: Path) -> None:
    lm.save_pretrained(folder)
    tok.save_pretrained(folder)
    console.print(f"edited model written to {folder}")


def _complete(lm, tok, prompts: list[str], n: int = 4) -> list[str]:
    import torch

    out = []
    for prompt in prompts:
        ids = tok(prompt, return_tensors="pt").input_ids.to(next(lm.parameters()).device)
        with torch.no_grad():
            gen = lm.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, do_sample=False,
                              pad_token_id=tok.pad_token_id)
        out.append(tok.decode(gen[0, ids.shape[1]:], skip_special_tokens=True))
    return out


@app.command()
def stream(run_dir: Path = typer.Argument(..., help="Run directory (created, or resumed with --resume)."),
           data: Optional[Path] = typer.Option(None, "--data", help="CounterFact/ZsRE JSON (default: known facts)."),
           n: int = typer.Option(100, "--n", help="Known-fact requests when --data is not given."),
           top_k: int = typer.Option(5, "--top-k", help="A fact is known when its object is in the top-k."),
           preset: Optional[str] = typer.Option(None, "--preset", help="tiny | small | long | paper: the experiment's "
                                                "lambda, value solve, batch size and evaluation interval."),
           model: str = MODEL, method: str = METHOD, nas: bool = NAS, layers: Optional[str] = LAYERS,
           lam: Optional[float] = LAMBDA, module_tmp: Optional[str] = MODULE_TMP, corpus: Optional[Path] = CORPUS,
           batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Default 1, or the preset's."),
           eval_every: Optional[int] = typer.Option(None, "--eval-every", help="Default 0 (end only), or the preset's."),
           checkpoint_every: int = typer.Option(1, "--checkpoint-every"),
           max_edits: Optional[int] = typer.Option(None, "--max-edits"),
           max_minutes: Optional[float] = typer.Option(None, "--max-minutes"),
           on_error: str = typer.Option("continue", "--on-error", help="continue | stop after a failed batch."),
           resume: bool = typer.Option(False, "--resume", help="Continue the run in RUN_DIR exactly, with its settings."),
           rho: str = RHO, save: Optional[Path] = typer.Option(None, "--save", help="Write the edited model here "
                                                              "when the stream ends (save_pretrained)."),
           seed: int = typer.Option(0, "--seed"), device: str = DEVICE) -> None:
    """Sequential editing over a stream, with norms per batch, evaluations and checkpoints."""
    from dataclasses import replace

    from proceedings.core.errors import ProceedingsError
    from proceedings.nas.datasets import load_requests
    from proceedings.nas.hparams import EditHparams
    from proceedings.nas.stream import StreamConfig, run_stream

    if on_error not in ("continue", "stop"):
        raise ProceedingsError(f"--on-error '{on_error}': choose continue or stop")
    _preset(preset), _rho(rho)  # bad input fails before the model loads
    lm, tok = _model(model, device)
    if resume:  # the run's own settings, whatever the flags say
        params = _run_params(run_dir)
        hp, requests = EditHparams(**params["hparams"]), load_requests(run_dir / "requests.json")
        cfg = replace(StreamConfig(**params["stream"]), max_minutes=max_minutes, stop_after_batches=None)
        recorded = params.get("corpus", {}).get("path", "built-in")
        corpus = corpus or (None if recorded == "built-in" else Path(recorded))  # the run's own, unless given
    else:
        found = _preset(preset)
        hp = _hparams(lm, method, nas, layers, lam, module_tmp, preset=found.edit_fields() if found else None,
                      nas_rho=_rho(rho))
        requests = load_requests(data) if data else _known_or_invented(lm, tok, model, n, seed, top_k)
        defaults = found.stream_config() if found else StreamConfig()
        cfg = replace(defaults, batch_size=batch_size or defaults.batch_size,
                      eval_every=eval_every if eval_every is not None else defaults.eval_every,
                      checkpoint_every=checkpoint_every, max_edits=max_edits, max_minutes=max_minutes,
                      on_error=on_error)
    summary = run_stream(lm, tok, requests, hp, run_dir, cfg, resume=resume, corpus=corpus)
    if not summary["complete"]:
        console.print(f"stopped after {summary['batches_done']} batches; continue with --resume")
        return
    _print_evals(summary["evals"])
    console.print(f"run written to {run_dir}")
    if save:
        _save_model(lm, tok, save)


def _preset(name: Optional[str]):
    """The experiment preset named by --preset (None without one)."""
    if name is None:
        return None
    from proceedings.core.errors import ProceedingsError
    from proceedings.nas.experiment import CONFIGS

    if name not in CONFIGS:
        raise ProceedingsError(f"unknown preset '{name}'; choose one of: {', '.join(CONFIGS)}")
    return CONFIGS[name]


def _run_params(run_dir: Path) -> dict:
    from proceedings.core.errors import ProceedingsError

    path = run_dir / "params.json"
    if not path.exists():
        raise ProceedingsError(f"nothing to resume in '{run_dir}': it has no params.json")
    params = json.loads(path.read_text())
    params["hparams"]["context_prefixes"] = tuple(params["hparams"]["context_prefixes"])
    return params


def _known_or_invented(lm, tok, model: str, n: int, seed: int, top_k: int):
    from proceedings.nas.facts import invented_tables, known_fact_requests, table_requests

    if model == "tiny":
        return table_requests(n, seed, invented_tables(seed=seed))
    return known_fact_requests(lm, tok, n, seed=seed, top_k=top_k)


def _print_evals(evals: list[dict]) -> None:
    keys = ("edits", "score", "efficacy", "generalization", "specificity", "neighborhood_acc", "ppl")
    table = Table(title="evaluations over the stream")
    for key in keys:
        table.add_column(key)
    for row in evals:
        table.add_row(*(f"{row[k]:.4g}" if isinstance(row.get(k), float) else str(row.get(k, "-")) for k in keys))
    console.print(table)


@app.command("eval")
def evaluate(data: Path = typer.Argument(..., help="CounterFact/ZsRE JSON, or a run directory."),
             model: str = MODEL,
             original: Optional[str] = typer.Option(None, "--original", help="The unedited model: neighbourhood "
                                                    "reference answers come from it (default: MODEL itself, "
                                                    "right only for an unedited MODEL)."),
             device: str = DEVICE) -> None:
    """CounterFact/ZsRE metrics of MODEL on a data set; specificity against ORIGINAL's answers."""
    from proceedings.nas.corpus import heldout_text
    from proceedings.nas.datasets import load_requests
    from proceedings.nas.metrics import original_answers, perplexity, request_metrics, summarize

    if data.is_dir():
        summary_file = data / "summary.json"
        if not summary_file.exists():
            from proceedings.core.errors import ProceedingsError

            raise ProceedingsError(f"run directory '{data}' has no summary.json; finish it with `nas stream --resume`")
        _print_evals(json.loads(summary_file.read_text())["evals"])
        return
    requests = load_requests(data)
    if original is not None:  # the reference answers first, then the original model is dropped
        reference_lm, reference_tok = _model(original, device)
        answers = original_answers(reference_lm, reference_tok, requests)
        del reference_lm
    lm, tok = _model(model, device)
    if original is None:
        console.print("[yellow]no --original: neighbourhood answers come from MODEL itself[/yellow]")
        answers = original_answers(lm, tok, requests)
    found = summarize(request_metrics(lm, tok, requests, answers))
    found["ppl"] = perplexity(lm, tok, heldout_text())
    console.print_json(json.dumps(found))


@app.command()
def plot(run_dirs: list[Path] = typer.Argument(..., help="One or more run directories."),
         out: Path = typer.Option(Path("norms_and_scores.png"), "--out")) -> None:
    """Norms and scores against the number of edits, one line per run (PNG)."""
    from proceedings.nas.plots import plot_runs

    path = plot_runs({d.name: d for d in run_dirs}, out)
    console.print(f"plot written to {path}")


@app.command("make-dataset")
def make_dataset(out: Path = typer.Option(..., "--out"), n: int = typer.Option(100, "--n"),
                 relations: Optional[str] = typer.Option(None, "--relations", help="e.g. capital,city_country,language"),
                 top_k: int = typer.Option(1, "--top-k", help="A fact is known when its object is in the top-k."),
                 seed: int = typer.Option(0, "--seed"), model: str = MODEL, device: str = DEVICE) -> None:
    """Write a CounterFact-schema data set of facts the model knows, rewritten to counterfactuals."""
    from proceedings.nas.datasets import save_counterfact
    from proceedings.nas.facts import known_fact_requests

    names = relations.split(",") if relations else None
    lm, tok = _model(model, device)
    requests = known_fact_requests(lm, tok, n, seed=seed, relations=names, top_k=top_k)
    save_counterfact(requests, out)
    console.print(f"{len(requests)} requests written to {out}")


@app.command("loop-gain")
def loop_gain(model: str = MODEL, method: str = METHOD, preset: Optional[str] = PRESET, layers: Optional[str] = LAYERS,
              lam: Optional[float] = LAMBDA, module_tmp: Optional[str] = MODULE_TMP, corpus: Optional[Path] = CORPUS,
              batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Probe requests solved as one "
                                                       "batch (default: the preset's batch size, else 1)."),
              steps: Optional[int] = typer.Option(None, "--steps", help="Value-solve step cap."),
              scales: str = typer.Option("1.0,1.1,1.2,1.3", "--scales", help="Factors applied to the edit layers' W."),
              run: Optional[Path] = typer.Option(None, "--run", help="Probe a stream's edited weights (its last "
                                                 "checkpoint, with its settings) instead of the original model."),
              rho: str = RHO, out: Optional[Path] = typer.Option(None, "--out", help="Write the probes as JSON."),
              device: str = DEVICE) -> None:
    """The norm-feedback loop's gain d log||v*|| / d log||W|| and d log||Delta W|| / d log||W||, base editor and +NAS."""
    from proceedings.nas.editing import Editor
    from proceedings.nas.loop_gain import SUPERLINEAR_GAIN, probe_loop_gain, probe_requests
    from proceedings.nas.stream import check_same_run

    try:
        factors = [float(x) for x in scales.split(",")]
    except ValueError:
        factors = []
    if len(factors) < 2 or min(factors) <= 0:
        from proceedings.core.errors import ProceedingsError

        raise ProceedingsError(f"--scales '{scales}': give two or more comma-separated factors > 0")
    nas_rho = _rho(rho)
    lm, tok = _model(model, device)
    found = _preset(preset)
    size = batch_size or (found.batch_size if found else 1)
    probes = {}
    for nas in (False, True):
        if run:
            hp, state, params = _run_settings(run, nas)
        else:
            hp = _hparams(lm, method, nas, layers, lam, module_tmp, preset=found.edit_fields() if found else None,
                          v_num_grad_steps=steps, nas_rho=nas_rho)
        editor = Editor(lm, tok, hp, corpus=corpus)
        if run:
            check_same_run(params, editor, run)
        editor.prepare()
        if run:
            editor.load_state(state)
        label = f"{hp.method}{'+NAS' if nas else ''}"
        probes[label] = probe_loop_gain(editor, probe_requests(model, size), factors)
    _print_probes(probes, f"loop gain on {model}{f' after {run}' if run else ''}: layers {list(hp.layers)}, "
                  f"lambda {hp.mom2_update_weight:g}, {size} request(s) per batch, step cap {hp.v_num_grad_steps}")
    console.print(f"faster-than-linear growth needs gain(update) > {SUPERLINEAR_GAIN} for the base editor")
    if out:
        out.write_text(json.dumps({label: probe.to_json() for label, probe in probes.items()}, indent=1))


def _run_settings(run: Path, nas: bool):
    """(hparams, editor state, params) of a stream's last checkpoint."""
    from dataclasses import replace

    from proceedings.core.runtime import load_checkpoint
    from proceedings.nas.hparams import EditHparams

    params = _run_params(run)
    state = load_checkpoint(run / "resume" / "state.pt")
    return replace(EditHparams(**params["hparams"]), nas=nas), state["editor"], params


def _print_probes(probes: dict, title: str) -> None:
    table = Table(title=title)
    for column in ("editor", "scale", "||W||", "||v*||", "raw ||v*||", "||delta||", "||Delta W||", "steps", "cap hit",
                   "clamp hit"):
        table.add_column(column)
    for label, probe in probes.items():
        for i, scale in enumerate(probe.scales):
            table.add_row(label, f"{scale:g}", *(f"{getattr(probe, k)[i]:.4g}" for k in (
                "weight_norm", "v_star_norm", "v_star_raw_norm", "delta_norm", "update_norm", "solve_steps",
                "cap_hit", "clamp_hit")))
        gains = probe.gains()
        table.add_row(label, "gain", "", f"{gains['v_star']:.3f}", f"{gains['v_star_raw']:.3f}", f"{gains['delta']:.3f}",
                      f"{gains['update']:.3f}", f"{probe.seconds:.0f} s", "", "", end_section=True)
    console.print(table)


@app.command()
def bench(model: str = MODEL, edits: int = typer.Option(3, "--edits", help="Edits timed per configuration."),
          device: str = DEVICE) -> None:
    """Seconds per edit for each editor with and without NAS, time to build C_0, peak memory."""
    from proceedings.nas.benchmark import run_benchmark

    lm, tok = _model(model, device)
    rows = run_benchmark(lm, tok, edits)
    table = Table(title=f"speed on {model}")
    for column in rows[0]:
        table.add_column(column)
    for row in rows:
        table.add_row(*(f"{v:.3g}" if isinstance(v, float) else str(v) for v in row.values()))
    console.print(table)
