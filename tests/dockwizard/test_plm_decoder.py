"""The full-scale decoder: a (tiny, random) Hugging Face ESM masked LM with LoRA, loaded from a local path."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.data import load_samples
from proceedings.dockwizard.features import Featurizer
from proceedings.dockwizard.model import DockWizard, ModelConfig
from proceedings.dockwizard.structures import AMINO_ACIDS

ESM_VOCAB = ["<cls>", "<pad>", "<eos>", "<unk>", *"LAGVSERTIDPKQNFYMHWCXBUZO.-", "<null_1>", "<mask>"]  # ESM-2's


@pytest.fixture(scope="module")
def esm_dir(tmp_path_factory):
    """A 2-layer, width-32 EsmForMaskedLM with random weights and ESM-2's tokenizer, saved as a user would."""
    from transformers import EsmConfig, EsmForMaskedLM, EsmTokenizer

    folder = tmp_path_factory.mktemp("esm")
    (folder / "vocab.txt").write_text("\n".join(ESM_VOCAB) + "\n")
    tokenizer = EsmTokenizer(str(folder / "vocab.txt"))
    torch.manual_seed(0)
    config = EsmConfig(vocab_size=len(ESM_VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                       intermediate_size=64, max_position_embeddings=128, position_embedding_type="rotary",
                       pad_token_id=1, mask_token_id=32, token_dropout=True)
    EsmForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def plm_model(esm_dir):
    torch.manual_seed(0)
    return DockWizard(ModelConfig(d=32, layers=1, heads=2, decoder="plm", plm_path=str(esm_dir)))


def test_only_lora_weights_of_the_protein_lm_train_and_one_step_reaches_them(plm_model):
    lm = plm_model.plm.lm
    assert all(p.requires_grad == ("lora_" in name) for name, p in lm.named_parameters())
    assert any("lora_" in name for name, _ in lm.named_parameters())
    loss = plm_model.loss(Featurizer("masked").batch(load_samples()[:2]))
    loss.backward()
    assert torch.isfinite(loss)
    grads = {name: p.grad for name, p in lm.named_parameters()}
    assert all(g is None for name, g in grads.items() if "lora_" not in name)  # pretrained weights frozen
    assert any(g is not None and g.abs().sum() > 0 for name, g in grads.items() if "lora_B" in name)
    assert plm_model.plm.prefix.weight.grad.abs().sum() > 0  # the global memory reaches the LM as a prompt
    assert all(block.gate.grad.abs() > 0 for block in plm_model.plm.inject)  # every block's injection is in the graph
    plm_model.zero_grad()


def test_the_protein_lm_decoder_writes_canonical_pockets_of_the_right_length(plm_model):
    samples = load_samples()[:2]
    with torch.no_grad():
        designs = plm_model.eval().generate(Featurizer("masked").batch(samples), [len(s.pocket) for s in samples],
                                            generator=torch.Generator().manual_seed(0))
    assert [len(d) for d in designs] == [len(s.pocket) for s in samples]
    assert all(set(d) <= set(AMINO_ACIDS) for d in designs)


def test_a_saved_protein_lm_model_loads_to_the_same_designs(plm_model, tmp_path):
    samples = load_samples()[:2]
    batch, lengths = Featurizer("masked").batch(samples), [len(s.pocket) for s in samples]
    plm_model.eval().save(tmp_path)
    loaded = DockWizard.from_pretrained(tmp_path)
    with torch.no_grad():
        assert loaded.generate(batch, lengths, generator=torch.Generator().manual_seed(1)) == \
            plm_model.generate(batch, lengths, generator=torch.Generator().manual_seed(1))


def test_a_missing_protein_lm_is_one_error_naming_its_path(tmp_path):
    with pytest.raises(ProceedingsError, match=f"no protein LM at '{tmp_path / 'esm2'}'"):
        DockWizard(ModelConfig(d=32, layers=1, heads=2, decoder="plm", plm_path=str(tmp_path / "esm2")))
