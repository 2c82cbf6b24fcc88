"""Format words <-> a model's token ids, for both spellings of the trajectory format (spec §2.1).

`WordIds`: one id per word — the format's tokens added to a Hugging Face tokenizer, or the tiny model's own
vocabulary of exactly those tokens. `TextIds`: the words as text, single spaces between them, in a model's
own tokens (`digits`: a pretrained LLM's BPE pieces, or the tiny model's characters), and `<eos>` as the
model's end token. Each word is tokenised on its own (with its leading space), so a sequence's ids are the
concatenation of its words' ids and a prompt's ids are a prefix of every sequence it starts; decoding reads
the text back and splits it on single spaces, so anything but the exact spelling is an invalid sample.
"""

from __future__ import annotations

from functools import cache
from typing import Callable

from proceedings.mobta.tokenization import EOS, TAGS, TrajTokenizer

DIGIT_SYMBOLS = (" ", *"0123456789", ":", "r", "c")  # the tiny model's characters for the digits format


class WordIds:
    """One id per word; `new` are the ids a pretrained vocabulary gained (their embedding rows get trained)."""

    def __init__(self, to_id: dict[str, int], vocab_size: int, new: list[int] | None = None):
        self.to_id = to_id
        self.to_word = {i: t for t, i in to_id.items()}
        self.vocab_size = vocab_size
        self.eos_id = to_id[EOS]
        self.new_ids = sorted(new or [])

    def word_ids(self, word: str, first: bool = False) -> list[int]:
        return [self.to_id[word]]

    def ids(self, words: list[str]) -> list[int]:
        return [self.to_id[w] for w in words]

    def words(self, ids: list[int]) -> list[str]:
        return [self.to_word.get(i, f"<id {i}>") for i in ids]


class TextIds:
    """The words as space-separated text in a model's own tokens (no new rows)."""

    def __init__(self, piece_ids: Callable[[str], list[int]], text_of: Callable[[list[int]], str], eos_id: int,
                 vocab_size: int):
        self.piece_ids, self.text_of = cache(piece_ids), text_of
        self.eos_id, self.vocab_size = eos_id, vocab_size
        self.new_ids: list[int] = []  # nothing added: no embedding rows to train

    def word_ids(self, word: str, first: bool = False) -> list[int]:
        return [self.eos_id] if word == EOS else list(self.piece_ids(word if first else " " + word))

    def ids(self, words: list[str]) -> list[int]:
        return [i for n, w in enumerate(words) for i in self.word_ids(w, first=n == 0)]

    def words(self, ids: list[int]) -> list[str]:
        """Text up to the first end token, split on single spaces (a double space leaves an empty word)."""
        end = ids.index(self.eos_id) if self.eos_id in ids else len(ids)
        text = self.text_of(ids[:end])
        return (text.split(" ") if text else []) + ([EOS] if end < len(ids) else [])


TokenIds = WordIds | TextIds


def visit_length(ids: TokenIds, tokenizer: TrajTokenizer) -> int:
    """The most ids one visit can take (2 for added tokens): sampling limits and context sizes scale with it."""
    words = [w for w in tokenizer.vocabulary() if tokenizer.kind(w) not in ("tag", "eos")]
    longest = {}
    for word in words:
        kind = tokenizer.kind(word)
        longest[kind] = max(longest.get(kind, 0), len(ids.word_ids(word)))
    return sum(longest.values())


def own_ids(tokenizer: TrajTokenizer) -> TokenIds:
    """The tiny model's vocabulary: the format's tokens, or (digits) the tags, `<eos>` and characters."""
    if not tokenizer.digits:
        vocab = tokenizer.vocabulary()
        return WordIds({t: i for i, t in enumerate(vocab)}, len(vocab))
    symbols = [tokenizer.tag_word(t) for t in TAGS] + [EOS, *DIGIT_SYMBOLS]
    index = {s: i for i, s in enumerate(symbols)}
    return TextIds(lambda text: tuple([index[text]] if text in index else [index[ch] for ch in text]),
                   lambda ids: "".join(symbols[i] for i in ids), index[EOS], len(symbols))


def hf_ids(hf_tokenizer, tokenizer: TrajTokenizer) -> TokenIds:
    """A Hugging Face tokenizer: the format's tokens added to it (once), or (digits) its own pieces and end token."""
    if not tokenizer.digits:
        hf_tokenizer.add_tokens(tokenizer.added_tokens(), special_tokens=True)
        to_id = {t: hf_tokenizer.convert_tokens_to_ids(t) for t in tokenizer.vocabulary()}
        return WordIds(to_id, len(hf_tokenizer), new=list(to_id.values()))
    return TextIds(lambda text: tuple(hf_tokenizer(text, add_special_tokens=False)["input_ids"]),
                   lambda ids: hf_tokenizer.decode(ids, clean_up_tokenization_spaces=False),
                   hf_tokenizer.eos_token_id, len(hf_tokenizer))
