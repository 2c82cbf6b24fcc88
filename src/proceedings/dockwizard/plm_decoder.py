"""The full-scale decoder: a pretrained Hugging Face protein LM with LoRA adapters (spec §2.3; issue 26).

The paper's decoder is a pretrained protein language model steered by the conditions. Here any local
Hugging Face protein LM whose vocabulary has one token per amino acid (ESM-2 masked LMs, ProGen2-style
causal LMs) is loaded from a path, every pretrained weight is frozen and LoRA (Hu et al., 2021, through
PEFT) adapts its attention. The conditions enter as in the scratch decoder:
- prefix guidance: the router's global memory, projected to the LM's width, replaces the embeddings of
  P placeholder tokens before the sequence (a soft prompt);
- full-memory injection: after every transformer block, a tanh-gated cross-attention (gate 0 at start)
  to all condition tokens, keys biased by the block's weighting of the three roles.
A causal LM writes the pocket by next-token prediction. A masked LM (ESM) is trained to fill masked
slots (a mask rate drawn per pocket, as conditional masked LMs are) and writes the pocket left to
right, filling one <mask> at a time with the later slots still masked.
"""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.model import GatedCrossAttention
from proceedings.dockwizard.structures import AMINO_ACIDS

LORA_R, LORA_ALPHA = 8, 16  # LoRA rank and scale (Hu et al., 2021: r = 8 adapts attention well)
# attention projections LoRA adapts, by their names in ESM (query, value), ProGen2 (qkv_proj), GPT-2/ProtGPT2 (c_attn)
# and Llama-style LMs (q_proj, v_proj); PEFT matches the ones a model has
LORA_TARGETS = ["query", "value", "qkv_proj", "c_attn", "q_proj", "v_proj"]


def load_protein_lm(path: Path | str):
    """(model, tokenizer, causal) of the protein LM saved at `path`; a one-line error naming the path
    when no weights are there."""
    path = Path(path).expanduser()
    if not (path / "config.json").is_file():
        raise ProceedingsError(f"no protein LM at '{path}' (no config.json): save one there with save_pretrained "
                               "(e.g. facebook/esm2_t6_8M_UR50D) or pass its directory as plm_path")
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    causal = any(a.endswith("CausalLM") for a in AutoConfig.from_pretrained(path).architectures or [])
    try:
        model = (AutoModelForCausalLM if causal else AutoModelForMaskedLM).from_pretrained(path)
        tokenizer = AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError) as err:
        raise ProceedingsError(f"cannot load the protein LM at '{path}': {str(err).splitlines()[0]}") from err
    return model, tokenizer, causal


def transformer_blocks(model: nn.Module) -> nn.ModuleList:
    """The model's stack of transformer blocks: its longest ModuleList (ESM `encoder.layer`, GPT `h`)."""
    lists = [m for m in model.modules() if isinstance(m, nn.ModuleList)]
    if not lists:
        raise ProceedingsError(f"{type(model).__name__} has no list of transformer blocks to inject memory into")
    return max(lists, key=len)


class ProteinLMDecoder(nn.Module):
    """A frozen protein LM + LoRA, a prefix projection and one gated cross-attention per block."""

    def __init__(self, model, tokenizer, causal: bool, d_memory: int, heads: int, prefix: int):
        super().__init__()
        from peft import LoraConfig, get_peft_model

        ids = tokenizer.convert_tokens_to_ids(list(AMINO_ACIDS))
        if tokenizer.unk_token_id in ids or None in ids:
            raise ProceedingsError(f"the protein LM's vocabulary has no single token for every amino acid "
                                   f"({AMINO_ACIDS}); use a per-residue tokenizer such as ESM-2's")
        self.causal, self.prefix_len = causal, prefix
        self.register_buffer("aa_ids", torch.tensor(ids), persistent=False)
        self.start = tokenizer.bos_token_id if causal else tokenizer.cls_token_id
        self.end = None if causal else tokenizer.eos_token_id
        self.unknown = self.start if causal else tokenizer.mask_token_id  # a causal LM never reads later slots
        try:
            self.lm = get_peft_model(model, LoraConfig(r=LORA_R, lora_alpha=LORA_ALPHA, lora_dropout=0.0,
                                                           target_modules=LORA_TARGETS))
        except ValueError as err:  # none of LORA_TARGETS in this architecture
            raise ProceedingsError(f"LoRA cannot adapt {type(model).__name__}: {str(err).splitlines()[0]}") from err
        width = model.config.hidden_size
        self.prefix = nn.Linear(d_memory, width)
        self.inject = nn.ModuleList(GatedCrossAttention(width, heads, d_memory) for _ in transformer_blocks(model))
        self._memory = None  # (prefix (B, P, width), memory, memory bias) during a forward pass
        self.lm.get_input_embeddings().register_forward_hook(self._prompt)
        for block, injection in zip(transformer_blocks(model), self.inject):
            block.register_forward_hook(self._injector(injection))

    def _prompt(self, module, args, embeddings):  # (B, P + T, width): the soft prompt over the placeholders
        prefix = self._memory[0]
        return torch.cat([prefix.to(embeddings.dtype), embeddings[:, prefix.shape[1]:]], 1)

    def _injector(self, injection: GatedCrossAttention):
        def hook(module, args, output):
            hidden = output[0] if isinstance(output, tuple) else output
            hidden = injection.inject(hidden, *self._memory[1:])
            return (hidden, *output[1:]) if isinstance(output, tuple) else hidden
        return hook

    def slot_logits(self, slots, known, memory):
        """Amino-acid logits (B, L, 20) for each pocket slot; slots (B, L) amino-acid ids, -100 past a
        pocket's end; `known` (B, L) bool: slots the LM may read (the others are <mask> / ignored)."""
        tokens, g, prefix = memory
        B, L = slots.shape
        ids = torch.where(known & (slots >= 0), self.aa_ids[slots.clamp(min=0)], torch.full_like(slots, self.unknown))
        parts = [torch.full((B, self.prefix_len + 1), self.start, dtype=torch.long), ids]
        if self.end is not None:
            parts.append(torch.full((B, 1), self.end, dtype=torch.long))
        ids = torch.cat(parts, 1)
        attention = torch.ones_like(ids)
        attention[:, self.prefix_len + 1: self.prefix_len + 1 + L] = slots.ne(-100).long()
        self._memory = (self.prefix(prefix), tokens, g)
        try:
            logits = self.lm(input_ids=ids, attention_mask=attention).logits
        finally:
            self._memory = None
        first = self.prefix_len + (0 if self.causal else 1)  # a causal LM predicts slot t from the token before it
        return logits[:, first: first + L][..., self.aa_ids]

    def loss(self, target, memory, generator: torch.Generator | None = None):
        """Next-slot cross-entropy (causal) or cross-entropy on the masked slots (masked LM)."""
        if self.causal:
            known = torch.ones_like(target, dtype=torch.bool)
            scored = target
        else:
            rate = torch.rand(target.shape[0], 1, generator=generator)
            masked = torch.rand(target.shape, generator=generator) < rate
            masked[:, 0] |= ~masked.any(1)  # at least one slot to learn from
            known, scored = ~masked, target.masked_fill(~masked, -100)
        logits = self.slot_logits(target, known, memory)
        return F.cross_entropy(logits.flatten(0, 1), scored.flatten(), ignore_index=-100)

    def generate(self, lengths: list[int], memory, sample) -> torch.Tensor:
        """(B, max length) amino-acid ids, slot by slot; `sample(logits (B, 20)) -> (B,)` draws one."""
        B, L = len(lengths), max(lengths)
        slots = torch.full((B, L), -100, dtype=torch.long)
        for i, n in enumerate(lengths):
            slots[i, :n] = 0
        for t in range(L):
            known = torch.arange(L)[None].expand(B, L) < t
            slots[:, t] = torch.where(slots[:, t] >= 0, sample(self.slot_logits(slots, known, memory)[:, t]), -100)
        return slots
