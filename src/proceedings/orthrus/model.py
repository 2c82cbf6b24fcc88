"""The user's model (spec §6): a base LLM with its diffusion view, generation in either mode, and saved views.

    m = OrthrusModel.from_base("smollm2-135m", block_size=8)   # any Llama / Qwen2 / Qwen3 id, path or .gguf
    m.load_view("runs/orthrus-smol")                            # only the new weights + base hash + B
    out = m.generate("Explain KV caches.", max_new_tokens=64, mode="orthrus")
    out.text, out.stats["tau"]

A saved view is a directory with `view.safetensors` (the new weights; its metadata holds the base config
hash, B and whether slot 0 is causal), written atomically; loading it on another base is refused with both hashes named.
`merge_export` writes a standalone Hugging Face checkpoint folder (spec §6): the base as `save_pretrained`
writes it (config.json, safetensors, the tokenizer where the base has one) with `view.safetensors` beside
it, so any Hugging Face loader reads the AR model from it unchanged and `OrthrusModel.from_pretrained`
reads both views, bit-identical.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.orthrus.dual_view import MIN_BLOCK, DiffusionView, check_block_size, freeze, parameter_counts

VIEW_FILE = "view.safetensors"
MODES = ("orthrus", "ar")


@dataclass
class Generation:
    tokens: list[int]
    text: str | None
    stats: dict = field(default_factory=dict)  # rounds, tau, accepted, draft_s (diffusion) and verify_s, extra cache bytes


class OrthrusModel:
    """A frozen base and its diffusion view (`dual_view.DiffusionView`)."""

    def __init__(self, base, tokenizer, view: DiffusionView):
        freeze(base)
        self.base, self.tokenizer, self.view = base.eval(), tokenizer, view.eval()

    @classmethod
    def from_base(cls, spec="smollm2-135m", block_size: int = 8, device: str = "cpu", dtype: str = "float32",
                  tokenizer=None, first_slot_causal: bool = False, first_slot_ar: bool = False) -> "OrthrusModel":
        """Load a base (alias, directory, .gguf, HF id; or an already loaded model) and add a fresh view
        (`first_slot_causal`: slot 0 not attending to the masks after it; `first_slot_ar`: slot 0 also computed
        with the frozen AR projections; `DiffusionView`)."""
        check_block_size(block_size)
        if isinstance(spec, (str, os.PathLike)):
            from proceedings.core.models import load_causal_lm

            base, tokenizer = load_causal_lm(spec, device=device, dtype=dtype)
        else:
            base = spec
        view = DiffusionView(base, block_size, first_slot_causal, first_slot_ar).to(next(base.parameters()).device)
        return cls(base, tokenizer, view)

    @classmethod
    def from_pretrained(cls, directory: Path | str, device: str = "cpu", dtype: str = "float32") -> "OrthrusModel":
        """Load a `merge_export` folder: the base, its tokenizer where one was saved, and the trained view."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from proceedings.core.runtime import choose_device, choose_dtype

        directory = Path(directory)
        if not (directory / "config.json").is_file() or not (directory / VIEW_FILE).is_file():
            raise ProceedingsError(f"'{directory}' is not an Orthrus export (it needs config.json and {VIEW_FILE}); "
                                   "write one with `proceedings orthrus merge-export`")
        target = choose_device(device)
        base = AutoModelForCausalLM.from_pretrained(directory, dtype=choose_dtype(dtype, target)).to(target)
        has_tokenizer = (directory / "tokenizer_config.json").is_file()
        tokenizer = AutoTokenizer.from_pretrained(directory) if has_tokenizer else None
        block_size = int(_view_metadata(directory / VIEW_FILE).get("block_size", MIN_BLOCK))
        return cls.from_base(base, block_size, tokenizer=tokenizer).load_view(directory)

    @property
    def block_size(self) -> int:
        return self.view.block_size

    def info(self) -> dict:
        config = self.base.config
        return {"family": config.model_type, "layers": config.num_hidden_layers, "hidden": config.hidden_size,
                "kv_heads": config.num_key_value_heads, "block_size": self.block_size, "base_hash": self.view.base_hash,
                **parameter_counts(self.base, self.view)}

    # ------------------------------------------------------------------------------------------ saved views
    def save_view(self, directory: Path | str) -> Path:
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{VIEW_FILE}.", suffix=".tmp")
        os.close(fd)
        tensors = {k: v.detach().contiguous().cpu() for k, v in self.view.state_dict().items()}
        save_file(tensors, tmp, metadata={"base_hash": self.view.base_hash, "block_size": str(self.block_size),
                                          "family": self.base.config.model_type,
                                          "first_slot_causal": str(int(self.view.first_slot_causal)),
                                          "first_slot_ar": str(int(self.view.first_slot_ar))})
        os.replace(tmp, directory / VIEW_FILE)
        return directory / VIEW_FILE

    def load_view(self, directory: Path | str) -> "OrthrusModel":
        from safetensors.torch import load_file

        path = Path(directory) / VIEW_FILE if Path(directory).is_dir() else Path(directory)
        if not path.exists():
            raise ProceedingsError(f"no saved diffusion view at '{path}'; train one with `proceedings orthrus train`")
        meta = _view_metadata(path)
        if meta.get("base_hash") != self.view.base_hash:
            raise ProceedingsError(f"the view at '{path}' was trained on base {meta.get('base_hash')}, but the loaded "
                                   f"base is {self.view.base_hash}; load the base it was trained on")
        self.view.block_size = check_block_size(int(meta["block_size"]))
        self.view.first_slot_causal = meta.get("first_slot_causal", "0") == "1"  # views saved before round 17: off
        self.view.first_slot_ar = meta.get("first_slot_ar", "0") == "1"  # views saved before round 18: off
        self.view.load_state_dict(load_file(str(path), device=str(self.view.mask_embedding.device)))
        return self

    def merge_export(self, directory: Path | str) -> Path:
        """Write the standalone checkpoint folder (module docstring) into a staging folder, then rename it."""
        directory = check_export_target(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}."))
        try:
            architectures = self.base.config.architectures
            self.base.save_pretrained(staging)
            # save_pretrained names the class in the config; the base's own config (and so its hash) stays as it was
            self.base.config.architectures = architectures
            self.base.config.to_json_file(staging / "config.json")
            if self.tokenizer is not None:
                self.tokenizer.save_pretrained(staging)
            self.save_view(staging)
            if directory.exists():
                directory.rmdir()
            os.replace(staging, directory)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return directory

    # ------------------------------------------------------------------------------------------- generation
    def prompt_ids(self, prompt: str | Sequence[dict] | Sequence[int]) -> list[int]:
        """Token ids: given as ids, or text / chat messages under the tokenizer's chat template."""
        if isinstance(prompt, str) or (prompt and isinstance(prompt[0], dict)):
            if self.tokenizer is None:
                raise ProceedingsError("this model has no tokenizer; pass the prompt as token ids")
            messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
            ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                     return_dict=False)
            return list(ids["input_ids"] if isinstance(ids, dict) else ids)
        return [int(t) for t in prompt]

    def generate(self, prompt, max_new_tokens: int = 64, mode: str = "orthrus", temperature: float = 0.0,
                 top_k: int | None = None, top_p: float | None = None, seed: int = 0, block_size: int | None = None,
                 check_cache: bool = False) -> Generation:
        """Orthrus rounds (lossless: greedy output equals mode="ar"; sampling has the AR distribution) or plain
        AR decoding, greedy at temperature 0, else sampled with the same top-k/top-p filter in both views."""
        from proceedings.core.speculative import autoregressive_decode, speculative_decode
        from proceedings.orthrus.consensus import DiffusionDrafter

        if mode not in MODES:
            raise ProceedingsError(f"unknown mode '{mode}'; choose one of: {', '.join(MODES)}")
        ids = self.prompt_ids(prompt)
        eos = self.tokenizer.eos_token_id if self.tokenizer is not None else self.base.config.eos_token_id
        if mode == "ar":
            trace = autoregressive_decode(self.base, ids, max_new_tokens, temperature, top_k, eos, seed, top_p)
            stats = {}
        else:
            drafter = DiffusionDrafter(self.base, self.view, block_size, temperature, top_k, top_p, seed, check_cache)
            trace = speculative_decode(self.base, drafter, ids, max_new_tokens, drafter.drafts_per_round, temperature,
                                       top_k, eos, seed, top_p)
            stats = {**trace.extras, "extra_cache_bytes": drafter.extra_cache_bytes, "block_size": drafter.block_size}
        text = self.tokenizer.decode(trace.tokens, skip_special_tokens=True) if self.tokenizer is not None else None
        return Generation(trace.tokens, text, json.loads(json.dumps(stats)))


def check_export_target(directory: Path | str) -> Path:
    """An export goes into a new or empty folder, never over another checkpoint."""
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ProceedingsError(f"'{directory}' already exists and is not an empty folder; choose a new one")
    return directory


def _view_metadata(path: Path) -> dict:
    """The metadata of a saved view: base hash, B, family, first_slot_causal and first_slot_ar ("1" or "0"; absent
    before rounds 17 and 18)."""
    from safetensors import safe_open

    with safe_open(str(path), "pt") as handle:
        return handle.metadata() or {}
