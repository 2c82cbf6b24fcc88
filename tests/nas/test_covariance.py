"""C_0 statistics: an interrupted collection resumes to exactly the uninterrupted result, and is cached."""

import torch

from proceedings.nas.covariance import key_second_moments, token_chunks
from proceedings.nas.editing import Editor
from proceedings.nas.facts import fact_sentences
from proceedings.nas.model_layout import layout_for


def test_interrupted_statistics_resume_to_the_same_c0(tiny_editing, tmp_path):
    model, tok = tiny_editing
    layout = layout_for(model)
    chunks = token_chunks(tok, fact_sentences(), n_tokens=1_200, seq_len=32)
    whole = key_second_moments(model, layout, [1, 2], chunks, tmp_path / "a.pt", batch_size=4, save_every=2)
    assert key_second_moments(model, layout, [1, 2], chunks, tmp_path / "b.pt", batch_size=4, stop_after=3) is None
    resumed = key_second_moments(model, layout, [1, 2], chunks, tmp_path / "b.pt", batch_size=4)
    for layer in (1, 2):
        assert torch.equal(whole[layer], resumed[layer])
        assert torch.allclose(whole[layer], whole[layer].T)
        assert torch.linalg.eigvalsh(whole[layer]).min() > -1e-9  # a second moment is positive semi-definite


def test_editor_caches_c0_per_model_and_corpus(tiny_copy, tiny_hparams, tmp_path):
    model, tok = tiny_copy
    editor = Editor(model, tok, tiny_hparams(model), cache_dir=tmp_path)
    first = editor.covariances()
    files = sorted((tmp_path / "stats" / editor.model_hash).glob("*.pt"))
    assert len(files) == len(editor.hp.layers) and not any("partial" in f.name for f in files)
    again = editor.covariances()
    assert all(torch.equal(first[layer], again[layer]) for layer in first)
