"""Shared fixtures: offline Hugging Face, one torch thread, results written to a temporary folder."""

import os

import pytest

# Tests never reach the network: the Hugging Face libraries must not try the hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("PROCEEDINGS_THREADS", "1")


@pytest.fixture(autouse=True)
def _isolated_results(tmp_path, monkeypatch):
    """Every test writes results under its own temporary folder, never into the checkout."""
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / "results"))


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    import torch

    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def smollm2():
    """(model, tokenizer) of the real SmolLM2-135M-Instruct, shared: copy it before changing it."""
    from proceedings.core.models import load_causal_lm

    return load_causal_lm("smollm2-135m", device="cpu")


@pytest.fixture(scope="session")
def tiny_lm():
    """A seeded random 2-layer Llama with SmolLM2's tokenizer: copy it before changing it."""
    from proceedings.core.models import tiny_causal_lm

    return tiny_causal_lm(seed=0)
