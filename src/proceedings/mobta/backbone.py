"""The base model θ_0 every fine-tune starts from, with the trajectory tokens in its vocabulary.

tiny: a seeded random 2-layer Llama (d = 128) whose vocabulary is only the format's tokens (spec §5), first
pre-trained on syntax alone (random cells that recur within a sequence, ordered slots, either tag): the stand-in for a pretrained LLM,
so that every fine-tune starts from a base that knows the format the way an LLM knows language, and
knows nothing about any city. The pre-trained weights are cached under $PROCEEDINGS_CACHE/mobta/.
Otherwise: any causal LM through `core.models.load_causal_lm` (default SmolLM2-135M-Instruct) with the
tokens added (`add_tokens` + `resize_token_embeddings`, new rows drawn from a seeded generator; a tied
embedding/head stays tied), or — in the digits format — as it is, writing the format in its own tokens.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, replace

import torch

from proceedings.core.models import cache_root
from proceedings.mobta.finetuning import Recipe, finetune
from proceedings.mobta.task_vector import model_hash
from proceedings.mobta.token_ids import TokenIds, hf_ids, own_ids, visit_length
from proceedings.mobta.tokenization import TAGS, TrajTokenizer
from proceedings.mobta.trajectories import Trajectory

TINY = "tiny"
PRETRAIN = Recipe(steps=600, batch=32, lr=3e-3, lora_r=None, warmup_steps=20)  # syntax only, no city
SYNTAX_VERSION = 2  # part of the cached base's key: raise it whenever syntax_sequences changes


@dataclass
class Backbone:
    model: torch.nn.Module
    ids: TokenIds
    tokenizer: TrajTokenizer
    spec: str
    seed: int
    base_hash: str

    @property
    def pad_id(self) -> int:
        return self.ids.eos_id

    def meta(self, name: str) -> dict:
        """What a task vector built on this base must record (spec §7: refuse to mix bases, tokenizers, grids)."""
        return {"name": name, "base": self.spec, "base_seed": self.seed, "base_hash": self.base_hash,
                "cell_format": self.tokenizer.cell_format, "tokenizer_hash": self.tokenizer.fingerprint(),
                "grid": self.tokenizer.grid, "slot_minutes": self.tokenizer.slot_minutes}


def syntax_sequences(tokenizer: TrajTokenizer, n: int, seed: int) -> list[list[str]]:
    """City-free sequences of the format: a tag, 1-12 visits, ordered slots, cells drawn from a per-sequence
    pool of uniform random cells (never the same twice in a row), so cells recur the way words recur in
    text and the base learns to copy from its context, as a pretrained LLM can."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        tag, count = rng.choice(TAGS), rng.randint(1, 12)
        if tag == "mob":
            slots = sorted(rng.sample(range(tokenizer.slots), count))
        else:
            first = rng.randrange(tokenizer.slots - 4)
            slots = sorted(rng.randint(first, first + 4) for _ in range(count))
        pool = rng.sample(range(tokenizer.cells), rng.randint(min(2, count), count))
        cells = [rng.choice(pool)]
        for _ in range(count - 1):
            cells.append(rng.choice([c for c in pool if c != cells[-1]]))
        out.append(tokenizer.encode(Trajectory(tuple(zip(slots, cells))), tag))
    return out


def tiny_backbone(tokenizer: TrajTokenizer, seed: int, hidden: int = 128, layers: int = 2,
                  pretrain: Recipe = PRETRAIN) -> Backbone:
    from safetensors.torch import load_file, save_file
    from transformers import LlamaConfig, LlamaForCausalLM

    ids = own_ids(tokenizer)
    eos = ids.eos_id
    config = LlamaConfig(vocab_size=ids.vocab_size, hidden_size=hidden, intermediate_size=2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=128 * visit_length(ids, tokenizer), tie_word_embeddings=True,
                         bos_token_id=eos, eos_token_id=eos, pad_token_id=eos)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).eval()
    if pretrain.steps:
        key = f"{tokenizer.fingerprint()}-{hidden}-{layers}-{seed}-{pretrain.steps}-{pretrain.lr}-{pretrain.batch}-v{SYNTAX_VERSION}"
        path = cache_root() / "mobta" / f"tiny-base-{hashlib.sha256(key.encode()).hexdigest()[:12]}.safetensors"
        if not path.exists():
            data = [ids.ids(s) for s in syntax_sequences(tokenizer, 4 * pretrain.steps, seed)]
            trained, _ = finetune(model, data, replace(pretrain, seed=seed), eos, desc="pre-train tiny base (syntax)")
            path.parent.mkdir(parents=True, exist_ok=True)
            save_file({k: v.contiguous() for k, v in trained.state_dict().items() if k != "lm_head.weight"},
                      str(path.with_suffix(".partial")))
            path.with_suffix(".partial").replace(path)
        model.load_state_dict(load_file(str(path)), strict=False)
        model.tie_weights()
    return Backbone(model, ids, tokenizer, TINY, seed, model_hash(model))


def llm_backbone(spec: str, tokenizer: TrajTokenizer, seed: int, dtype: str = "float32", device: str = "cpu") -> Backbone:
    from proceedings.core.models import load_causal_lm

    model, hf_tokenizer = load_causal_lm(spec, device=device, dtype=dtype)
    ids = hf_ids(hf_tokenizer, tokenizer)
    if ids.new_ids:
        torch.manual_seed(seed)
        model.resize_token_embeddings(ids.vocab_size, mean_resizing=True)
    model.eval()
    return Backbone(model, ids, tokenizer, spec, seed, model_hash(model))


def backbone(spec: str, tokenizer: TrajTokenizer, seed: int, **kwargs) -> Backbone:
    return tiny_backbone(tokenizer, seed) if spec == TINY else llm_backbone(spec, tokenizer, seed, **kwargs)


def warm_up() -> str:
    """`make setup`: pre-train and cache the tiny base (600 syntax steps), so neither a test nor the tiny
    preset pays for it."""
    tiny_backbone(TrajTokenizer(16), seed=0)
    return "mobta: tiny syntax-pre-trained base cached"
