"""Many Dafny tasks' tests in one compiled program (the CI gate "every shipped reference verifies").

A test run per task pays Mono's start-up and a C# compile every time (~1 s wall a task at load 2-6).
Here every task's test file is wrapped in its own module (`module VcgBatch<n> { ... }`: the tasks'
names cannot clash), each task's test `Main` renamed and called in turn under a header line, and the
whole program compiled and run once (`/compile:4 /noVerify`); the printed values are compared per
task, and a compile error line is charged to the task whose module holds it, so one broken task fails
alone and is named. A program that stops (an error no module owns, a crash) fails every task it did
not finish. Verification is not batched: one Boogie program holds every module's axioms, which slowed
each proof (measured round 13: 64 CPU-s for the batch, and `verina_is_prime`, 5 CPU-s alone, timed out
at 30 s in it); validate.py verifies one file per request in the warm test host instead.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from proceedings.verified_codegen.cheats import scan
from proceedings.verified_codegen.checkers import DafnyChecker, normalise, run_process, tail
from proceedings.verified_codegen.tasks import Task

_LOCATION = re.compile(r"\((\d+),\d+\)")
_ERROR = re.compile(r"\bError\b|timed out|out of resource")


@dataclass(frozen=True)
class Batch:
    """One file holding every task's module; `owner(line)` is the index of the task whose module holds it."""

    text: str
    starts: tuple[int, ...]  # first line (1-based) of each task's module

    def owner(self, line: int) -> int | None:
        found = [n for n, start in enumerate(self.starts) if start <= line]
        return found[-1] if found else None


def bundle(texts: list[str]) -> Batch:
    parts, starts, line = [], [], 1
    for number, text in enumerate(texts):
        wrapped = f"module VcgBatch{number} {{\n{text.rstrip()}\n}}\n"
        parts.append(wrapped)
        starts.append(line)
        line += wrapped.count("\n")
    return Batch("".join(parts), tuple(starts))


def _run(checker: DafnyChecker, batch: Batch, argv_of) -> tuple[int | None, str, float, float]:
    with tempfile.TemporaryDirectory(prefix="vcg-batch-") as tmp:
        path = Path(tmp) / "batch.dfy"
        path.write_text(batch.text)
        checker.processes += 1
        run = run_process(argv_of(path), Path(tmp), checker.timeout_s)
    return run.returncode, run.output, run.seconds, run.cpu_s


def _charge(batch: Batch, output: str, count: int) -> dict[int, list[str]]:
    """Error lines by task index; an error line without a location is charged to every task."""
    errors: dict[int, list[str]] = {n: [] for n in range(count)}
    for line in output.splitlines():
        if not _ERROR.search(line):
            continue
        found = _LOCATION.search(line)
        owner = batch.owner(int(found.group(1))) if found else None
        for n in ([owner] if owner is not None else range(count)):
            errors[n].append(line.strip())
    return errors


def test_many(checker: DafnyChecker, items: list[tuple[Task, dict[str, str]]]) -> tuple[list[str], float, float]:
    """Every (task, solution) run on its task's tests in one compiled program: per item "" (all pass) or why
    not; and the run's wall and CPU seconds."""
    reasons = [f"rejected: {cheat}" if (cheat := scan("dafny", solution)) else "" for _, solution in items]
    texts = [checker.test_file(task, solution).replace("\nmethod Main() {\n", "\nmethod VcgTests() {\n")
             for task, solution in items]
    batch = bundle(texts)
    calls = "".join(f'  print "## {n}\\n";\n  VcgBatch{n}.VcgTests();\n' for n in range(len(items)))
    batch = Batch(batch.text + f"method Main() {{\n{calls}}}\n", batch.starts)
    returncode, output, seconds, cpu_s = _run(checker, batch, lambda path: [checker.path, *checker.TEST_ARGS,
                                                                             path.name])
    printed = dict(re.findall(r"^## (\d+)\n(.*?)(?=^## \d+\n|\Z)", output, re.M | re.S))
    errors = _charge(batch, output, len(items))
    for n, (task, _) in enumerate(items):
        if reasons[n]:
            continue
        values = checker.test_values(printed.get(str(n), ""))
        if returncode != 0 and (errors[n] or str(n) not in printed):
            reasons[n] = f"does not compile or run (dafny exit {returncode}): {' | '.join(errors[n][:2]) or tail(output)}"
        elif len(values) != len(task.tests):
            reasons[n] = f"{len(values)} of {len(task.tests)} test results printed"
        else:
            failing = [i for i, (got, want) in enumerate(values) if normalise(got) != normalise(want)]
            reasons[n] = f"test(s) {failing} fail" if failing else ""
    return reasons, seconds, cpu_s
