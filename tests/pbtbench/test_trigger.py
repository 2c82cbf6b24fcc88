"""The trigger-rate meter and admission gates (spec 2.3, issue 16): reach measured, a trivial bug refused."""

import pytest

from proceedings.pbtbench.overlay import installed_site_packages
from proceedings.pbtbench.patching import make_patch, replace_once
from proceedings.pbtbench.problem import load_problem
from proceedings.pbtbench.sandbox import Sandbox
from proceedings.pbtbench.trigger import ProbeTask, probe, validate
from tests.pbtbench.conftest import subset_problem

TRIVIAL = '''
[[bugs]]
id = "currsize-always-off"
level = "L2"
patch = "bugs/currsize-always-off.patch"
property = "prop_sized_currsize"
location = "cachetools/__init__.py:Cache.__setitem__"
trigger = "any insertion into a sized cache"
invariant = { doc = "docs/overview.md", quote = "`currsize` is the current size of the cache" }
'''


def _with_trivial_bug(tmp_path):
    problem = subset_problem(tmp_path, "cachetools-caches", ["typedkey-keyword-order"])
    source = (installed_site_packages(problem) / "cachetools/__init__.py").read_text()
    changed = replace_once(source, "            self.__currsize += diffsize\n",
                           "            self.__currsize += diffsize + 1\n", "test")
    (problem.root / "bugs" / "currsize-always-off.patch").write_text(
        make_patch("cachetools/__init__.py", source, changed))
    toml = problem.root / "problem.toml"
    toml.write_text(toml.read_text() + TRIVIAL)
    return load_problem(problem.root)


KNOWN = '''

def prop_half_reach(x: int) -> None:
    assume(x >= 0)
    assert x != 10**12


def prop_guarded_away(x: int, y: int) -> None:
    assume(x == 123456789 and y == -987654321)
'''


def test_the_reach_rate_is_the_share_of_examples_past_every_assume(tmp_path):
    problem = subset_problem(tmp_path, "cachetools-caches", ["rr-delete-stale-index"])
    problem.props_file.write_text(problem.props_file.read_text() + KNOWN)
    problem = load_problem(problem.root)
    half, never = ProbeTask("prop_half_reach", "default"), ProbeTask("prop_guarded_away", "default")
    cells = probe(problem, (), [half, never], runs=1, examples=150, sandbox=Sandbox())
    assert 0.3 <= cells[half].reach <= 0.7 and cells[half].valid == 150 and cells[half].detected == 0
    assert cells[never].reach == 0.0 and cells[never].calls > 100 and "Unsatisfiable" in cells[never].error


@pytest.mark.slow
def test_gates_admit_a_hard_bug_and_refuse_one_that_default_strategies_find(tmp_path):
    problem = _with_trivial_bug(tmp_path)
    record = validate(problem, runs=2, examples=120, write=False)
    hard, trivial = record["bugs"]["typedkey-keyword-order"], record["bugs"]["currsize-always-off"]
    assert hard["admitted"] and hard["reference"]["detected"] == 2 and hard["default"]["detected"] == 0
    assert hard["default"]["reach"] >= 0.2 and hard["gates"]["reach"]
    assert hard["clean"]["reference"]["detected"] == 0 and hard["interference"]["detected"] == 0
    assert trivial["default"]["detected"] >= 1 and trivial["gates"]["default"] is False
    assert not trivial["admitted"]
    assert record["sandbox"] in ("namespaces", "user-namespaces")
