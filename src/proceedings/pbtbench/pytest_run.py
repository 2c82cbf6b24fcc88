"""Running pytest on a test file in the sandbox, with per-function verdicts (spec 2.4).

Per-function verdicts come from the JUnit XML, so one process scores all functions; a run that
times out or dies is re-run one function at a time, so one hanging test costs only itself.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from proceedings.pbtbench.sandbox import SCORING_PHASES, Sandbox, Target

VERDICTS = ("passed", "failed", "error", "skipped", "timeout")


@dataclass
class PytestReport:
    """Per-function verdicts of one pytest run (or of its per-function fallback)."""

    verdicts: dict[str, str]  # function key -> one of VERDICTS
    returncode: int | None
    timed_out: bool
    wall_s: float
    level: str
    output: str = ""
    collection_error: bool = False


def pytest_command(targets: list[str], seed: int) -> list[str]:
    return ["-m", "pytest", *targets, "-q", "-p", "no:cacheprovider",
            "-p", "hypothesis.extra.pytestplugin", f"--hypothesis-seed={seed}", "--junitxml=../out/junit.xml",
            "-c", "pytest.ini", "--rootdir", ".", "-W", "ignore::DeprecationWarning"]


def function_key(nodeid: str) -> str:
    """`pbt_test.py::TestX::runTest` -> `TestX.runTest`; `pbt_test.py::test_a` -> `test_a`."""
    return ".".join(nodeid.split("::")[1:])


def parse_junit(xml_text: str, module: str) -> tuple[dict[str, str], bool]:
    """Function key -> verdict, and whether collection failed."""
    verdicts: dict[str, str] = {}
    collection_error = False
    root = ET.fromstring(xml_text)
    for case in root.iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        if classname in ("", module) and name == module or not name:
            collection_error = True
            continue
        prefix = classname[len(module) + 1:] if classname.startswith(module + ".") else ""
        key = f"{prefix}.{name}" if prefix else name
        if case.find("failure") is not None:
            verdict = "failed"
        elif case.find("error") is not None:
            verdict = "error"
        elif case.find("skipped") is not None:
            verdict = "skipped"
        else:
            verdict = "passed"
        if verdicts.get(key) != "failed":
            verdicts[key] = verdict
    return verdicts, collection_error


def run_pytest(sandbox: Sandbox, test_name: str, code: str, target: Target | None, seed: int,
               phases: str = SCORING_PHASES, exclude: frozenset[str] = frozenset(),
               extra_files: dict[str, str] | None = None) -> PytestReport:
    """Run one test file; if the run times out or dies, re-run each function alone (spec 2.4)."""
    files = {test_name: code, **(extra_files or {})}
    env = {"PBTBENCH_PHASES": phases}
    module = Path(test_name).stem
    targets = [test_name] + [f"--deselect={test_name}::{k.replace('.', '::')}" for k in sorted(exclude)]
    outcome = sandbox.run(pytest_command(targets, seed), files, target, env)
    junit = outcome.outputs.get("junit.xml")
    if junit and not outcome.timed_out:
        verdicts, collection_error = parse_junit(junit, module)
        return PytestReport(verdicts, outcome.returncode, False, outcome.wall_s, outcome.level,
                            (outcome.stdout + outcome.stderr)[-4000:], collection_error)
    keys = collect_functions(sandbox, test_name, files, target, env)
    verdicts, wall = {}, outcome.wall_s
    for key in keys:
        if key in exclude:
            continue
        alone = sandbox.run(pytest_command([f"{test_name}::{key.replace('.', '::')}"], seed), files, target, env)
        wall += alone.wall_s
        xml = alone.outputs.get("junit.xml")
        verdicts[key] = ("timeout" if alone.timed_out or not xml
                         else parse_junit(xml, module)[0].get(key, "error"))
    return PytestReport(verdicts, outcome.returncode, outcome.timed_out, wall, outcome.level,
                        (outcome.stdout + outcome.stderr)[-4000:], collection_error=not keys)


def collect_functions(sandbox: Sandbox, test_name: str, files: dict[str, str], target: Target | None,
                      env: dict[str, str]) -> list[str]:
    command = ["-m", "pytest", test_name, "--collect-only", "-q", "-p", "no:cacheprovider",
               "-p", "hypothesis.extra.pytestplugin", "-c", "pytest.ini", "--rootdir", "."]
    outcome = sandbox.run(command, files, target, env)
    pattern = re.compile(rf"^{re.escape(test_name)}::\S+", re.M)
    return [function_key(m.group(0)) for m in pattern.finditer(outcome.stdout)]
