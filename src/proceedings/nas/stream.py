"""Sequential editing over a stream of requests, with evaluation, norm telemetry and exact resume.

Run directory (spec §6):
    params.json              hyperparameters, stream settings, model hash, C_0 corpus (path and hash)
    requests.json            the stream, CounterFact schema
    original.json            context templates and the original model's neighbourhood answers, PPL
                             and fluency, all computed before the first edit
    edits.jsonl              one BatchRecord per batch (norms, loss, status)
    checkpoint_evals/after_N/{results.jsonl, summary.json}
    resume/state.pt          edited weights, AlphaEdit cache, RNG states, position (atomic)
    summary.json             the evaluations over the stream and the final one
A killed run resumed with `resume=True` ends with weights bit-identical to an uninterrupted run; a
resume with another model or another corpus than the run's is refused.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text, load_checkpoint, restore_rng_state, rng_state, save_checkpoint
from proceedings.nas.corpus import heldout_text
from proceedings.nas.datasets import save_counterfact
from proceedings.nas.editing import BatchRecord, Editor
from proceedings.nas.hparams import EditHparams
from proceedings.nas.metrics import fluency, original_answers, perplexity, request_metrics, summarize
from proceedings.nas.requests import EditRequest

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StreamConfig:
    batch_size: int = 1
    eval_every: int = 0  # edits between evaluations (0: only before and after the stream)
    checkpoint_every: int = 1  # batches between checkpoints
    max_edits: int | None = None
    max_minutes: float | None = None
    stop_after_batches: int | None = None  # stop (as if killed) after this many batches of this call
    on_error: str = "continue"  # continue | stop, after a batch fails numerically
    ppl_tokens: int = 2048
    fluency_prompts: int = 8
    stop_at_collapse: bool = False  # end the stream at the first evaluation past the editing horizon


def run_stream(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", requests: Sequence[EditRequest],
               hp: EditHparams, run_dir: str | Path, cfg: StreamConfig = StreamConfig(), *, resume: bool = False,
               corpus: str | Path | None = None, reference_requests: Sequence[EditRequest] | None = None,
               cache_dir: Path | None = None, progress: bool = True) -> dict:
    """Edit `requests` in order, batch by batch; returns the summary (also written to summary.json)."""
    from proceedings.core.progress import progress_bar

    run_dir = Path(run_dir)
    requests = list(requests)[: cfg.max_edits]
    state = load_checkpoint(run_dir / "resume" / "state.pt") if resume else None
    if resume and not (run_dir / "params.json").exists():
        raise ProceedingsError(f"nothing to resume in '{run_dir}': it has no params.json")
    if not resume and (run_dir / "edits.jsonl").exists():
        raise ProceedingsError(f"run directory '{run_dir}' already holds a run; pass --resume or a new directory")
    editor = Editor(model, tok, hp, cache_dir=cache_dir, corpus=corpus)
    if resume:
        check_same_run(json.loads((run_dir / "params.json").read_text()), editor, run_dir)
    original = _original(run_dir, model, tok, requests, hp, cfg, resume)
    editor.prepare(reference_requests, original["templates"])
    _write_params(run_dir, hp, cfg, editor, len(requests))
    done, evals = 0, [original["eval"]]
    if state is not None:
        editor.load_state(state["editor"])
        restore_rng_state(state["rng"])
        done, evals = state["batches_done"], state["evals"]
    records = _truncate_log(run_dir / "edits.jsonl", done)
    batches = [requests[i:i + cfg.batch_size] for i in range(0, len(requests), cfg.batch_size)]
    started, this_call = time.perf_counter(), 0
    bar = progress_bar(total=len(batches), initial=done, desc=f"{hp.method}{'+NAS' if hp.nas else ''}", unit="batch",
               disable=not progress, leave=False)
    while done < len(batches):
        record = editor.edit(batches[done])
        records.append(record.to_json())
        with (run_dir / "edits.jsonl").open("a") as log_file:
            log_file.write(json.dumps(record.to_json()) + "\n")
        done, this_call = done + 1, this_call + 1
        bar.update()
        n_edits = min(done * cfg.batch_size, len(requests))
        if cfg.eval_every and n_edits % cfg.eval_every < cfg.batch_size and done < len(batches):
            evals.append(_evaluate(run_dir, model, tok, requests[:n_edits], original, records, cfg, final=False))
            if cfg.stop_at_collapse and editing_horizon(evals)["reached"]:
                _checkpoint(run_dir, done, editor, evals)
                break
        if done % cfg.checkpoint_every == 0 or done == len(batches):
            _checkpoint(run_dir, done, editor, evals)
        if record.status != "ok" and cfg.on_error == "stop":
            raise ProceedingsError(f"batch {done} ({record.case_ids}) failed numerically; see {run_dir / 'edits.jsonl'}")
        out_of_time = cfg.max_minutes is not None and time.perf_counter() - started > 60 * cfg.max_minutes
        if out_of_time or (cfg.stop_after_batches is not None and this_call >= cfg.stop_after_batches):
            _checkpoint(run_dir, done, editor, evals)
            bar.close()
            return {"complete": False, "batches_done": done, "evals": evals}
    bar.close()
    n_edits = min(done * cfg.batch_size, len(requests))
    if evals[-1]["edits"] != n_edits:
        evals.append(_evaluate(run_dir, model, tok, requests[:n_edits], original, records, cfg, final=True))
    summary = {"complete": True, "method": hp.method, "nas": hp.nas, "rho": editor.rho, "edits": n_edits,
               "skipped": sum(r["skipped"] for r in records),
               "failed_batches": sum(r["status"] != "ok" for r in records),
               "final": evals[-1], "evals": evals, "horizon": editing_horizon(evals)}
    atomic_write_text(run_dir / "summary.json", json.dumps(summary, indent=1, default=str))
    return summary


def _checkpoint(run_dir: Path, done: int, editor: Editor, evals: list[dict]) -> None:
    """Atomically store everything a resumed run needs after `done` batches."""
    save_checkpoint(run_dir / "resume" / "state.pt",
                    {"batches_done": done, "editor": editor.state(), "rng": rng_state(), "evals": evals})


def _original(run_dir: Path, model, tok, requests, hp: EditHparams, cfg: StreamConfig, resume: bool) -> dict:
    """What the unedited model says, stored before the first edit (and read back on resume)."""
    from proceedings.nas.prompts import context_templates

    path = run_dir / "original.json"
    if resume:
        return json.loads(path.read_text())
    run_dir.mkdir(parents=True, exist_ok=True)
    save_counterfact(requests, run_dir / "requests.json")
    answers = original_answers(model, tok, requests)
    templates = context_templates(model, tok, hp.context_prefixes, hp.context_length)
    # before any edit only capability is measured: efficacy on counterfactual targets is ~0 by design
    baseline = {"answers": answers, "templates": templates,
                "eval": {"edits": 0, **_capability(model, tok, requests, cfg, with_fluency=True)}}
    atomic_write_text(path, json.dumps(baseline))
    return baseline


def _capability(model, tok, requests, cfg: StreamConfig, with_fluency: bool) -> dict:
    found = {"ppl": perplexity(model, tok, heldout_text(), max_tokens=cfg.ppl_tokens)}
    if with_fluency:
        found["fluency"] = fluency(model, tok, [r.text for r in requests[: cfg.fluency_prompts]])
    return found


def _evaluate(run_dir: Path, model, tok, edited: Sequence[EditRequest], original: dict, records: list[dict],
              cfg: StreamConfig, final: bool) -> dict:
    """Metrics over all edits so far, capability, and the latest norms; written to checkpoint_evals/."""
    per_request = request_metrics(model, tok, edited, original["answers"][: len(edited)])
    last = records[-1]
    result = {"edits": len(edited), **summarize(per_request), **_capability(model, tok, edited, cfg, final),
              "weight_norm": combined_norm(last["weight_norm"]), "v0_norm": last["v0_norm"],
              "v_star_raw_norm": last["v_star_raw_norm"]}
    folder = run_dir / "checkpoint_evals" / f"after_{len(edited)}"
    atomic_write_text(folder / "results.jsonl", "".join(
        json.dumps({"case_id": r.case_id, **m}) + "\n" for r, m in zip(edited, per_request)))
    atomic_write_text(folder / "summary.json", json.dumps(result, indent=1))
    return result


def check_same_run(params: dict, editor: Editor, run_dir: Path) -> None:
    """Refuse to continue a run on another model or with another C_0 corpus than it started with."""
    if params["model_hash"] != editor.model_hash:
        raise ProceedingsError(f"cannot resume '{run_dir}': it was made with model {params['model_hash']}, "
                               f"this model is {editor.model_hash}; pass the run's --model")
    recorded = params.get("corpus", {}).get("hash")
    if recorded is not None and recorded != editor.corpus_id()["hash"]:
        raise ProceedingsError(f"cannot resume '{run_dir}': its C_0 corpus was {params['corpus']['path']} "
                               f"(hash {recorded}), this one is {editor.corpus_id()['path']} "
                               f"(hash {editor.corpus_id()['hash']}); pass the run's --corpus")


def _write_params(run_dir: Path, hp: EditHparams, cfg: StreamConfig, editor: Editor, n: int) -> None:
    params = {"hparams": asdict(hp), "stream": asdict(cfg), "model_hash": editor.model_hash, "n_requests": n,
              "corpus": editor.corpus_id(), "rho": editor.rho, "weight_norm_0": editor.weight_norms()}
    atomic_write_text(run_dir / "params.json", json.dumps(params, indent=1, default=str))


def _truncate_log(path: Path, done: int) -> list[dict]:
    """The first `done` records of edits.jsonl; later lines (written after the last checkpoint) are dropped."""
    lines = path.read_text().splitlines()[:done] if path.exists() else []
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return [json.loads(line) for line in lines]


def combined_norm(per_layer: dict) -> float:
    """||[W_l1; ...; W_lk]||_F over the edit layers."""
    return math.sqrt(sum(value ** 2 for value in per_layer.values()))


def editing_horizon(evals: Sequence[dict]) -> dict:
    """Edits until S < 0.5 * S_first or PPL > 2 * PPL_0 (spec §2.5, our definition).

    S_first is the score at the first evaluation after editing began (single-edit efficacy regime).
    """
    ppl0 = evals[0]["ppl"]
    after = [e for e in evals if e["edits"] > 0]
    if not after:
        return {"edits": 0, "reached": False}
    s_first = after[0]["score"]
    for e in after:
        if e["score"] < 0.5 * s_first or e["ppl"] > 2 * ppl0:
            return {"edits": e["edits"], "reached": True}
    return {"edits": after[-1]["edits"], "reached": False}


def load_records(run_dir: str | Path) -> list[BatchRecord]:
    path = Path(run_dir) / "edits.jsonl"
    if not path.exists():
        raise ProceedingsError(f"'{run_dir}' has no edits.jsonl; is it a run directory?")
    return [BatchRecord(**json.loads(line)) for line in path.read_text().splitlines()]
