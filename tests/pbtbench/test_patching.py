import pytest
from hypothesis import given, settings, strategies as st

from proceedings.pbtbench.overlay import installed_site_packages
from proceedings.pbtbench.patching import PatchError, apply_patch, lint_patch, make_patch, parse_patch
from proceedings.pbtbench.problem import Benchmark
from proceedings.pbtbench.trigger import check_patch

_lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "x = 1\n", "    return y\n", "\n"]), max_size=30)


@settings(max_examples=150, deadline=None)
@given(old=_lines, new=_lines)
def test_patch_applies_exactly_and_reverses(old, new):
    old_text, new_text = "".join(old), "".join(new)
    patch = make_patch("pkg/mod.py", old_text, new_text)
    if old_text == new_text:
        assert patch == ""
        return
    assert apply_patch(lambda _: old_text, patch, "p")["pkg/mod.py"] == new_text
    assert apply_patch(lambda _: new_text, patch, "p", reverse=True)["pkg/mod.py"] == old_text


def test_a_hunk_whose_context_differs_is_refused_naming_the_hunk():
    old = "".join(f"line {i}\n" for i in range(20))
    patch = make_patch("pkg/mod.py", old, old.replace("line 10\n", "LINE 10\n"))
    with pytest.raises(PatchError, match=r"pkg/mod.py: hunk 1 .* does not match"):
        apply_patch(lambda _: old.replace("line 9\n", "line nine\n"), patch, "p")


def test_malformed_patch_is_refused():
    with pytest.raises(PatchError, match="no file headers"):
        parse_patch("not a diff\n")
    with pytest.raises(PatchError, match="truncated"):
        parse_patch("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n")


def test_lint_flags_comments_docstrings_and_telltale_names():
    old = "def f(x):\n    return x + 1\n"
    cases = {"adds a comment": "def f(x):\n    return x + 2  # off\n",
             "docstring": 'def f(x):\n    """Changed."""\n    return x + 2\n',
             "contains 'bug'": "def f(x):\n    bug_here = 2\n    return x + bug_here\n"}
    for problem, new in cases.items():
        patch = make_patch("pkg/mod.py", old, new)
        assert any(problem in p for p in lint_patch(patch, "p", {"pkg/mod.py": old}, {"pkg/mod.py": new})), problem
    clean = make_patch("pkg/mod.py", old, "def f(x):\n    return x + 2\n")
    assert lint_patch(clean, "p", {"pkg/mod.py": old}, {"pkg/mod.py": "def f(x):\n    return x + 2\n"}) == []


@pytest.mark.slow
def test_every_shipped_patch_applies_reverses_and_is_clean():
    for problem in Benchmark.load():
        installed_site_packages(problem)
        for bug in problem.bugs:
            assert check_patch(problem, bug) == [], (problem.id, bug.id)
