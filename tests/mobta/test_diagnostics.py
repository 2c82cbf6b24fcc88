"""Diagnostics: which kind of token a merged model gets wrong on held-out person-days."""

import pytest
import torch

from proceedings.mobta.diagnostics import token_nll
from proceedings.mobta.token_ids import own_ids
from proceedings.mobta.tokenization import TrajTokenizer
from proceedings.mobta.trajectories import Trajectory


def test_token_nll_reports_the_mass_a_model_puts_on_the_right_kind_of_token():
    """A model that always predicts cell tokens: all its mass is on cells, none on slots or <eos>."""
    tokenizer = TrajTokenizer(4)
    ids = own_ids(tokenizer)
    cells = torch.tensor([ids.to_id[tokenizer.cell_words(c)[0]] for c in range(tokenizer.cells)])

    class CellsOnly(torch.nn.Module):
        def forward(self, input_ids):
            logits = torch.full((*input_ids.shape, ids.vocab_size), -1e9)
            logits[..., cells] = 0.0
            return type("Out", (), {"logits": logits})()

    day = tokenizer.encode(Trajectory(((3, 5), (20, 7))), "mob")
    out = token_nll(CellsOnly(), tokenizer, ids, [day, day[:3] + day[-1:]])
    assert out["cell"]["kind_mass"] == pytest.approx(1.0) and out["slot"]["kind_mass"] == pytest.approx(0.0)
    assert out["cell"]["nll_bits"] == pytest.approx(4.0)  # uniform over 16 cells
    assert set(out) == {"slot", "cell", "eos"}


def test_token_nll_sums_a_digit_words_ids_and_reads_its_kind_from_the_first():
    """A uniform model over the tiny digits characters: a word costs its id count x log2(vocab) bits."""
    import math

    tokenizer = TrajTokenizer(4, cell_format="digits")
    ids = own_ids(tokenizer)

    class Uniform(torch.nn.Module):
        def forward(self, input_ids):
            return type("Out", (), {"logits": torch.zeros((*input_ids.shape, ids.vocab_size))})()

    day = tokenizer.encode(Trajectory(((3, 5), (20, 7))), "mob")  # mob 01:30 r01 c01 10:00 r01 c03 <eos>
    out = token_nll(Uniform(), tokenizer, ids, [day])
    assert set(out) == {"slot", "row", "column", "eos"}
    bits = math.log2(ids.vocab_size)
    assert out["slot"]["nll_bits"] == pytest.approx(6 * bits) and out["row"]["nll_bits"] == pytest.approx(4 * bits)
    assert out["eos"]["nll_bits"] == pytest.approx(bits)
    assert out["eos"]["kind_mass"] == pytest.approx(1 / ids.vocab_size)
