"""Small N-vium models shared by the tests (built in milliseconds; copy before training one)."""

import pytest


def small_model(seed: int = 0, exits=(1, 2, 3, 4), n_layer: int = 4, gate_bias: float = 0.0, max_seq_len: int = 1200):
    """A random 4-layer N-vium whose router spreads mass over every exit (gates with real weights)."""
    import torch

    from proceedings.nvium.model import NviumConfig, NviumForCausalLM

    torch.manual_seed(seed)
    model = NviumForCausalLM(NviumConfig(n_layer=n_layer, d_model=32, n_head=4, n_kv_head=2, d_ff=64,
                                         exits=exits, max_seq_len=max_seq_len, gate_bias_init=gate_bias))
    with torch.no_grad():
        for norm in model.exit_norms:  # distinct exits, so a wrong exit shows in the output
            norm.weight.normal_(1.0, 0.3)
        for gate in model.gates:
            gate.weight.normal_(0.0, 0.3)
    return model.eval()


@pytest.fixture
def routed_model():
    return small_model()
