"""The generic text behind C_0 and the held-out text behind perplexity, both offline.

Wikipedia (the papers' source for C_0) cannot be had offline. The built-in corpus is the English
prose that ships with every CPython (`pydoc_data.topics`, ~100k tokens of documentation) plus one
sentence per fact of the relation tables, so entity-like keys are represented too. Its last fifth
of topics is held out for perplexity and never enters C_0. `--corpus FILE` replaces it with any
UTF-8 text (documents separated by blank lines).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from proceedings.core.errors import ProceedingsError

HELDOUT_FRACTION = 0.2


def _topics() -> list[str]:
    from pydoc_data.topics import topics

    return [topics[name] for name in sorted(topics)]


def builtin_corpus() -> list[str]:
    """Documents for C_0: the first 80 % of the Python documentation topics + fact sentences."""
    from proceedings.nas.facts import fact_sentences

    topics = _topics()
    return topics[: int(len(topics) * (1 - HELDOUT_FRACTION))] + fact_sentences()


def heldout_text() -> str:
    """Text never used for C_0: the last 20 % of the documentation topics."""
    topics = _topics()
    return "\n\n".join(topics[int(len(topics) * (1 - HELDOUT_FRACTION)):])


def read_corpus(path: str | Path | None) -> list[str]:
    """The built-in corpus, or the documents of a text file."""
    if path is None:
        return builtin_corpus()
    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"corpus file '{path}' does not exist; pass a UTF-8 text file or omit --corpus")
    documents = [doc.strip() for doc in path.read_text(encoding="utf-8").split("\n\n") if doc.strip()]
    if not documents:
        raise ProceedingsError(f"corpus file '{path}' is empty")
    return documents


def corpus_hash(documents: list[str]) -> str:
    digest = hashlib.sha256()
    for doc in documents:
        digest.update(doc.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]
