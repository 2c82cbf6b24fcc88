"""Text for distillation and evaluation, offline.

The paper distils on C4-style web text, which cannot be had offline.  The default corpus here is
human-written English prose that every CPython ships: the reference documentation topics of
`pydoc_data` (79 chapters, ~465 k characters).  It serves as the clean distillation text, as the
source of evaluation prompts, and as the "human" negatives.  Users point `--corpus` at their own
text: a `.txt` file, a folder of `.txt` files, or a JSONL file with a `text` field per line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch

from proceedings.core.errors import ProceedingsError

BUILTIN = "pydoc"


def builtin_documents() -> list[str]:
    """The Python reference documentation topics, one document each, in a fixed order."""
    from pydoc_data.topics import topics

    return [topics[name] for name in sorted(topics)]


def read_documents(source: str | Path = BUILTIN) -> list[str]:
    """Documents from `pydoc` (built in), a .txt file, a folder of .txt files or a .jsonl file."""
    if str(source) == BUILTIN:
        return builtin_documents()
    path = Path(source)
    if path.is_dir():
        files = sorted(path.glob("*.txt"))
        if not files:
            raise ProceedingsError(f"corpus folder '{path}' has no .txt files")
        return [f.read_text(encoding="utf-8", errors="replace") for f in files]
    if not path.is_file():
        raise ProceedingsError(f"corpus '{source}' does not exist; give a .txt/.jsonl file, a folder or '{BUILTIN}'")
    if path.suffix == ".jsonl":
        return read_jsonl_texts(path)
    return [path.read_text(encoding="utf-8", errors="replace")]


def read_jsonl_texts(path: Path | str, field: str = "text") -> list[str]:
    """The `field` of every line of a JSONL file; a line without it is an error naming the line."""
    texts = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            texts.append(json.loads(line)[field])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ProceedingsError(f"{path}:{number}: expected a JSON object with a '{field}' field") from None
    return texts


def token_blocks(documents: list[str], tokenizer, length: int) -> torch.Tensor:
    """(N, length) consecutive token blocks of the concatenated documents (EOS between them)."""
    ids: list[int] = []
    for document in documents:
        ids.extend(tokenizer(document, add_special_tokens=False)["input_ids"])
        ids.append(tokenizer.eos_token_id)
    n = len(ids) // length
    if n == 0:
        raise ProceedingsError(f"the corpus has {len(ids)} tokens, fewer than one block of {length}")
    return torch.tensor(ids[: n * length]).view(n, length)


@dataclass
class Split:
    train: torch.Tensor  # (N, T) distillation blocks
    prompts: torch.Tensor  # (P, prompt_len) evaluation prompts
    human: torch.Tensor  # (P, continuation_len) the human text that follows each prompt


def split_corpus(documents: list[str], tokenizer, train_len: int, prompt_len: int, continuation_len: int,
                 n_eval: int, seed: int = 0) -> Split:
    """Held-out evaluation blocks (prompt + its human continuation) and the rest for training.

    Documents are split, not blocks, so no evaluation prompt was seen in training.
    """
    order = torch.randperm(len(documents), generator=torch.Generator().manual_seed(seed)).tolist()
    eval_len = prompt_len + continuation_len
    held_out, used = [], 0
    for used, index in enumerate(order, 1):
        held_out.append(documents[index])
        if len(token_blocks(held_out, tokenizer, eval_len)) >= n_eval:
            break
    eval_blocks = token_blocks(held_out, tokenizer, eval_len)
    if len(eval_blocks) < n_eval:
        raise ProceedingsError(f"the corpus gives only {len(eval_blocks)} evaluation blocks, {n_eval} asked")
    eval_blocks = eval_blocks[torch.randperm(len(eval_blocks), generator=torch.Generator().manual_seed(seed))[:n_eval]]
    train = token_blocks([documents[i] for i in order[used:]], tokenizer, train_len)
    return Split(train=train, prompts=eval_blocks[:, :prompt_len], human=eval_blocks[:, prompt_len:])
