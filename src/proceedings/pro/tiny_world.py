"""The tiny world of tests and `make demo`: a 512-token BPE tokenizer and a random Llama that uses it.

With SmolLM2's 49,152-token vocabulary every training position costs 49 k-wide softmaxes, which
no random 64-wide model needs.  The tiny world trains a byte-level BPE of 512 tokens on the built-in
corpus (about a second) and scales the random model's embeddings so its next-token distributions
are peaked like a trained LM's (logit std about 2) rather than almost uniform.
"""

from __future__ import annotations

import functools

import torch

from proceedings.core.models import cache_root, tiny_causal_lm
from proceedings.pro.data import builtin_documents

TINY_VOCAB = 512
TRAIN_DOCUMENTS = 12  # of the corpus's 79: enough text for 512 merges, trains in about a second
EMBEDDING_SCALE = 5.0  # logits of the random model: std ~0.3 -> ~2 (measured)


@functools.lru_cache(maxsize=1)
def tiny_tokenizer():
    """A Hugging Face fast tokenizer: byte-level BPE with 512 tokens, trained once and cached."""
    from transformers import PreTrainedTokenizerFast

    cached = cache_root() / "pro" / f"tiny-tokenizer-{TINY_VOCAB}"
    if (cached / "tokenizer.json").is_file():
        return PreTrainedTokenizerFast.from_pretrained(cached)
    tokenizer = _train_tokenizer()
    tokenizer.save_pretrained(cached)
    return tokenizer


def _train_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=TINY_VOCAB, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(builtin_documents()[:TRAIN_DOCUMENTS], trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                   pad_token="<|endoftext|>")


def tiny_model(seed: int = 0):
    """(model, tokenizer): a seeded random 2-layer Llama over the tiny tokenizer, peaked like an LM."""
    model, tokenizer = tiny_causal_lm(seed=seed, tokenizer=tiny_tokenizer())
    with torch.no_grad():
        model.get_input_embeddings().weight.mul_(EMBEDDING_SCALE)
    return model, tokenizer
