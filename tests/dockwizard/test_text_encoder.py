"""The MiniLM forward pass run from the package's weights gives the states `transformers` gives."""

import pytest


@pytest.mark.slow  # importing transformers: ~10 CPU-s
def test_minilm_states_are_those_of_transformers_bert_bit_for_bit():
    import torch
    from transformers import AutoModel, AutoTokenizer

    from proceedings.dockwizard.data import load_samples
    from proceedings.dockwizard.text_encoder import MAX_TOKENS, minilm_dir, token_states

    samples = load_samples()
    texts = sorted({s.function_text for s in samples} | {s.ligand_description for s in samples})
    texts.append("word " * 2 * MAX_TOKENS)  # truncated
    path = minilm_dir()
    tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    encoded = tokenizer(texts, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
    with torch.no_grad():
        reference = model(**encoded).last_hidden_state
    ours = token_states(texts)
    assert [len(s) for s in ours] == encoded["attention_mask"].sum(1).tolist()
    assert all(torch.equal(s, r[: len(s)]) for s, r in zip(ours, reference))
