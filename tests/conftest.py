"""Shared fixtures: offline Hugging Face, one torch thread, results written to a temporary folder."""

import os
import resource
import sys
import time

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
_durations: dict[str, list[float]] = {}  # system -> [wall seconds, CPU seconds]


def pytest_addoption(parser):
    parser.addoption("--system-durations", action="store_true",
                     help="print the summed test time per system (tests/<slug>/) against the 25 s budget: wall "
                          "seconds and CPU seconds (this process and its children), which a busy machine does not inflate")


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start_wall, start_cpu = time.perf_counter(), _cpu_seconds()
    yield
    parts = item.nodeid.split("/")
    if len(parts) > 2 and parts[0] == "tests":
        totals = _durations.setdefault(parts[1], [0.0, 0.0])
        totals[0] += time.perf_counter() - start_wall
        totals[1] += _cpu_seconds() - start_cpu


def pytest_terminal_summary(terminalreporter, config):
    if not config.getoption("--system-durations"):
        return
    terminalreporter.write_sep("=", "seconds per system (setup + call + teardown): wall, CPU")
    for system, (wall, cpu) in sorted(_durations.items(), key=lambda item: -item[1][1]):
        flag = "  OVER BUDGET" if min(wall, cpu) > SYSTEM_BUDGET_S else ""
        terminalreporter.write_line(f"{system:>16} {wall:7.1f} s wall {cpu:7.1f} s CPU{flag}")
    wall, cpu = (sum(column) for column in zip(*_durations.values())) if _durations else (0.0, 0.0)
    terminalreporter.write_line(f"{'total':>16} {wall:7.1f} s wall {cpu:7.1f} s CPU")
