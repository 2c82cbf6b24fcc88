"""Admission gates (spec 2.3): measured, and a trivial bug is refused."""

from proceedings.pbtbench.overlay import installed_site_packages
from proceedings.pbtbench.patching import make_patch, replace_once
from proceedings.pbtbench.problem import load_problem
from proceedings.pbtbench.trigger import validate
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
    problem = subset_problem(tmp_path, "cachetools-caches", ["lfu-pair-promotion"])
    source = (installed_site_packages(problem) / "cachetools/__init__.py").read_text()
    changed = replace_once(source, "            self.__currsize += diffsize\n",
                           "            self.__currsize += diffsize + 1\n", "test")
    (problem.root / "bugs" / "currsize-always-off.patch").write_text(
        make_patch("cachetools/__init__.py", source, changed))
    toml = problem.root / "problem.toml"
    toml.write_text(toml.read_text() + TRIVIAL)
    return load_problem(problem.root)


def test_gates_admit_a_hard_bug_and_refuse_one_that_default_strategies_find(tmp_path):
    problem = _with_trivial_bug(tmp_path)
    record = validate(problem, runs=2, examples=120, write=False)
    hard, trivial = record["bugs"]["lfu-pair-promotion"], record["bugs"]["currsize-always-off"]
    assert hard["admitted"] and hard["reference"]["detected"] == 2 and hard["default"]["detected"] == 0
    assert hard["clean"]["reference"]["detected"] == 0 and hard["interference"]["detected"] == 0
    assert trivial["default"]["detected"] >= 1 and trivial["gates"]["default"] is False
    assert not trivial["admitted"]
    assert record["sandbox"] in ("namespaces", "user-namespaces")
