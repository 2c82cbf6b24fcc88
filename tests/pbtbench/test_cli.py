import subprocess
import sys

import pytest

from proceedings.pbtbench.test_files import reference_test_file
from tests.pbtbench.conftest import subset_problem


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "proceedings", "pbtbench", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_list_and_env_report_problems_and_the_sandbox_level():
    listed = _cli("list")
    assert listed.returncode == 0 and "cachetools-caches" in listed.stdout


@pytest.mark.slow
def test_score_prints_per_bug_verdicts(tmp_path):
    problem = subset_problem(tmp_path / "problems", "cachetools-caches", ["sized-exact-capacity"])
    test_file = tmp_path / "pbt_test.py"
    test_file.write_text(reference_test_file(problem, problem.bugs))
    done = _cli("score", "cachetools-caches", str(test_file), "--problems-dir", str(tmp_path / "problems"))
    assert done.returncode == 0 and "found (conservative)" in done.stdout and "recall 1.000" in done.stdout


def test_bad_input_exits_2_with_one_line():
    unknown = _cli("show", "no-such-problem")
    assert unknown.returncode == 2 and unknown.stderr.strip().startswith("error: unknown problem")
    missing = _cli("score", "cachetools-caches", "/nonexistent/test.py")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
