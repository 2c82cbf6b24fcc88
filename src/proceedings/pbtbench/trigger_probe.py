"""Trigger-rate probe, copied into a sandbox run as `tests/probe.py` (spec 2.3).

Runs inside the sandbox and imports nothing from `proceedings`. For each task (a reference
property, a strategy kind, seeds) it runs Hypothesis once per seed in counting mode: the property
is wrapped so an exception is counted, not raised, and all `max_examples` valid examples are
generated. Until the first failure the examples are exactly those of the real test with the same
seed, so "counted at least one" = "the real test fails"; the counts also give the per-example
trigger rate. Examples rejected by `assume` are not counted as valid; valid over all examples the
property was called with is the reach rate: the share of examples that get past every `assume` to
the assertion. Runs past the task's `full_runs` stop at their first failure (detection is all
they measure).
"""

import functools
import json
import os
import sys
import time
from pathlib import Path

import conftest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import HypothesisException, UnsatisfiedAssumption

import props
import strategies


class _Stop(Exception):
    """Ends a run at its first failure when only detection is asked for."""


def measure(prop, given_kwargs, run_seed, max_examples, full):
    counts = {"calls": 0, "valid": 0, "triggered": 0, "first": None, "error": None, "full": full}

    @functools.wraps(prop)
    def counted(*args, **kwargs):
        counts["calls"] += 1
        try:
            prop(*args, **kwargs)
        except UnsatisfiedAssumption:
            raise
        except Exception as err:
            counts["triggered"] += 1
            counts["first"] = counts["first"] or f"{type(err).__name__}: {err}"[:300]
            if not full:
                counts["valid"] += 1
                raise _Stop() from None
        counts["valid"] += 1

    test = settings(max_examples=max_examples, phases=[Phase.generate], database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))(seed(run_seed)(given(**given_kwargs)(counted)))
    try:
        test()
    except _Stop:
        pass
    except HypothesisException as err:  # e.g. Unsatisfiable: every example rejected
        counts["error"] = f"{type(err).__name__}: {err}"[:300]
    return counts


def main():
    conftest.check_import_guard()
    spec = json.loads(Path("probe_spec.json").read_text())
    results = []
    for task in spec["tasks"]:
        prop = getattr(props, task["property"])
        if task["strategy"] == "reference":
            given_kwargs = strategies.STRATEGIES[task["property"]]
        else:
            given_kwargs = {name: ... for name in task["parameters"]}
        started = time.perf_counter()
        runs = [measure(prop, given_kwargs, s, task["max_examples"], full=i < task["full_runs"])
                for i, s in enumerate(task["seeds"])]
        results.append({**task, "runs": runs, "wall_s": time.perf_counter() - started})
    Path(os.environ["PBTBENCH_OUT"], "probe.json").write_text(json.dumps(results))


if __name__ == "__main__":
    sys.exit(main())
