"""The harness plugin, copied into every sandbox run as `tests/conftest.py` (spec 2.4).

It runs inside the sandbox and imports nothing from `proceedings`. It loads a Hypothesis profile
with the example database off (a failure saved on the buggy run must not be replayed on the fixed
one), and it checks that the library under test is imported from the overlay and with its C
accelerator off. Settings a test sets itself override the profile; timeouts stay the hard bound.
"""

import importlib
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings


def apply_profile() -> None:
    phases = [Phase[name] for name in os.environ.get("PBTBENCH_PHASES", "explicit,generate,target").split(",")]
    settings.register_profile("pbtbench", database=None, deadline=None, print_blob=False, phases=phases,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("pbtbench")


def check_import_guard() -> dict:
    """Import the library; fail unless every module comes from the overlay and none is compiled."""
    overlay = os.environ.get("PBTBENCH_OVERLAY", "")
    if not overlay:
        return {}
    found = {}
    for name in filter(None, os.environ.get("PBTBENCH_IMPORTS", "").split(",")):
        module = importlib.import_module(name)
        origin = str(Path(module.__file__).resolve())
        if not origin.startswith(overlay):
            raise RuntimeError(f"import guard: {name} was imported from {origin}, not from the overlay {overlay}")
        found[name] = origin
    compiled = [n for n in filter(None, os.environ.get("PBTBENCH_COMPILED", "").split(",")) if n in sys.modules]
    if compiled:
        raise RuntimeError(f"import guard: compiled modules {compiled} are loaded; the problem's env must "
                           "switch the C accelerator off")
    out = os.environ.get("PBTBENCH_OUT")
    if out:
        Path(out, "guard.json").write_text(json.dumps(found))
    return found


apply_profile()


def pytest_configure(config):
    try:
        check_import_guard()
    except Exception as err:
        raise pytest.UsageError(str(err)) from None
