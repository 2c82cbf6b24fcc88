"""`compare`: recall per regime with bootstrap intervals over problems, paired to the first."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.compare import compare


def _run_folder(path, found_per_problem, infra_errors=0):
    path.mkdir()
    lines = [{"problem": f"p{i}", "run": 0, "infra_error": "", "bugs": [{"found": j < found} for j in range(4)]}
             for i, found in enumerate(found_per_problem)]
    lines += [{"problem": "p0", "run": 1, "infra_error": "HTTP 400", "bugs": []}] * infra_errors
    (path / "results.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))
    return path


def test_recall_intervals_and_paired_differences_over_problems(tmp_path):
    baseline = _run_folder(tmp_path / "baseline", [1, 2, 0, 1, 2, 1, 0, 1], infra_errors=1)
    pbt = _run_folder(tmp_path / "pbt", [3, 4, 2, 3, 4, 3, 2, 3])
    rows = compare([baseline, pbt], ["baseline", "pbt"])
    assert rows[0].recall == pytest.approx(8 / 32) and rows[1].recall == pytest.approx(24 / 32)
    assert rows[0].interval[0] < rows[0].recall < rows[0].interval[1]
    assert rows[1].difference == pytest.approx(0.5)
    assert rows[1].difference_interval == pytest.approx((0.5, 0.5))  # every problem gains exactly 2 of 4
    assert rows[0].infra_errors == 1 and rows[0].instances == 8 and rows[1].problems == 8


def test_folders_without_shared_problems_are_refused(tmp_path):
    with pytest.raises(ProceedingsError, match="results.jsonl"):
        compare([tmp_path])
