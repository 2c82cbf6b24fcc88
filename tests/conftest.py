"""Shared fixtures: offline Hugging Face, one torch thread, results written to a temporary folder."""

import os
import sys

import pytest

# Tests never reach the network: the Hugging Face libraries must not try the hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("PROCEEDINGS_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # torch, when a test imports it, starts with one thread


@pytest.fixture(autouse=True)
def _isolated_results(tmp_path, monkeypatch):
    """Every test writes results under its own temporary folder, never into the checkout."""
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / "results"))


def pytest_runtest_setup(item):
    """One torch thread for every test that uses torch, without importing torch (4-7 s) for those
    that do not."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
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


# ----------------------------------------------------------------------------- per-system durations

SYSTEM_BUDGET_S = 25.0  # each system's fast tests, one thread (README: "Tests")
_durations: dict[str, float] = {}


def pytest_addoption(parser):
    parser.addoption("--system-durations", action="store_true",
                     help="print the summed test time per system (tests/<slug>/) against the 25 s budget")


def pytest_runtest_logreport(report):
    parts = report.nodeid.split("/")
    if len(parts) > 2 and parts[0] == "tests":
        _durations[parts[1]] = _durations.get(parts[1], 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, config):
    if not config.getoption("--system-durations"):
        return
    terminalreporter.write_sep("=", "seconds per system (setup + call + teardown)")
    for system, seconds in sorted(_durations.items(), key=lambda item: -item[1]):
        flag = "  OVER BUDGET" if seconds > SYSTEM_BUDGET_S else ""
        terminalreporter.write_line(f"{system:>16} {seconds:7.1f} s{flag}")
    terminalreporter.write_line(f"{'total':>16} {sum(_durations.values()):7.1f} s")
